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
opened there. It recognises all of them and keeps the best `prior * mean confidence`.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

WHITE = 255


@dataclass(frozen=True)
class Arc:
    """Columns [start, stop) of a full-band strip of `width` columns; stop may pass width (wraps)."""

    start: int
    stop: int

    @property
    def length(self) -> int:
        """Number of columns."""
        return self.stop - self.start

    def centre(self, width: int) -> float:
        """Middle column, as a share of the perimeter."""
        return ((self.start + self.stop) / 2.0 / width) % 1.0


@dataclass(frozen=True)
class LayoutParams:
    """Thresholds for gap and code finding; lengths are in strip heights, rows in shares of it."""

    ink_level: int = 200  # gray below this counts as ink (non-ink is pure white in ink images)
    smooth: float = 0.15  # profile smoothing window
    gap_level: float = 0.02  # a column with less ink than this share is empty
    min_gap: float = 0.5
    # Rows of the strip (shares of its height) the gap profile reads: not the first ones, which
    # may graze the ring, nor the last, which may hold the tops of the inner lines.
    profile_rows: tuple[float, float] = (0.08, 0.6)
    code_top_rows: tuple[float, float] = (0.08, 0.45)  # code digits sit in the outer rows...
    code_low_rows: tuple[float, float] = (0.55, 0.8)  # ...and leave these rows (nearly) empty
    code_low_ratio: float = 0.2
    code_smooth: float = 0.4
    code_min: float = 1.5
    code_join: float = 1.0  # code runs this close together are one code
    code_max_ratio: float = 0.6  # of the rim arc's length
    comparable_gap: float = 0.7  # a second gap this wide relative to the widest is also tried
    island: float = 1.2  # ink this short beyond an end gap is cut off unless it spans the band...
    island_rows: float = 0.05  # ...with at least this share of ink in both outer and inner rows
    max_trims: int = 3
    rule_length: float = 2.0  # horizontal ink runs this long (in strip heights)...
    rule_rows: float = 0.2  # ...in the outer rows, where a stray fit lets the ring in, are not text
    pad: float = 0.15  # of the band added to each end of a candidate arc...
    blank: float = 0.25  # ...and then this much white, so no stray neighbour ink is read
    # White above and below: the recogniser drops wide-spaced characters that fill the height.
    blank_rows: float = 0.2
    alternative_prior: float = 0.97  # weight of candidates other than the favourite


DEFAULT_LAYOUT = LayoutParams()


@dataclass(frozen=True)
class RimLayout:
    """Rim and code arcs on a full-band strip, with the gaps that delimit them."""

    width: int
    rim: Arc
    code: Arc | None
    gaps: tuple[Arc, ...]  # widest first


@dataclass(frozen=True)
class Candidate:
    """One way of reading the rim: the arc, whether it is turned 180 degrees, and its prior."""

    arc: Arc
    turned: bool
    prior: float


def _smoothed(values: np.ndarray, window: int) -> np.ndarray:
    """Circular moving average."""
    window = max(1, window)
    padded = np.concatenate([values[-window:], values, values[:window]])
    return np.convolve(padded, np.ones(window) / window, mode="same")[window:-window]


def _row_share(strip: np.ndarray, rows: tuple[float, float], level: int) -> np.ndarray:
    """Share of ink per column within rows [low, high) (shares of the strip height)."""
    height = strip.shape[0]
    low = int(rows[0] * height)
    return (strip[low : max(low + 1, int(rows[1] * height))] < level).mean(axis=0)


def without_rules(strip: np.ndarray, params: LayoutParams = DEFAULT_LAYOUT) -> np.ndarray:
    """The strip with long horizontal lines whitened: where the fit strays, the border ring
    grazes the band's edge, and no rim character has a stroke that long."""
    length = max(3, round(params.rule_length * strip.shape[0]))
    ink = (strip < params.ink_level).astype(np.uint8)
    ink[round(params.rule_rows * strip.shape[0]) :] = 0
    rules = cv2.morphologyEx(ink, cv2.MORPH_OPEN, np.ones((1, length), np.uint8))
    rules = cv2.dilate(rules, np.ones((3, 3), np.uint8)) > 0
    out = strip.copy()
    out[rules] = WHITE
    return out


def angular_profile(strip: np.ndarray, params: LayoutParams = DEFAULT_LAYOUT) -> np.ndarray:
    """Share of ink per column in the outer rows of a gray full-band strip, smoothed circularly."""
    share = _row_share(strip, params.profile_rows, params.ink_level)
    return _smoothed(share, round(params.smooth * strip.shape[0]))


def code_profile(strip: np.ndarray, params: LayoutParams = DEFAULT_LAYOUT) -> np.ndarray:
    """1 where a column looks like small code digits (ink only near the ring), else 0."""
    height = strip.shape[0]
    window = round(params.code_smooth * height)
    top = _smoothed(_row_share(strip, params.code_top_rows, params.ink_level), window)
    low = _smoothed(_row_share(strip, params.code_low_rows, params.ink_level), window)
    return ((top >= params.gap_level) & (low <= params.code_low_ratio * top)).astype(np.float64)


def find_gaps(profile: np.ndarray, min_width: int, level: float) -> list[Arc]:
    """Circular runs of at least `min_width` columns below `level`, widest first."""
    empty = profile < level
    if empty.all():
        return [Arc(0, len(profile))]
    shift = int(np.argmin(empty))  # start at an ink column so no run wraps
    rolled = np.roll(empty, -shift).astype(np.int8)
    edges = np.diff(np.concatenate([[0], rolled, [0]]))
    starts, stops = np.nonzero(edges == 1)[0], np.nonzero(edges == -1)[0]
    gaps = [
        Arc((int(a) + shift) % len(profile), (int(a) + shift) % len(profile) + int(b - a))
        for a, b in zip(starts, stops, strict=True)
        if b - a >= min_width
    ]
    return sorted(gaps, key=lambda arc: arc.length, reverse=True)


def _quietest_column(profile: np.ndarray, window: int) -> int:
    """Column with the least ink over `window` columns: where to open a band with no clear gap."""
    return int(np.argmin(_smoothed(profile, window)))


def _joined(runs: list[Arc], width: int, join: int) -> list[Arc]:
    """Runs with gaps of at most `join` columns between them merged, longest first."""
    ordered = sorted(runs, key=lambda r: r.start)
    merged: list[Arc] = []
    for run in ordered:
        if merged and run.start - merged[-1].stop <= join:
            merged[-1] = Arc(merged[-1].start, run.stop)
        else:
            merged.append(run)
    if len(merged) > 1 and merged[0].start + width - merged[-1].stop <= join:
        merged[0] = Arc(merged[-1].start, merged[0].stop + width)
        merged.pop()
    return sorted(merged, key=lambda r: r.length, reverse=True)


def _code_arc(strip: np.ndarray, params: LayoutParams) -> Arc | None:
    """The code: the longest run of code-like columns, if long enough (rim characters fill
    the band's height, so they never look like code; inner-line tops only reach its bottom).
    Runs split by a faint digit or two are joined first."""
    height, width = strip.shape[:2]
    runs = find_gaps(1.0 - code_profile(strip, params), 1, 0.5)
    joined = _joined(runs, width, round(params.code_join * height))
    return joined[0] if joined and joined[0].length >= params.code_min * height else None


def _trimmed(arc: Arc, profile: np.ndarray, level: float) -> Arc:
    """`arc` without the empty columns at its ends."""
    width = len(profile)
    inked = np.nonzero(profile[np.arange(arc.start, arc.stop) % width] >= level)[0]
    return Arc(arc.start + int(inked[0]), arc.start + int(inked[-1]) + 1) if inked.size else arc


def rim_layout(strip: np.ndarray, params: LayoutParams = DEFAULT_LAYOUT) -> RimLayout:
    """Rim arc, code arc and gaps of a gray full-band strip (ink dark)."""
    height, width = strip.shape[:2]
    profile = angular_profile(strip, params)
    gaps = find_gaps(profile, max(1, round(params.min_gap * height)), params.gap_level)
    if not gaps:
        quiet = _quietest_column(profile, height)
        gaps = [Arc(quiet, quiet)]
    code = _code_arc(strip, params)
    rim = Arc(gaps[0].stop, gaps[0].start + width)
    if code is not None:
        rest = _trimmed(Arc(code.stop, code.start + width), profile, params.gap_level)
        if rest.length * params.code_max_ratio >= code.length:
            rim = rest
        else:
            code = None
    rim = without_stray_ends(strip, rim, tuple(gaps), params)
    return RimLayout(width, Arc(rim.start % width, rim.start % width + rim.length), code, tuple(gaps))


def _padded(arc: Arc, pad: int, width: int) -> Arc:
    grow = min(pad, max(0, (width - arc.length) // 2))
    return Arc(arc.start - grow, arc.stop + grow)


def _inner_gaps(arc: Arc, gaps: tuple[Arc, ...], width: int) -> list[Arc]:
    """The gaps that lie inside `arc`, in clockwise order, in the arc's column numbering."""
    inside = []
    for gap in gaps:
        start = arc.start + (gap.start - arc.start) % width
        if start > arc.start and start + gap.length < arc.stop:
            inside.append(Arc(start, start + gap.length))
    return sorted(inside, key=lambda g: g.start)


def _spans_band(strip: np.ndarray, arc: Arc, params: LayoutParams) -> bool:
    """Whether the columns of `arc` have ink both in the outer and in the inner rows."""
    piece = strip[:, np.arange(arc.start, arc.stop) % strip.shape[1]]
    top = _row_share(piece, params.code_top_rows, params.ink_level).max(initial=0.0)
    low = _row_share(piece, params.code_low_rows, params.ink_level).max(initial=0.0)
    return min(top, low) >= params.island_rows


def _trim_once(strip: np.ndarray, arc: Arc, gaps: tuple[Arc, ...], params: LayoutParams) -> Arc:
    height, width = strip.shape[:2]
    inner = _inner_gaps(arc, gaps, width)
    island = params.island * height
    start, stop = arc.start, arc.stop
    if (
        inner
        and inner[0].start - start <= island
        and not _spans_band(strip, Arc(start, inner[0].start), params)
    ):
        start = inner[0].stop
    if (
        inner
        and stop - inner[-1].stop <= island
        and not _spans_band(strip, Arc(inner[-1].stop, stop), params)
    ):
        stop = inner[-1].start
    return Arc(start, stop) if stop > start else arc


def without_stray_ends(
    strip: np.ndarray, arc: Arc, gaps: tuple[Arc, ...], params: LayoutParams = DEFAULT_LAYOUT
) -> Arc:
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
            opened = _padded(Arc(gap.stop, gap.start + layout.width), pad, layout.width)
            found.append(Candidate(opened, False, other))
    return found


def cut_arc(
    strip: np.ndarray, arc: Arc, turned: bool = False, blank: int = 0, blank_rows: int = 0
) -> np.ndarray:
    """Columns of `arc` from a full-band strip (wrapping round), framed by `blank` white columns
    and `blank_rows` white rows on each side, turned 180 degrees if asked."""
    piece = strip[:, np.arange(arc.start, arc.stop) % strip.shape[1]]
    framed = np.pad(piece, ((blank_rows, blank_rows), (blank, blank)), constant_values=WHITE)
    return np.ascontiguousarray(framed[::-1, ::-1]) if turned else framed
