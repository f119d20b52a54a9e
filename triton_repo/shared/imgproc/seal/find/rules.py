"""Printed rules in a red-ink mask: long, thin, straight lines, nearly horizontal or vertical,
or, on a page photographed askew, nearly so once the page is turned back.

Invoice forms are printed in a red-brown the ink mask cannot always tell from a seal's red,
and their table rules run through the seals stamped on them; closing the mask then joins a
seal to the whole table, and no shape fits the blob. A seal has no straight stretch anywhere
near as long as a rule across the page, so rules are sought as long runs: the mask is shrunk
(a slightly skewed thin line becomes a straight band a few pixels high), grown across the
line's direction by the skew allowed, and opened with a long line. A run is a rule when its
middle line is straight (the flat side of a ring that fills the image is not; a double rule
is) and it is thin (a line of big title characters is not); the rule is then drawn back at
the mask's own size as just that line, as thick as its ink, so that a seal it crosses loses
only the line's width, which closing bridges again. A page with no level rule is searched
again turned a few degrees either way, on a canvas that holds it all; the page's own border,
where a ring cut by it is straight, is then off the searched directions. `blobs` cuts the
rules out of a blob no shape fits.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from imgproc.arrays import Floats, Ints, Mask, as_pixels

from ..geometry import turn_matrix

Segment = tuple[tuple[int, int], tuple[int, int], int]  # end, end, thickness (px)


@dataclass(frozen=True)
class RuleParams:
    """Long-line detection in the working-size red mask."""

    # A rule is at least this share of the mask's long side. Seals on a page are a few tenths
    # of it at most; a seal photographed to fill the image is round, without straight stretches.
    min_length: float = 0.3
    min_length_px: int = 120  # ...and at least this long (on a small image a ring's side is not)
    shrink: int = 4  # the mask is searched this many times smaller (a skewed line looks straight)
    # Rows (columns) a line may drift across its length at the small scale: 3 in 80 is ~2 degrees.
    skew_px: int = 3
    # A run is a rule when this share of its middle line (the centres of its ink across it) lies
    # within `straightness_px` (small scale) of one straight line: a rule, single or double, is
    # straight even in a photo, while a big ring's flattest arc bends away.
    straight_percentile: float = 75.0
    straightness_px: float = 1.5
    fit_points: int = 400  # a line is fitted on at most this many of its pixels (evenly spread)
    border_px: int = 3  # at the small scale: the image's border strip, where no rule is sought
    # At the mask's size a rule is the rows along its line inked over this share of its length (text
    # touching it inks a row only here and there), drawn this much wider on each side.
    row_fill: float = 0.5
    edge_px: int = 1
    # ...and a rule is at most this share of the long side wide: a line of big title characters
    # shrinks to a straight bar too, but is much thicker than any printed rule.
    max_width: float = 0.012
    # A page without level rules may be turned: they are then sought this many degrees off
    # level. Each search allows `skew_px` of drift (about 2 degrees), so steps of 4 cover a
    # page up to 10 off.
    turns: tuple[float, ...] = (-4.0, 4.0, -8.0, 8.0)
    # ...where a rule must be at least this long: the straight strokes of a seal's own lines,
    # on a small image, pass for rules at some turn; a turned form's rules are far longer.
    turned_min_length_px: int = 240


DEFAULT_RULES = RuleParams()


def _shrunk(mask: Mask, factor: int) -> Mask:
    """The mask `factor` times smaller, a pixel set where any pixel it covers was."""
    size = (max(1, mask.shape[1] // factor), max(1, mask.shape[0] // factor))
    return as_pixels(cv2.resize(mask.astype(np.uint8) * 255, size, interpolation=cv2.INTER_AREA)) > 0


def _long_runs(small: Mask, length: int, across: int, horizontal: bool) -> Mask:
    """Pixels on straight runs of at least `length` along one axis, allowing `across` of drift."""
    grow = (1, across) if horizontal else (across, 1)  # OpenCV kernel sizes are (width, height)
    line = (length, 1) if horizontal else (1, length)
    banded = cv2.dilate(small.astype(np.uint8), np.ones(grow[::-1], np.uint8))
    return as_pixels(cv2.morphologyEx(banded, cv2.MORPH_OPEN, np.ones(line[::-1], np.uint8))) > 0


def _line(points: Ints | Floats, params: RuleParams) -> tuple[Floats, Floats, Floats]:
    """A robust line through (x, y) points, fitted on a spread sample of at most `fit_points`:
    its direction, a point on it, and each point's signed distance from it."""
    step = max(1, len(points) // params.fit_points)
    sample = points[::step].astype(np.float32)
    vx, vy, x0, y0 = cv2.fitLine(sample, cv2.DIST_HUBER, 0, 0.01, 0.01).ravel()
    off = (points[:, 0] - x0) * vy - (points[:, 1] - y0) * vx
    return np.array([vx, vy]), np.array([x0, y0]), off


def _segment(points: Ints, params: RuleParams) -> Segment | None:
    """The rule through these ink points of the mask: the rows along the fitted line that are
    inked over `row_fill` of its length (text touching a rule inks a row only here and there),
    or None when no row is."""
    direction, origin, off = _line(points, params)
    along = (points - origin) @ direction
    rows = np.rint(off).astype(int)
    counts = np.bincount(rows - rows.min())
    inked = np.nonzero(counts >= params.row_fill * (np.ptp(along) + 1.0))[0] + rows.min()
    if not len(inked):
        return None
    normal = np.array([direction[1], -direction[0]])  # the direction signed distances run along
    middle = origin + normal * (inked.min() + inked.max()) / 2.0
    (x0, y0), (x1, y1) = (np.rint(middle + direction * t).astype(int) for t in (along.min(), along.max()))
    width = int(inked.max() - inked.min()) + 1 + 2 * params.edge_px
    return (int(x0), int(y0)), (int(x1), int(y1)), width


def _straight(component: Mask, small: Mask, horizontal: bool, params: RuleParams) -> bool:
    """Whether a run's middle line (small scale) is straight: most of the centres of its ink
    across the run, one per step along it, lie within `straightness_px` of one line. Centres,
    not the ink itself, so a double rule (two lines a few pixels apart, as under an invoice's
    title) counts as straight as a single one, while a ring's flattest arc still bends away."""
    ink = component & small
    if not horizontal:
        ink = ink.T
    steps = np.nonzero(ink.any(axis=0))[0]
    if len(steps) < 2:
        return False
    rows = np.arange(ink.shape[0], dtype=np.float64)[:, None]
    centres = (ink[:, steps] * rows).sum(axis=0) / ink[:, steps].sum(axis=0)
    off = _line(np.stack([steps, centres], axis=1), params)[2]
    return float(np.percentile(np.abs(off), params.straight_percentile)) <= params.straightness_px


def _rules_in(small: Mask, runs: Mask, mask: Mask, horizontal: bool, params: RuleParams) -> list[Segment]:
    """The straight runs among `runs` (small scale), as segments of `mask`'s ink at its own size."""
    count, labels, boxes, _ = cv2.connectedComponentsWithStats(runs.astype(np.uint8))
    found = []
    for label in range(1, count):
        x, y, w, h = (int(v) for v in boxes[label, :4])
        component = labels[y : y + h, x : x + w] == label
        if not _straight(component, small[y : y + h, x : x + w], horizontal, params):
            continue
        f = params.shrink
        window = mask[y * f : (y + h) * f, x * f : (x + w) * f]
        grown = np.repeat(np.repeat(component, f, axis=0), f, axis=1)[: window.shape[0], : window.shape[1]]
        ys, xs = np.nonzero(grown & window)
        segment = _segment(np.stack([xs + x * f, ys + y * f], axis=1), params) if len(xs) >= 2 else None
        if segment is not None and segment[2] <= params.max_width * max(mask.shape):
            found.append(segment)
    return found


def _segments(mask: Mask, params: RuleParams, min_px: int) -> list[Segment]:
    """The rules of `mask` (at least `params.min_length` of its long side and `min_px` long)
    that run nearly along its rows or its columns."""
    small = _shrunk(mask, params.shrink)
    # Along the image border a ring cut by it is as straight as the border: no rule is sought there.
    edge = params.border_px
    small[:edge], small[-edge:], small[:, :edge], small[:, -edge:] = False, False, False, False
    length = max(min_px // params.shrink, round(params.min_length * max(small.shape)))
    found = []
    for horizontal in (True, False):
        runs = _long_runs(small, length, params.skew_px, horizontal)
        found += _rules_in(small, runs, mask, horizontal, params) if runs.any() else []
    return found


def _turned_segments(mask: Mask, degrees: float, params: RuleParams) -> list[Segment]:
    """The rules of `mask` that run nearly `degrees` off its rows or columns: sought in the
    mask turned back by that much, on a canvas that holds it all, and turned again."""
    turn, size = turn_matrix((mask.shape[1], mask.shape[0]), degrees)
    turned = as_pixels(cv2.warpAffine(mask.astype(np.uint8), turn, size, flags=cv2.INTER_NEAREST)) > 0
    back = cv2.invertAffineTransform(turn)
    segments = []
    for end0, end1, thickness in _segments(turned, params, params.turned_min_length_px):
        (x0, y0), (x1, y1) = (back @ np.array([x, y, 1.0]) for x, y in (end0, end1))
        segments.append(((round(x0), round(y0)), (round(x1), round(y1)), thickness))
    return segments


def _total_length(segments: list[Segment]) -> float:
    return float(sum(np.hypot(b[0] - a[0], b[1] - a[1]) for a, b, _ in segments))


def rule_pixels(mask: Mask, params: RuleParams = DEFAULT_RULES) -> Mask:
    """Boolean mask of the pixels of `mask` that lie on long, straight, thin printed rules:
    level ones, or on a page without any, those of the one turn in `params.turns` along which
    the most rule length runs (a page photographed askew is askew as a whole; two searches that
    both catch the same skewed rule would cut it twice, a little apart)."""
    found = _segments(mask, params, params.min_length_px)
    if not found:
        found = max((_turned_segments(mask, d, params) for d in params.turns), key=_total_length, default=[])
    drawn = np.zeros(mask.shape, np.uint8)
    for end0, end1, thickness in found:
        cv2.line(drawn, end0, end1, (1,), thickness)
    return (drawn > 0) & mask
