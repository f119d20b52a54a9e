"""Where lines lie on the page relative to each other and to the seals: a label's value beside
or under it, a role column at the left of a form's rows, a name near a seal or in the page's
head or foot. Boxes are (x0, y0, x1, y1) in page pixels, exclusive ends."""

from __future__ import annotations

from collections.abc import Sequence

from imgproc.text.lines import TextLine

from ..records import Box
from .params import DEFAULT_PARTIES, PartiesParams


def height(box: Box) -> int:
    """A box's height, at least a pixel."""
    return max(box[3] - box[1], 1)


def row_overlap(a: Box, b: Box) -> float:
    """The share of the shorter box's height that the two share (0: not one row)."""
    shared = min(a[3], b[3]) - max(a[1], b[1])
    return max(shared, 0) / min(height(a), height(b))


def on_its_row(label: Box, line: Box, params: PartiesParams = DEFAULT_PARTIES) -> float | None:
    """How far right of `label` `line` starts, where it is on the label's row within reach
    (None where it is not)."""
    gap = line[0] - label[2]
    reach = params.beside_gap * height(label)
    if row_overlap(label, line) < params.same_row or not -height(label) <= gap <= reach:
        return None
    return float(gap)


def under(label: Box, line: Box, params: PartiesParams = DEFAULT_PARTIES) -> float | None:
    """How far under `label` `line` starts, where it lies in the label's column within reach
    (None where it does not)."""
    gap = line[1] - label[3]
    overlaps = min(label[2], line[2]) > max(label[0], line[0])
    if not overlaps or not -height(label) / 2 <= gap <= params.below_rows * height(label):
        return None
    return float(gap)


def value_line(
    index: int, lines: Sequence[TextLine], taken: set[int], params: PartiesParams = DEFAULT_PARTIES
) -> int | None:
    """The line holding the value of the label on line `index`: the nearest beside it on its
    row, else the nearest under it; lines in `taken` (labels themselves) are none."""
    label = lines[index].box
    for where in (on_its_row, under):
        found = [
            (distance, i)
            for i, line in enumerate(lines)
            if i != index and i not in taken and (distance := where(label, line.box, params)) is not None
        ]
        if found:
            return min(found)[1]
    return None


def left_of_row(box: Box, column: Box) -> bool:
    """Whether `column` (a role label, often printed downwards at a form block's left) lies
    left of `box` and spans some of its row."""
    return column[2] <= box[0] + height(box) and min(box[3], column[3]) > max(box[1], column[1])


def gap(a: Box, b: Box) -> float:
    """The distance between two boxes (0 where they overlap)."""
    dx = max(a[0] - b[2], b[0] - a[2], 0)
    dy = max(a[1] - b[3], b[1] - a[3], 0)
    return float((dx * dx + dy * dy) ** 0.5)


def near_seal(box: Box, seals: Sequence[Box], params: PartiesParams = DEFAULT_PARTIES) -> bool:
    """Whether a line lies within `near_seal` of a seal's diameter of any seal."""
    return any(
        gap(box, seal) <= params.near_seal * max(seal[2] - seal[0], seal[3] - seal[1]) for seal in seals
    )


def under_seal(box: Box, seals: Sequence[Box]) -> bool:
    """Whether a line lies under a seal (the boxes overlap): the issuer's name a seal is
    stamped over."""
    return any(gap(box, seal) == 0 for seal in seals)


def _radial(box: Box, seal: Box) -> float:
    """How far a line's centre lies from a seal's centre, as a share of the seal's semi-axes
    (1 on the ellipse its box holds)."""
    cx, cy = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
    sx, sy = (seal[0] + seal[2]) / 2, (seal[1] + seal[3]) / 2
    ax, ay = max((seal[2] - seal[0]) / 2, 1), max((seal[3] - seal[1]) / 2, 1)
    return float((((cx - sx) / ax) ** 2 + ((cy - sy) / ay) ** 2) ** 0.5)


def centred_in(box: Box, seal: Box) -> bool:
    """Whether a line's centre lies inside a seal (on or within the ellipse its box holds)."""
    return _radial(box, seal) <= 1


def within(box: Box, seal: Box, margin: float) -> bool:
    """Whether a box lies inside a seal's box grown by `margin` of its size on every side."""
    dx, dy = margin * (seal[2] - seal[0]), margin * (seal[3] - seal[1])
    across = seal[0] - dx <= box[0] and box[2] <= seal[2] + dx
    return across and seal[1] - dy <= box[1] and box[3] <= seal[3] + dy


def on_seal_ring(box: Box, seals: Sequence[Box], params: PartiesParams = DEFAULT_PARTIES) -> bool:
    """Whether a line lies on a seal's ring: inside the seal, its centre outside its core.
    There the page's reader reads the seal's own rim (what ink is left of it), while a name
    the seal is stamped over runs through the seal's middle, or out of the seal's box (a
    name wider than its seal, or printed beside its centre: 校名：上海交通大学)."""
    return any(
        params.ring_core < _radial(box, seal) <= 1 and within(box, seal, params.ring_margin) for seal in seals
    )


def in_head(box: Box, page_height: int, params: PartiesParams = DEFAULT_PARTIES) -> bool:
    """Whether a line lies in the page's head (where its title is printed)."""
    return box[3] <= params.head_share * page_height


def head_or_foot(box: Box, page_height: int, params: PartiesParams = DEFAULT_PARTIES) -> bool:
    """Whether a line lies in the page's head or foot."""
    return in_head(box, page_height, params) or box[1] >= (1 - params.foot_share) * page_height


def split_at_seals(
    line: TextLine, seals: Sequence[Box], endings: Sequence[str], reach: int
) -> list[TextLine]:
    """A line printed under two or more seals side by side, cut into the piece under each: the
    page's reader reads names printed side by side under their seals as one line (山东省发辰·
    文革委员会山东省工印信息化厅...). It is cut between the seals' centres, its characters taken
    as evenly spaced, at the end of an organisation's name (`endings`) within `reach`
    characters of there where there is one (a misread part of a line is read shorter or
    longer than it is printed). Any other line, whole."""
    x0, y0, x1, y1 = line.box
    over = sorted((seal[0] + seal[2]) / 2 for seal in seals if gap(line.box, seal) == 0)
    if len(over) < 2 or x1 - x0 <= y1 - y0:  # under one seal, or printed downwards
        return [line]
    text = line.text
    spans = [(i, i + len(word)) for word in endings for i in range(len(text)) if text.startswith(word, i)]
    # where a name's last word ends, not inside a longer one (委 of 委员会)
    name_ends = [end for _, end in spans if not any(a < end < b for a, b in spans)]
    cuts = []
    for x in ((a + b) / 2 for a, b in zip(over, over[1:], strict=False)):
        if x0 < x < x1:
            even = round(len(text) * (x - x0) / (x1 - x0))
            cuts.append(min(name_ends, key=lambda i: abs(i - even)) if name_ends else even)
            if abs(cuts[-1] - even) > reach:
                cuts[-1] = even
    ends = sorted({0, *cuts, len(text)})
    width = (x1 - x0) / max(len(text), 1)
    return [
        TextLine(text[a:b], line.score, (x0 + round(a * width), y0, x0 + round(b * width), y1))
        for a, b in zip(ends, ends[1:], strict=False)
        if b > a
    ]


def _continues(a: Box, b: Box, params: PartiesParams) -> bool:
    """Whether a piece at `b` goes on from one at `a` on its row: right of it, at most
    `join_gap` of its heights away."""
    beside = -height(a) / 2 <= b[0] - a[2] <= params.join_gap * height(a)
    return row_overlap(a, b) >= params.same_row and beside


def _goes_under(a: Box, b: Box, params: PartiesParams) -> bool:
    """Whether a line at `b` goes on from one at `a` on the next line: under it across the
    same columns, at most `join_rows` of its heights under it, in the same size (a name set on
    two lines)."""
    across = min(a[2], b[2]) - max(a[0], b[0])
    narrower = min(a[2] - a[0], b[2] - b[0])
    alike = max(height(a), height(b)) <= params.join_heights * min(height(a), height(b))
    close = -height(a) / 4 <= b[1] - a[3] <= params.join_rows * height(a)
    return alike and close and across >= narrower / 2


def one_after_other(a: Box, b: Box, params: PartiesParams = DEFAULT_PARTIES) -> bool:
    """Whether a line at `b` goes on from one at `a`: beside it on its row (`_continues`) or
    on the line under it (`_goes_under`)."""
    return _continues(a, b, params) or _goes_under(a, b, params)


def around(a: Box, b: Box) -> Box:
    """The box around two boxes."""
    return (min(a[0], b[0]), min(a[1], b[1]), max(a[2], b[2]), max(a[3], b[3]))


def downwards(line: TextLine) -> bool:
    """Whether a line of two characters or more is printed downwards (taller than wide)."""
    return len(line.text) > 1 and height(line.box) > line.box[2] - line.box[0]


def _joined(a: TextLine, b: TextLine) -> TextLine:
    """Two pieces as one line: their texts in order, their characters' mean confidence, the box
    around both."""
    chars = max(len(a.text) + len(b.text), 1)
    score = (a.score * len(a.text) + b.score * len(b.text)) / chars
    return TextLine(a.text + b.text, score, around(a.box, b.box))


def join_under_seals(
    lines: Sequence[TextLine],
    seals: Sequence[Box],
    endings: Sequence[str],
    stops: str,
    params: PartiesParams = DEFAULT_PARTIES,
) -> list[TextLine]:
    """Pieces of one name printed under a seal, joined: the page's reader breaks the name a
    seal is stamped over where the ink lay (重庆 | 区总 | 会 for 重庆市綦江区总工会; 中华心 |
    教育部 for 中华人民共和国教育部, the middle lost under the seal's star), and a name set on
    two lines under its seal is one name (上海市大学生节能减排 over 社会实践与科技竞赛委员会).
    A piece is joined to the next right of it on its row (`_continues`) or on the line under
    it (`_goes_under`) where both lie under one seal, and to the next on its row where one
    lies under a seal and the other under none (a name running out of its seal; two names side
    by side under two seals stay two); neither printed downwards (a page turned on its side is
    read in pieces that are no rows) nor on a seal's ring (the seal's own rim
    as the page's reader reads it: `on_seal_ring`), and the first does not already end an
    organisation's name (`endings`: 重庆市綦江区应急管理局 beside 重庆市綦江区教育委员会 are
    two names) and the next does not start with one of `stops` (a date under the name). Lines
    under no seal, the page's other lines, stay as read (only lines near a seal are tried)."""
    kept: list[TextLine | None] = list(lines)
    near = [i for i, line in enumerate(lines) if near_seal(line.box, seals, params)]
    joined = True
    while joined:  # a pass joins what it can; a joined line may join again in the next
        joined = False
        for i in near:
            for j in near:
                a, b = kept[i], kept[j]
                if a is None or b is None or i == j or not _in_reach(a.box, b.box, params):
                    continue
                if _may_join(a, b, seals, endings, stops, params):
                    kept[min(i, j)], kept[max(i, j)] = _joined(a, b), None
                    joined = True
    return [line for line in kept if line is not None]


def _in_reach(a: Box, b: Box, params: PartiesParams) -> bool:
    """Whether a line at `b` lies within the rows where it may go on from one at `a`: implied
    by `_continues` and by `_goes_under`, and cheap, so a transcript's hundreds of cells near
    its seal are passed over at once (on the tuning part's 371-line transcript, 7 ms for the
    whole join, not 80)."""
    return a[1] <= b[3] and b[1] <= a[3] + params.join_rows * height(a)


def _may_join(
    a: TextLine, b: TextLine, seals: Sequence[Box], endings: Sequence[str], stops: str, params: PartiesParams
) -> bool:
    """Whether `b` goes on from `a` as a piece of one name under a seal (`join_under_seals`)."""
    if not a.text or not b.text or a.text.endswith(tuple(endings)) or b.text.startswith(tuple(stops)):
        return False
    beside, below = _continues(a.box, b.box, params), _goes_under(a.box, b.box, params)
    if not (beside or below):  # most pairs: the cheap test first
        return False
    if any(downwards(line) or on_seal_ring(line.box, seals, params) for line in (a, b)):
        return False
    over_a = {k for k, seal in enumerate(seals) if gap(a.box, seal) == 0}
    over_b = {k for k, seal in enumerate(seals) if gap(b.box, seal) == 0}
    if over_a & over_b:
        return True
    return bool(over_a) != bool(over_b) and beside
