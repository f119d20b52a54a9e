"""Where the rim text starts and ends: gaps in the angular ink profile, and candidate strips.

Rim text is centred on the top and leaves a gap at the bottom; registered seals put a
13-digit code (tops inward, reading left to right) in that gap. On the full unwrapped band
(columns clockwise, see `unwrap`), columns without ink form gaps and the rim text is
everything but the widest gap. Code digits are small and sit by the ring, so code columns
have ink in the outer rows of the band and none in the inner rows, which no rim character
does: the longest such run is the code, and the rim text is the rest. Short islands of ink
at either end of the rim that do not span the band's height (the tops of an inner line, a
stray mark) are cut off. Because this can still be fooled, the caller gets a few candidate
strips: the rim arc read clockwise (the prior favourite), the same arc turned 180 degrees
(counter-clockwise text with tops inward) and, when a second gap is nearly as wide, the band
opened there. The reader reads all of them and keeps the best `prior * mean confidence`.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from imgproc.arrays import Floats, Pixels, as_pixels
from imgproc.imaging import WHITE

from ..records import Candidate
from ..runs import Run, circular_runs, joined, smoothed


@dataclass(frozen=True)
class LayoutParams:
    """Thresholds for gap and code finding; lengths are in strip heights, rows in shares of it."""

    ink_level: int = 200  # gray below this counts as ink (non-ink is pure white in ink images)
    smooth: float = 0.15  # profile smoothing window
    gap_level: float = 0.02  # a column with less ink than this share is empty
    min_gap: float = 0.5  # a gap narrower than this is the space between two characters
    # Rows of the strip (shares of its height) the gap profile reads: not the first ones, which
    # may graze the ring, nor the last, which may hold the tops of the inner lines.
    profile_rows: tuple[float, float] = (0.08, 0.6)
    code_top_rows: tuple[float, float] = (0.08, 0.45)  # code digits sit in the outer rows...
    code_low_rows: tuple[float, float] = (0.55, 0.8)  # ...and leave these rows (nearly) empty:
    code_low_ratio: float = 0.2  # at most this share of the outer rows' ink
    code_smooth: float = 0.4  # both profiles smoothed over this window (digits have gaps)
    code_min: float = 1.5  # a code is at least this long: a few digits
    code_join: float = 1.0  # code runs this close together are one code
    code_max_ratio: float = 0.6  # of the rim arc's length
    comparable_gap: float = 0.7  # a second gap this wide relative to the widest is also tried
    island: float = 1.2  # ink this short beyond an end gap is cut off unless it spans the band...
    island_rows: float = 0.05  # ...with at least this share of ink in both outer and inner rows
    max_trims: int = 3  # islands cut at each end at most (stray marks, not a rim's characters)
    rule_length: float = 2.0  # horizontal ink runs this long (in strip heights)...
    rule_rows: float = 0.2  # ...in the outer rows, where a stray fit lets the ring in, are not text
    pad: float = 0.15  # of the band added to each end of a candidate arc
    alternative_prior: float = 0.97  # weight of candidates other than the favourite


DEFAULT_LAYOUT = LayoutParams()


@dataclass(frozen=True)
class RimLayout:
    """Rim and code runs on a full-band strip, with the gaps that delimit them."""

    width: int
    rim: Run
    code: Run | None
    gaps: tuple[Run, ...]  # widest first


def _row_share(strip: Pixels, rows: tuple[float, float], level: int) -> Floats:
    """Share of ink per column within rows [low, high) (shares of the strip height)."""
    height = strip.shape[0]
    low = int(rows[0] * height)
    share: Floats = (strip[low : max(low + 1, int(rows[1] * height))] < level).mean(axis=0)
    return share


def without_rules(strip: Pixels, params: LayoutParams = DEFAULT_LAYOUT) -> Pixels:
    """The strip with long horizontal lines whitened: where the fit strays, the border ring
    grazes the band's edge, and no rim character has a stroke that long."""
    length = max(3, round(params.rule_length * strip.shape[0]))
    ink = (strip < params.ink_level).astype(np.uint8)
    ink[round(params.rule_rows * strip.shape[0]) :] = 0
    lines = as_pixels(cv2.morphologyEx(ink, cv2.MORPH_OPEN, np.ones((1, length), np.uint8)))
    rules = as_pixels(cv2.dilate(lines, np.ones((3, 3), np.uint8))) > 0
    out = strip.copy()
    out[rules] = WHITE
    return out


def angular_profile(strip: Pixels, params: LayoutParams = DEFAULT_LAYOUT) -> Floats:
    """Share of ink per column in the outer rows of a gray full-band strip, smoothed circularly."""
    share = _row_share(strip, params.profile_rows, params.ink_level)
    return smoothed(share, round(params.smooth * strip.shape[0]))


def code_profile(strip: Pixels, params: LayoutParams = DEFAULT_LAYOUT) -> Floats:
    """1 where a column looks like small code digits (ink only near the ring), else 0."""
    height = strip.shape[0]
    window = round(params.code_smooth * height)
    top = smoothed(_row_share(strip, params.code_top_rows, params.ink_level), window)
    low = smoothed(_row_share(strip, params.code_low_rows, params.ink_level), window)
    return ((top >= params.gap_level) & (low <= params.code_low_ratio * top)).astype(np.float64)


def find_gaps(profile: Floats, min_width: int, level: float) -> list[Run]:
    """Circular runs of at least `min_width` columns below `level`, widest first."""
    gaps = [run for run in circular_runs(profile < level) if run.length >= min_width]
    return sorted(gaps, key=lambda run: run.length, reverse=True)


def _longest_first(runs: list[Run]) -> list[Run]:
    return sorted(runs, key=lambda run: run.length, reverse=True)


def _code_arc(strip: Pixels, params: LayoutParams) -> Run | None:
    """The code: the longest run of code-like columns, if long enough (rim characters fill
    the band's height, so they never look like code; inner-line tops only reach its bottom).
    Runs split by a faint digit or two are joined first."""
    height = strip.shape[0]
    runs = _longest_first(joined(code_profile(strip, params) > 0.5, round(params.code_join * height)))
    return runs[0] if runs and runs[0].length >= params.code_min * height else None


def _trimmed(arc: Run, profile: Floats, level: float) -> Run:
    """`arc` without the empty columns at its ends."""
    inked = np.nonzero(profile[arc.columns(len(profile))] >= level)[0]
    return Run(arc.start + int(inked[0]), arc.start + int(inked[-1]) + 1) if inked.size else arc


def rim_layout(strip: Pixels, params: LayoutParams = DEFAULT_LAYOUT) -> RimLayout:
    """Rim run, code run and gaps of a gray full-band strip (ink dark)."""
    height, width = strip.shape[:2]
    profile = angular_profile(strip, params)
    gaps = find_gaps(profile, max(1, round(params.min_gap * height)), params.gap_level)
    if not gaps:
        # No clear gap: the band is opened where there is least ink over a strip height.
        quiet = int(np.argmin(smoothed(profile, height)))
        gaps = [Run(quiet, quiet)]
    code = _code_arc(strip, params)
    rim = Run(gaps[0].stop, gaps[0].start + width)
    if code is not None:
        rest = _trimmed(Run(code.stop, code.start + width), profile, params.gap_level)
        if rest.length * params.code_max_ratio >= code.length:
            rim = rest
        else:
            code = None
    rim = without_stray_ends(strip, rim, tuple(gaps), params)
    return RimLayout(width, Run(rim.start % width, rim.start % width + rim.length), code, tuple(gaps))


def _padded(arc: Run, pad: int, width: int) -> Run:
    grow = min(pad, max(0, (width - arc.length) // 2))
    return Run(arc.start - grow, arc.stop + grow)


def _inner_gaps(arc: Run, gaps: tuple[Run, ...], width: int) -> list[Run]:
    """The gaps that lie inside `arc`, in clockwise order, in the arc's column numbering."""
    inside = []
    for gap in gaps:
        start = arc.start + (gap.start - arc.start) % width
        if start > arc.start and start + gap.length < arc.stop:
            inside.append(Run(start, start + gap.length))
    return sorted(inside, key=lambda g: g.start)


def _spans_band(strip: Pixels, arc: Run, params: LayoutParams) -> bool:
    """Whether the columns of `arc` have ink both in the outer and in the inner rows."""
    piece = strip[:, arc.columns(strip.shape[1])]
    top: float = _row_share(piece, params.code_top_rows, params.ink_level).max(initial=0.0)
    low: float = _row_share(piece, params.code_low_rows, params.ink_level).max(initial=0.0)
    return min(top, low) >= params.island_rows


def _trim_once(strip: Pixels, arc: Run, gaps: tuple[Run, ...], params: LayoutParams) -> Run:
    height, width = strip.shape[:2]
    inner = _inner_gaps(arc, gaps, width)
    island = params.island * height
    start, stop = arc.start, arc.stop
    if (
        inner
        and inner[0].start - start <= island
        and not _spans_band(strip, Run(start, inner[0].start), params)
    ):
        start = inner[0].stop
    if (
        inner
        and stop - inner[-1].stop <= island
        and not _spans_band(strip, Run(inner[-1].stop, stop), params)
    ):
        stop = inner[-1].start
    return Run(start, stop) if stop > start else arc


def without_stray_ends(
    strip: Pixels, arc: Run, gaps: tuple[Run, ...], params: LayoutParams = DEFAULT_LAYOUT
) -> Run:
    """`arc` without short islands of ink at its ends that are not rim characters."""
    for _ in range(params.max_trims):
        trimmed = _trim_once(strip, arc, gaps, params)
        if trimmed == arc:
            break
        arc = trimmed
    return arc


def rim_candidates(layout: RimLayout, height: int, params: LayoutParams = DEFAULT_LAYOUT) -> list[Candidate]:
    """Candidate readings of the rim, the geometric favourite first."""
    pad, other = round(params.pad * height), params.alternative_prior
    rim = _padded(layout.rim, pad, layout.width)
    found = [Candidate(rim, False, 1.0), Candidate(rim, True, other)]
    widest = layout.gaps[0]
    for gap in layout.gaps[1:2]:
        if layout.code is None and gap.length >= params.comparable_gap * widest.length:
            opened = _padded(Run(gap.stop, gap.start + layout.width), pad, layout.width)
            found.append(Candidate(opened, False, other))
    return found
