"""The rim band of an elliptic seal from its ink alone: the classical path's first step, and
the check on a rim band the detector made too deep.

The band is found from the radial ink profile (the share of the outline, moved in by d
pixels, that is ink): the thick border ring is the first peak, the text starts where the
ring's coverage has fallen off, and ends where the coverage drops again before the star and
the inner lines.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from imgproc.arrays import Floats, Mask

from ..geometry import TWO_PI, inside_image, outline_offset_points, sample_mask
from ..records import Band, SealRegion


@dataclass(frozen=True)
class BandParams:
    """Thresholds for `estimate_band`; fractions are of the short semi-axis."""

    profile_depth: float = 0.6  # how far inwards the radial profile looks
    profile_steps: int = 120  # insets it reads: half a percent of b each
    profile_angles: int = 720  # points round each inset outline: half a degree each
    ring_search: float = 0.15  # the ring's peak lies within this inset
    ring_drop: float = 0.5  # the ring ends where coverage falls below this share of its peak
    ring_gap: float = 0.06  # the emptiest inset this close past the ring starts the gap before the text
    text_onset: float = 0.25  # the text starts where coverage first reaches this share of its peak
    # The rim text band is searched at least this deep and at most this deep: a depth outside
    # these is a ring or an inner line, not rim text.
    min_text: float = 0.12
    max_text: float = 0.4
    default_text: float = 0.26  # used when the profile shows no clear inner edge
    text_edge: float = 0.3  # the text ends where coverage falls below this share of its peak
    margin: float = 0.08  # of the band height, added on the inner side


DEFAULT_BAND = BandParams()


def radial_profile(
    mask: Mask, region: SealRegion, params: BandParams = DEFAULT_BAND
) -> tuple[Floats, Floats]:
    """Insets (px) and the share of the visible inset outline that is ink at each."""
    b = region.axes[1]
    insets = np.linspace(0.0, params.profile_depth * b, params.profile_steps)
    t = np.linspace(0.0, TWO_PI, params.profile_angles, endpoint=False)
    points = outline_offset_points(region, t[None, :], insets[:, None] + 0 * t)
    inside = inside_image(points, mask.shape[1], mask.shape[0])
    ink = sample_mask(mask, points) & inside
    return insets, (ink.sum(axis=1) / np.maximum(inside.sum(axis=1), 1)).astype(np.float64)


def _ring_end(insets: Floats, coverage: Floats, b: float, params: BandParams) -> int:
    """Index of the first inset past the border ring."""
    search = max(1, int(np.searchsorted(insets, params.ring_search * b)))
    peak = int(np.argmax(coverage[:search]))
    below = np.nonzero(coverage[peak:] < params.ring_drop * coverage[peak])[0]
    return peak + int(below[0]) if below.size else search


def _text_outer(insets: Floats, coverage: Floats, ring_end: int, b: float, params: BandParams) -> int:
    """Index of the text's outer edge: the emptiest inset just past the ring."""
    near = max(ring_end + 1, int(np.searchsorted(insets, insets[ring_end] + params.ring_gap * b)))
    return ring_end + int(np.argmin(coverage[ring_end:near]))


def _text_inner(insets: Floats, coverage: Floats, start: int, b: float, params: BandParams) -> float:
    """Inset where the rim text ends: coverage falls below `text_edge` of the text's peak, at
    least `min_text` past the outer edge and half of that past the onset (where coverage first
    reaches `text_onset` of the peak: text may stand well off the ring)."""
    high = insets[start] + params.max_text * b
    window = (insets >= insets[start]) & (insets <= high)
    peak = coverage[window].max(initial=0.0)
    if peak <= 0:
        return float(insets[start] + params.default_text * b)
    onset = insets[np.nonzero(window & (coverage >= params.text_onset * peak))[0][0]]
    low = max(insets[start] + params.min_text * b, onset + params.min_text * b / 2.0)
    ends = np.nonzero(
        (insets >= low) & (insets <= high + onset - insets[start]) & (coverage < params.text_edge * peak)
    )[0]
    return float(insets[ends[0]]) if ends.size else float(onset + params.default_text * b)


def estimate_band(mask: Mask, region: SealRegion, params: BandParams = DEFAULT_BAND) -> Band:
    """The rim-text band of an elliptic seal, from a boolean ink mask of the page."""
    insets, coverage = radial_profile(mask, region, params)
    b = region.axes[1]
    start = _text_outer(insets, coverage, _ring_end(insets, coverage, b, params), b, params)
    outer, inner = float(insets[start]), _text_inner(insets, coverage, start, b, params)
    return Band(outer, min(b * params.profile_depth, inner + params.margin * (inner - outer)))
