"""Unwrapping the rim text of round and oval seals into a straight strip.

The rim text follows the border, so the strip samples curves parallel to the fitted outline
(the outline moved inwards along its normal): row 0 is the outer edge of the text band, where
the tops of the characters are, and columns run clockwise at equal arc length. For a circle
this is the polar warp; for an ellipse it keeps character widths even all the way round.
Clockwise rim text with tops outward therefore reads upright and left to right.

The band is found from the radial ink profile (the share of the outline, moved in by d
pixels, that is ink): the thick border ring is the first peak, the text starts where the
ring's coverage has fallen off, and ends where the coverage drops again before the star and
the inner lines.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from .shapes import TWO_PI, SealRegion, ellipse_offset_points, inside_image, sample_mask

WHITE = 255
ARC_TABLE_SAMPLES = 2048
MIN_BAND_PX = 2.0


@dataclass(frozen=True)
class Band:
    """The text band as insets (pixels inwards from the fitted outline)."""

    outer: float
    inner: float

    @property
    def height(self) -> float:
        """Radial thickness of the band in pixels."""
        return self.inner - self.outer


@dataclass(frozen=True)
class TextArc:
    """Text along the outline: between two insets, from perimeter share `start` over `span`
    (clockwise); `turned` text has its tops towards the centre (read the strip turned)."""

    band: Band
    start: float
    span: float
    turned: bool = False
    # Where the arc's own text ends inwards, where the detector merged what lies inside with it
    # and the band reaches past that (`locate`); None: at the band's inner edge. Only the
    # inner lines are told from the arc by it: the band is what is read.
    text_inner: float | None = None

    @property
    def centre(self) -> float:
        """The arc's middle as a perimeter share."""
        return (self.start + self.span / 2.0) % 1.0

    @property
    def text_band(self) -> Band:
        """The band down to where the arc's own text ends."""
        inner = self.band.inner if self.text_inner is None else min(self.band.inner, self.text_inner)
        return Band(self.band.outer, inner)


@dataclass(frozen=True)
class BandParams:
    """Thresholds for `estimate_band`; fractions are of the short semi-axis."""

    profile_depth: float = 0.6  # how far inwards the radial profile looks
    profile_steps: int = 120
    profile_angles: int = 720
    ring_search: float = 0.15  # the ring's peak lies within this inset
    ring_drop: float = 0.5  # the ring ends where coverage falls below this share of its peak
    ring_gap: float = 0.06  # the emptiest inset this close past the ring starts the gap before the text
    text_onset: float = 0.25  # the text starts where coverage first reaches this share of its peak
    min_text: float = 0.12
    max_text: float = 0.4
    default_text: float = 0.26  # used when the profile shows no clear inner edge
    text_edge: float = 0.3  # the text ends where coverage falls below this share of its peak
    margin: float = 0.08  # of the band height, added on the inner side


DEFAULT_BAND = BandParams()


def radial_profile(
    mask: np.ndarray, region: SealRegion, params: BandParams = DEFAULT_BAND
) -> tuple[np.ndarray, np.ndarray]:
    """Insets (px) and the share of the visible inset outline that is ink at each."""
    b = region.axes[1]
    insets = np.linspace(0.0, params.profile_depth * b, params.profile_steps)
    t = np.linspace(0.0, TWO_PI, params.profile_angles, endpoint=False)
    points = ellipse_offset_points(
        region.center, region.axes, region.angle_deg, t[None, :], insets[:, None] + 0 * t
    )
    inside = inside_image(points, mask.shape[1], mask.shape[0])
    ink = sample_mask(mask, points) & inside
    return insets, (ink.sum(axis=1) / np.maximum(inside.sum(axis=1), 1)).astype(np.float64)


def _ring_end(insets: np.ndarray, coverage: np.ndarray, b: float, params: BandParams) -> int:
    """Index of the first inset past the border ring."""
    search = max(1, int(np.searchsorted(insets, params.ring_search * b)))
    peak = int(np.argmax(coverage[:search]))
    below = np.nonzero(coverage[peak:] < params.ring_drop * coverage[peak])[0]
    return peak + int(below[0]) if below.size else search


def _text_outer(insets: np.ndarray, coverage: np.ndarray, ring_end: int, b: float, params: BandParams) -> int:
    """Index of the text's outer edge: the emptiest inset just past the ring."""
    near = max(ring_end + 1, int(np.searchsorted(insets, insets[ring_end] + params.ring_gap * b)))
    return ring_end + int(np.argmin(coverage[ring_end:near]))


def _text_inner(insets: np.ndarray, coverage: np.ndarray, start: int, b: float, params: BandParams) -> float:
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


def estimate_band(mask: np.ndarray, region: SealRegion, params: BandParams = DEFAULT_BAND) -> Band:
    """The rim-text band of an elliptic seal, from a boolean ink mask of the page."""
    insets, coverage = radial_profile(mask, region, params)
    b = region.axes[1]
    start = _text_outer(insets, coverage, _ring_end(insets, coverage, b, params), b, params)
    outer, inner = float(insets[start]), _text_inner(insets, coverage, start, b, params)
    return Band(outer, min(b * params.profile_depth, inner + params.margin * (inner - outer)))


def _arc_table(region: SealRegion, inset: float) -> tuple[np.ndarray, np.ndarray]:
    """Ellipse parameters and the share of the perimeter (at `inset`) reached at each."""
    t = np.linspace(0.0, TWO_PI, ARC_TABLE_SAMPLES + 1)
    points = ellipse_offset_points(region.center, region.axes, region.angle_deg, t, np.full(t.shape, inset))
    length = np.concatenate([[0.0], np.cumsum(np.linalg.norm(np.diff(points, axis=0), axis=1))])
    return t, length / length[-1]


def arc_length(region: SealRegion, inset: float) -> float:
    """Perimeter of the outline moved `inset` pixels inwards."""
    t = np.linspace(0.0, TWO_PI, ARC_TABLE_SAMPLES + 1)
    points = ellipse_offset_points(region.center, region.axes, region.angle_deg, t, np.full(t.shape, inset))
    return float(np.linalg.norm(np.diff(points, axis=0), axis=1).sum())


def share_at(region: SealRegion, inset: float, t: np.ndarray) -> np.ndarray:
    """Perimeter shares (at `inset`) of ellipse parameters `t`: the inverse of `parameter_at`."""
    table_t, share = _arc_table(region, inset)
    return np.interp(np.mod(t, TWO_PI), table_t, share)


def parameter_at(region: SealRegion, inset: float, fractions: np.ndarray) -> np.ndarray:
    """Ellipse parameters t at perimeter shares (0 = the first axis, growing clockwise)."""
    t, share = _arc_table(region, inset)
    return np.interp(np.mod(fractions, 1.0), share, t)


def strip_width(region: SealRegion, band: Band, height: int, span: float = 1.0) -> int:
    """Width that keeps the aspect ratio of `span` of the band unwrapped at `height` rows."""
    middle = (band.outer + band.inner) / 2.0
    return max(1, round(arc_length(region, middle) * span * height / max(band.height, MIN_BAND_PX)))


def unwrap_band(
    image: np.ndarray,
    region: SealRegion,
    band: Band,
    height: int,
    width: int | None = None,
    start: float = 0.0,
    span: float = 1.0,
    outside: float = WHITE,
) -> np.ndarray:
    """Strip of `span` of the band from perimeter share `start`, `height` x `width` (width kept
    to aspect); what lies off the image reads as `outside` (paper, or no text in a map)."""
    width = width or strip_width(region, band, height, span)
    native_h = max(int(np.ceil(band.height)), height)
    native_w = max(round(width * native_h / height), 1)
    fractions = start + span * (np.arange(native_w) + 0.5) / native_w
    t = parameter_at(region, (band.outer + band.inner) / 2.0, fractions)
    insets = band.outer + band.height * (np.arange(native_h) + 0.5) / native_h
    points = ellipse_offset_points(
        region.center, region.axes, region.angle_deg, t[None, :], insets[:, None] + 0 * t
    )
    fill = (outside,) * (image.shape[2] if image.ndim == 3 else 1)
    strip = cv2.remap(
        image,
        points[..., 0].astype(np.float32),
        points[..., 1].astype(np.float32),
        cv2.INTER_LINEAR,
        borderMode=cv2.BORDER_CONSTANT,
        borderValue=fill,
    )
    return cv2.resize(strip, (width, height), interpolation=cv2.INTER_AREA)
