"""The lines inside a seal, from the learned detector's map, boxed in the seal's upright frame.

Inner lines are the detector's components inside the fitted outline that are not mostly in
one of the seal's arcs (a component the detector merged with the rim keeps only its part
outside the rim), and the pieces as large as a line that lie outside the arcs of one that is
(a tax ID the detector merged with both ends of the rim), on the seal's ink (not black
print), boxed by their minimum-area rectangle with a margin, pieces of one line joined (print
across a tax ID breaks the detector's line in two), and ordered top line first along the
seal's up direction. An arc counts down to where its own text ends (`TextArc.text_band`).
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from imgproc.arrays import Floats, Ints, Mask, as_floats

from ..geometry import outline_offset_points, parameter_at
from ..records import SealRegion, TextArc
from .polar import DEFAULT_POLAR, PolarParams


@dataclass(frozen=True)
class LineParams:
    """Inner lines."""

    in_arc: float = 0.5  # a component this much inside the arcs is theirs, not an inner line
    rim_share: float = 0.5  # ...and holds the arcs' text where it holds this share of it:
    merged_length: float = 2.0  # its pieces outside them this long (of the rim's band) are lines
    min_line_area: float = 0.002  # of the crop, the smallest inner line
    line_pad: float = 0.25  # of a line's height, added around an inner line's box
    # Two boxes on one line (level with each other, of like height) at most this far apart (of
    # their height) are one line: print across a tax ID breaks it in two (9189296|77GD971E9FD),
    # and a supervision seal's province is two characters set wide apart (大 连). Generated
    # seeds 3000/7000/8000/17000 and the tuning part (round and oval seals found): codes 89 of
    # 279 without joining, 93 at 1.0, 96 at 2.5 and 5.0 alike; inner lines 242, 243, 246 of 433.
    join_gap: float = 3.0
    join_offset: float = 0.35  # level: centres this far apart across the line (of its height)
    join_height: float = 1.5  # like: heights within this ratio
    join_angle_deg: float = 10.0  # and their reading directions this close
    # A box shorter than this many heights has no reliable lean: level is judged along the
    # seal's level or a long piece's direction (`_on_one_line`). Against the box's own lean
    # alone: codes on seeds 3000/7000/8000/17000 16/21/20/21 -> 17/23/22/26, the tuning part
    # and its six perturbations alike.
    lean_length: float = 3.0
    # An arc's band is drawn (to tell its text from the inner lines') through this many points
    # along each edge: a polygon this fine is within a pixel of the curve on any seal.
    sector_samples: int = 90


DEFAULT_LINES = LineParams()


def _sector(region: SealRegion, arc: TextArc, samples: int) -> Ints:
    """The outline (crop pixels, int32) of the band of `arc` over its span, down to where its
    own text ends (`TextArc.text_band`)."""
    shares = arc.start + arc.span * np.linspace(0.0, 1.0, samples)
    band = arc.text_band
    edges = []
    for inset in (band.outer, band.inner):
        t = parameter_at(region, inset, shares)
        edges.append(outline_offset_points(region, t, np.full(t.shape, inset)))
    outline: Ints = np.rint(np.vstack([edges[0], edges[1][::-1]])).astype(np.int32)
    return outline


def _upright_order(box: Floats, up: Floats) -> Floats:
    """A box's corners as tl, tr, br, bl in the frame whose top is `up`."""
    right = np.array([-up[1], up[0]])
    high = np.argsort(-(box @ up))
    top, bottom = (
        sorted(high[:2], key=lambda i: box[i] @ right),
        sorted(high[2:], key=lambda i: box[i] @ right),
    )
    return box[[top[0], top[1], bottom[1], bottom[0]]].astype(np.float32)


def _line_quad(points: Ints, up: Floats, params: LineParams) -> Floats:
    """A padded minimum-area box around a line's pixels, corners in reading order."""
    (cx, cy), (width, height), angle = cv2.minAreaRect(points.astype(np.float32))
    grow = 2.0 * params.line_pad * min(width, height)
    return _upright_order(as_floats(cv2.boxPoints(((cx, cy), (width + grow, height + grow), angle))), up)


Frame = tuple[Floats, Floats, float]  # a box's centre, reading direction, height


def _frame(quad: Floats) -> Frame:
    """A box's centre, unit reading direction and height (corners tl, tr, br, bl)."""
    along = quad[1] - quad[0]
    axis = along / max(float(np.linalg.norm(along)), 1e-9)
    return quad.mean(axis=0), axis, float(np.linalg.norm(quad[3] - quad[0]))


def _long(quad: Floats, height: float, params: LineParams) -> bool:
    """Whether a box is long enough for its lean to be its line's: a short piece's box leans
    as its blob does (the stub 9150878 of a tax ID broken by a table rule leans 11 degrees)."""
    return float(np.linalg.norm(quad[1] - quad[0])) >= params.lean_length * height


def _level_along(
    axis: Floats, quads: tuple[Floats, Floats], frames: tuple[Frame, Frame], params: LineParams
) -> bool:
    """Whether the two boxes lie level with each other along `axis` and close along it."""
    (centre, _, height), (other, _, other_height) = frames
    low = min(height, other_height)
    normal = np.array([-axis[1], axis[0]])
    if abs(float((other - centre) @ normal)) > params.join_offset * low:
        return False
    spans = [sorted(float((corner - centre) @ axis) for corner in quad) for quad in quads]
    gap = max(spans[0][0], spans[1][0]) - min(spans[0][-1], spans[1][-1])
    return gap <= params.join_gap * low


def _on_one_line(first: Floats, second: Floats, up: Floats, params: LineParams) -> bool:
    """Whether two boxes are pieces of one line: of like height, long ones read the same way,
    and level and close along the seal's level (inner lines are level in its upright frame)
    or along a long piece's own direction (where the seal's up is a few degrees off)."""
    quads = (first, second)
    frames = (_frame(first), _frame(second))
    low, high = sorted(height for _, _, height in frames)
    if low <= 0 or high > params.join_height * low:
        return False
    pairs = zip(quads, frames, strict=True)
    axes = [axis for quad, (_, axis, height) in pairs if _long(quad, height, params)]
    if len(axes) == 2 and float(axes[0] @ axes[1]) < np.cos(np.deg2rad(params.join_angle_deg)):
        return False
    level = np.array([-up[1], up[0]])
    return any(_level_along(axis, quads, frames, params) for axis in (level, *axes))


def _pair_on_one_line(quads: list[Floats], up: Floats, params: LineParams) -> tuple[int, int] | None:
    for i, first in enumerate(quads):
        for j in range(i + 1, len(quads)):
            if _on_one_line(first, quads[j], up, params):
                return i, j
    return None


def joined_lines(quads: list[Floats], up: Floats, params: LineParams) -> list[Floats]:
    """The boxes with the pieces of each line joined into one box (tl, tr, br, bl along `up`)."""
    quads = list(quads)
    while (pair := _pair_on_one_line(quads, up, params)) is not None:
        i, j = pair
        corners = np.vstack([quads[i], quads.pop(j)]).astype(np.float32)
        quads[i] = _upright_order(as_floats(cv2.boxPoints(cv2.minAreaRect(corners))), up)
    return quads


def _pieces_outside(cells: Mask, min_area: float, min_length: float) -> list[Mask]:
    """The connected pieces of `cells` of at least `min_area` pixels and `min_length` long."""
    count, labels, stats, _ = cv2.connectedComponentsWithStats(cells.astype(np.uint8), connectivity=8)
    found = []
    for i in range(1, count):
        if stats[i, cv2.CC_STAT_AREA] < min_area:
            continue
        piece = labels == i
        _, size, _ = cv2.minAreaRect(np.argwhere(piece).astype(np.float32))
        if max(size) >= min_length:
            found.append(piece)
    return found


def inner_quads(
    prob: Floats,
    ink: Mask,
    region: SealRegion,
    arcs: tuple[TextArc, ...],
    up: Floats,
    params: LineParams = DEFAULT_LINES,
    polar: PolarParams = DEFAULT_POLAR,
) -> tuple[Floats, ...]:
    """Quads of the text lines inside the seal and on its ink, not in its arcs (the first is the
    rim: a line merged with it keeps only its part outside the rim), top line first."""
    inside = np.zeros(prob.shape, np.uint8)
    cv2.ellipse(
        inside, (region.center, (2.0 * region.axes[0], 2.0 * region.axes[1]), region.angle_deg), (1,), -1
    )
    in_arcs, in_rim = np.zeros(prob.shape, np.uint8), np.zeros(prob.shape, np.uint8)
    cv2.fillPoly(in_arcs, [_sector(region, arc, params.sector_samples) for arc in arcs], (1,))
    cv2.fillPoly(in_rim, [_sector(region, arcs[0], params.sector_samples)], (1,))
    text = (prob > polar.threshold) & (inside > 0)
    count, labels, stats, _ = cv2.connectedComponentsWithStats(text.astype(np.uint8), connectivity=8)
    quads: list[Floats] = []
    min_area = params.min_line_area * prob.size
    min_length = params.merged_length * arcs[0].text_band.height
    arc_text = int(np.count_nonzero((labels > 0) & (in_arcs > 0)))
    for i in range(1, count):
        if stats[i, cv2.CC_STAT_AREA] < min_area:
            continue
        cells = labels == i
        in_arc = int(np.count_nonzero(cells & (in_arcs > 0)))
        if in_arc < params.in_arc * stats[i, cv2.CC_STAT_AREA]:
            lines = [cells & (in_rim == 0)]
        elif in_arc >= params.rim_share * arc_text:
            # The arcs' own text, merged with a line inside (a tax ID level with the rim's
            # ends): the pieces outside the arcs as large as a line are lines. A piece mostly
            # in an arc that is not its text is left (part of a line an arc's sector covers).
            lines = _pieces_outside(cells & (in_arcs == 0), min_area, min_length)
        else:
            continue
        for line in lines:
            if line.any() and ink[line].mean() >= polar.min_ink:
                quads.append(_line_quad(np.argwhere(line)[:, ::-1], up, params))
    quads = joined_lines(quads, up, params)
    return tuple(sorted(quads, key=lambda quad: -float(quad.mean(axis=0) @ up)))
