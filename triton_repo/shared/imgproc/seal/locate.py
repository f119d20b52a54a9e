"""Where a seal's text is, from the learned detector's map: the rim, the arcs in its gap and
the lines inside.

The map (see `detect`) is read in the seal's own polar frame: unwrapped around the fitted
outline (`unwrap.unwrap_band`: rows are insets from just outside the ring to deep inside,
columns run clockwise at equal arc length) it falls apart into pieces of text. Pieces with
little seal ink under them are other print (the detector marks black text as well) and are
dropped. The rim is in the outermost band of text rows; a piece is a rim piece when it fills
that band, a code when it keeps to its outer rows (bottom-arc digits are small and sit by the
ring), an inner line when it lies deeper. The rim pieces are cut into arcs at the widest gap
between them, or, where a second gap is nearly as wide, into the two arcs between the two
(the lower line of an invoice supervision seal 监制章, any bottom text); the rim is the
longest arc, favouring the one nearer the page's top since documents are stamped roughly
upright. The other arcs and the codes are read turned (tops inward). Known failure modes
and their answers: a piece merging the rim with an inner line still fills the band (only
the band's rows are read, and the line is told from the rim where the rim's text ends in the
other columns, `TextArc.text_inner`); a map with no gap at all is opened at its emptiest
column; the detector's tight polygons clip end characters, so arcs are padded by part of a
character.
Inner lines are the detector's pieces inside the outline that are not mostly in an arc
(`inner_quads`), boxed in the seal's upright frame.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from .lines import DEFAULT_LINES, LineParams, inner_quads
from .polar import (
    DEFAULT_POLAR,
    Piece,
    Polar,
    PolarParams,
    Run,
    circular_runs,
    pieces,
    polar_maps,
    union,
)
from .shapes import TWO_PI, SealRegion, rotation
from .unwrap import Band, TextArc, arc_length, estimate_band, parameter_at, share_at


@dataclass(frozen=True)
class LocateParams:
    """How the detector's map is read; lengths are shares of the short semi-axis `b` unless said."""

    polar: PolarParams = DEFAULT_POLAR
    lines: LineParams = DEFAULT_LINES
    rim_depth: float = 0.55  # the rim band starts no deeper than this
    min_rim_rows: float = 0.08  # the rim band's fullest row has text in this share of columns
    band_share: float = 0.5  # rows with this share of the fullest row's text are the band
    ring_side: float = 0.35  # a piece whose median top lies this far into the band starts by the ring...
    fills_band: float = 0.65  # ...and fills the band if its median bottom reaches this far (else: a code)
    hole: float = 0.15  # breaks in the rim's columns this short (in band heights) are strokes
    comparable_gap: float = 0.5  # a second gap this wide against the widest splits off an arc...
    min_split: float = 0.3  # ...when it is also this long (in band heights)
    mirror_tolerance: float = 0.06  # of the perimeter: how far an oval's split gaps may be from mirroring
    min_arc_share: float = 0.1  # of the perimeter: the shorter of two split arcs is at least this long
    code_join: float = 1.0  # code pieces this close (in band heights) are one code
    min_arc: float = 0.8  # other arcs shorter than this many band heights are stray marks
    page_up_weight: float = 0.3  # an arc's length counts (1 + this * cos(angle from page up))
    edge_percentile: float = 10.0  # the band's outer and inner edges, robust to stray rows
    radial_pad: float = 0.12  # of the band height, added outside and inside
    # The rim's own text ends (`TextArc.text_inner`) where it does in the columns whose text
    # ends near the band, where at least this share of them do (a line merged with the rim
    # fills the others down). Tuning part, its six perturbations and seeds 3000/7000/8000/17000:
    # with `LineParams.rim_share`, inner lines +1 to +4 and codes +0 to +6 on each, rims alike.
    min_ended: float = 0.3
    end_reach: float = 1.0  # an arc grows over text next to its ends by at most this (band heights)...
    gap_room: float = 0.4  # ...and, padded too, by at most this share of the gap it leaves
    angular_pad: float = 0.5  # of a character (a band height), added at both ends
    # A rim band deeper than this (the detector merged the rim with print across the seal, as
    # on a phone photo) ends where the seal's own ink says its text ends (`unwrap.estimate_band`).
    # Real tuning rims measure 0.28-0.65 of b, padding included.
    max_rim_band: float = 0.7
    min_rim_band: float = 0.12  # ...unless that leaves less than this: the ink profile failed too


DEFAULT_LOCATE = LocateParams()


@dataclass(frozen=True)
class SealText:
    """Where one seal's text is: the rim, the other arcs, the inner lines (quads, crop pixels,
    corners tl, tr, br, bl in the seal's upright frame) and the seal's up direction."""

    rim: TextArc
    arcs: tuple[TextArc, ...]
    inner: tuple[np.ndarray, ...]
    up: np.ndarray


def _band_rows(found: list[Piece], polar: Polar, b: float, params: LocateParams) -> Run | None:
    """Rows [top, bottom) of the outermost band of text: the rim's, or None without one."""
    if not found:
        return None
    profile = np.logical_or.reduce([piece.cells for piece in found]).mean(axis=1)
    deepest = max(polar.row(params.rim_depth * b), 1)
    peak = float(profile[:deepest].max())
    if peak < params.min_rim_rows:
        return None
    full = profile >= params.band_share * peak
    top = int(np.argmax(full))
    bottom = top
    while bottom < len(full) and full[bottom]:
        bottom += 1
    return top, bottom


def _column_kinds(cells: np.ndarray, rows: Run, params: LocateParams) -> tuple[np.ndarray, np.ndarray]:
    """Which columns hold rim text and which a code.

    A rim column's text starts by the ring side of the band and fills it; a code column's
    starts there too but stops short (small digits by the ring); text that starts deeper is
    an inner line, even where the detector merged it with the rim (a straight line low in a
    round seal bends up into the band at its ends, like a smile).
    """
    top, bottom = rows
    height = bottom - top
    low = max(0, top - max(1, height // 2))
    window = cells[low:bottom]
    has = window.any(axis=0)
    first = window.argmax(axis=0) + low
    depth = _filled_to(window, first - low) + low
    starts = has & (first <= top + params.ring_side * height)
    rim = starts & (depth >= top + params.fills_band * height)
    return rim, starts & ~rim


def _filled_to(window: np.ndarray, first: np.ndarray) -> np.ndarray:
    """Per column, the row (of `window`) just past the run of text that starts at `first`."""
    rows = np.arange(window.shape[0])[:, None]
    gap = (~window) & (rows > first[None, :])
    return np.where(gap.any(axis=0), gap.argmax(axis=0), window.shape[0])


def _page_up_share(region: SealRegion, inset: float) -> float:
    """Perimeter share (at `inset`) of the direction of the page's top from the centre."""
    local = np.array([0.0, -1.0]) @ rotation(region.angle_deg)  # into the seal frame
    t = np.arctan2(local[1] / region.axes[1], local[0] / region.axes[0])
    return float(share_at(region, inset, np.array([t]))[0])


def _weight(run: Run, cols: int, up_share: float, params: LocateParams) -> float:
    """An arc's claim to be the rim: its length, more for arcs nearer the page's top."""
    centre = (run[0] + run[1]) / 2.0 / cols
    return (run[1] - run[0]) * (1.0 + params.page_up_weight * np.cos(TWO_PI * (centre - up_share)))


def _opened(run: Run, share: np.ndarray, window: int) -> Run:
    """A run round the whole ring, opened at its emptiest column (smoothed over `window`)."""
    cols = len(share)
    if run[1] - run[0] < cols:
        return run
    padded = np.concatenate([share[-window:], share, share[:window]])
    smooth = np.convolve(padded, np.ones(window) / window, mode="same")[window:-window]
    cut = int(np.argmin(smooth))
    return cut + 1, cut + cols


def _width(run: Run) -> int:
    return run[1] - run[0]


def _circular_distance(a: float, b: float, cols: int) -> float:
    return abs((a - b + cols / 2.0) % cols - cols / 2.0)


def _mirrored(first: Run, second: Run, axis: float | None, cols: int, params: LocateParams) -> bool:
    """Whether two gaps mirror each other about an oval's short axis (always, for round seals,
    whose axes say nothing): an oval's rim and lower line are centred on that axis, while
    gaps that print over the rim cuts are anywhere."""
    if axis is None:
        return True
    centres = ((first[0] + first[1]) / 2.0, (second[0] + second[1]) / 2.0)
    return _circular_distance(2.0 * axis - centres[0], centres[1], cols) <= params.mirror_tolerance * cols


def _split(first: Run, second: Run, cols: int) -> list[Run]:
    a, b = sorted([first, second])
    return [(a[1], b[0]), (b[1], a[0] + cols)]


def _sides(
    gaps: list[Run], cols: int, band_cols: float, axis: float | None, params: LocateParams
) -> list[Run]:
    """The arcs of text between the gaps: the complement of the widest gap, or, where two
    gaps nearly as wide as the widest stand opposite each other about an oval's short axis
    (a lower line apart from the rim, as on an invoice supervision seal), the two arcs between
    them, the pair with the most gap that leaves both arcs long enough."""
    widest = max(_width(gap) for gap in gaps)
    least = max(params.comparable_gap * widest, params.min_split * band_cols)
    wide = [gap for gap in gaps if _width(gap) >= least]
    pairs = [
        (first, second)
        for i, first in enumerate(wide)
        for second in wide[i + 1 :]
        if _mirrored(first, second, axis, cols, params)
        and min(_width(arc) for arc in _split(first, second, cols)) >= params.min_arc_share * cols
    ]
    if pairs:
        return _split(*max(pairs, key=lambda pair: _width(pair[0]) + _width(pair[1])), cols)
    first = max(gaps, key=_width)
    return [(first[1], first[0] + cols)]


def _axis_column(polar: Polar, region: SealRegion) -> float | None:
    """The polar map's column of an oval's short axis (either end), None for a round seal."""
    if not region.shape.has_axes:
        return None
    middle = (polar.frame.outer + polar.frame.inner) / 2.0
    return float(share_at(region, middle, np.array([np.pi / 2.0]))[0]) * polar.text.shape[1]


def up_vector(region: SealRegion, rim: TextArc) -> np.ndarray:
    """Unit vector (image frame) from the centre to the middle of the rim; for an oval,
    whose text is centred on its short axis, snapped to that axis."""
    inset = (rim.band.outer + rim.band.inner) / 2.0
    t = float(parameter_at(region, inset, np.array([rim.centre]))[0])
    vector = rotation(region.angle_deg) @ np.array([region.axes[0] * np.cos(t), region.axes[1] * np.sin(t)])
    vector = vector / max(float(np.linalg.norm(vector)), 1e-9)
    if region.shape.has_axes:
        minor = rotation(region.angle_deg) @ np.array([0.0, 1.0])
        vector = minor if float(minor @ vector) > 0 else -minor
    return vector


def _edges(
    cells: np.ndarray, run: Run, rows: Run, polar: Polar, params: LocateParams
) -> tuple[float, float, float]:
    """Outer and inner insets of the text `cells` in the columns of `run`, near the band `rows`:
    in each column, of the run of text that starts nearest the ring (a line below, merged
    with it by the detector, is not part of it); and the inner inset where the text ends in
    the columns where it does end within reach of the band (`min_ended`)."""
    top, bottom = rows
    slack = max(1, (bottom - top) // 2)
    low, high = max(0, top - slack), min(cells.shape[0], bottom + slack)
    window = cells[low:high][:, np.arange(*run) % cells.shape[1]]
    has = window.any(axis=0)
    if not has.any():
        return polar.inset(top), polar.inset(bottom), polar.inset(bottom)
    first = window.argmax(axis=0)
    firsts = first[has] + low
    ends = _filled_to(window, first)
    # A column whose text runs on past the window shows no end: an inner line the detector
    # merged with the rim (a tax ID level with the rim's ends) fills it down to the window's
    # edge, and where such columns are many they carry the band's inner edge with them.
    ended = has & (ends < window.shape[0])
    ends_seen = ends[ended] if ended.sum() >= params.min_ended * has.sum() else ends[has]
    p = params.edge_percentile

    def inner(lasts: np.ndarray) -> float:
        return polar.inset(float(np.percentile(lasts + low, 100.0 - p)))

    return polar.inset(float(np.percentile(firsts, p))), inner(ends[has]), inner(ends_seen)


def _column_share(polar: Polar, region: SealRegion, column: float, inset: float) -> float:
    """A column of the polar map as a perimeter share at `inset`: on an oval, outlines at
    different insets share out their perimeters differently."""
    middle = (polar.frame.outer + polar.frame.inner) / 2.0
    t = parameter_at(region, middle, np.array([column / polar.text.shape[1]]))
    return float(share_at(region, inset, t)[0])


def _arc(
    cells: np.ndarray,
    run: Run,
    rows: Run,
    turned: bool,
    polar: Polar,
    region: SealRegion,
    params: LocateParams,
) -> TextArc:
    """The padded arc of the text `cells` over the columns of `run`."""
    outer, inner, text_inner = _edges(cells, run, rows, polar, params)
    height = max(inner - outer, polar.row_px)
    cols, middle = cells.shape[1], (outer + inner) / 2.0
    # Padded by part of a rim character (a code's digits are smaller, and its polygon as tight).
    character = (rows[1] - rows[0]) * polar.row_px
    extra = params.angular_pad * character / (arc_length(region, middle) / cols)
    # ...but never past the middle of the gap: a rim that nearly closes would take in its other end.
    extra = min(extra, _room(run, cols, params))
    band = Band(outer - params.radial_pad * height, inner + params.radial_pad * height)
    # The band read keeps the merged columns' depth (tuning part and perturbations: rims read
    # no better without it); what lies past where the text ends is left to the inner lines.
    held = text_inner + params.radial_pad * max(text_inner - outer, polar.row_px)
    if run[1] - run[0] + 2.0 * extra >= cols:
        return TextArc(band, _column_share(polar, region, run[0], middle), 1.0, turned, held)
    start = _column_share(polar, region, run[0] - extra, middle)
    stop = _column_share(polar, region, run[1] + extra, middle)
    return TextArc(band, start, (stop - start) % 1.0, turned, held)


def _room(run: Run, cols: int, params: LocateParams) -> float:
    """How far an arc may grow at each end: short of the middle of the gap it leaves."""
    return params.gap_room * max(0, cols - (run[1] - run[0]))


def _band_cols(polar: Polar, region: SealRegion, rows: Run) -> float:
    """The band's height in columns of the polar map."""
    top, bottom = rows
    col_px = arc_length(region, polar.inset((top + bottom) / 2.0)) / polar.text.shape[1]
    return (bottom - top) * polar.row_px / col_px


def _rim_arcs(
    rim_cols: np.ndarray, polar: Polar, region: SealRegion, rows: Run, params: LocateParams
) -> list[Run]:
    """The rim's columns cut into arcs at the widest gap(s) between them."""
    cols, band_cols = len(rim_cols), _band_cols(polar, region, rows)
    filled = rim_cols.copy()
    for hole in circular_runs(~rim_cols):  # a stroke-thin break inside a character is no gap
        if hole[1] - hole[0] <= params.hole * band_cols:
            filled[np.arange(*hole) % cols] = True
    gaps = circular_runs(~filled)
    if not gaps:  # text all round: open it where there is least
        band = polar.text[rows[0] : rows[1]].mean(axis=0)
        return [_opened((0, cols), band, max(1, round(band_cols)))]
    return _sides(gaps, cols, band_cols, _axis_column(polar, region), params)


def _grown(arc: Run, text_cols: np.ndarray, reach: int) -> Run:
    """`arc` grown over text columns next to its ends, by at most `reach` columns each way:
    the detector's polygons are rounded at their ends, where the first and last characters
    do not fill the band."""
    cols = len(text_cols)
    start, stop = arc
    for _ in range(reach):
        if stop - start >= cols - 1 or not text_cols[(start - 1) % cols]:
            break
        start -= 1
    for _ in range(reach):
        if stop - start >= cols - 1 or not text_cols[stop % cols]:
            break
        stop += 1
    return start, stop


def _joined(flags: np.ndarray, join: float) -> list[Run]:
    """Circular runs of `flags`, runs at most `join` columns apart joined."""
    flags = flags.copy()
    if flags.any():
        for gap in circular_runs(~flags):
            if gap[1] - gap[0] <= join:
                flags[np.arange(*gap) % len(flags)] = True
    return circular_runs(flags)


def locate_arcs(
    prob: np.ndarray, ink: np.ndarray, region: SealRegion, params: LocateParams = DEFAULT_LOCATE
) -> tuple[TextArc, tuple[TextArc, ...]] | None:
    """The rim and the other arcs of the seal `region` (crop pixels) from the detector's map and
    the seal's ink mask over the crop; None when the map shows no rim."""
    polar = polar_maps(prob, ink, region, params.polar)
    found = pieces(polar, params.polar)
    rows = _band_rows(found, polar, region.axes[1], params)
    if rows is None:
        return None
    cells = union(found, polar.text.shape)
    rim_cols, code_cols = _column_kinds(cells, rows, params)
    if not rim_cols.any():
        return None
    cols, band_cols = len(rim_cols), _band_cols(polar, region, rows)
    text_cols = cells[rows[0] : rows[1]].any(axis=0)
    reach = round(params.end_reach * band_cols)
    cores = _rim_arcs(rim_cols, polar, region, rows, params)
    arcs = [_grown(arc, text_cols, min(reach, round(_room(arc, cols, params)))) for arc in cores]
    up_share = _page_up_share(region, polar.inset(rows[0]))
    rim = max(arcs, key=lambda run: _weight(run, cols, up_share, params))
    # A code's columns stay a code where the rim only grew over them: a bottom-arc code that
    # starts next to the rim's end (1102290036915 beside 国) would otherwise lose its digits.
    for core in cores:
        code_cols[np.arange(*core) % cols] = False
    others = [run for run in arcs if run != rim] + _joined(code_cols, params.code_join * band_cols)
    return _arc(cells, rim, rows, False, polar, region, params), tuple(
        _arc(cells, run, rows, True, polar, region, params)
        for run in others
        if run[1] - run[0] >= params.min_arc * band_cols
    )


def bounded_rim(rim: TextArc, ink: np.ndarray, region: SealRegion, params: LocateParams) -> TextArc:
    """The rim with a band too deep for rim text (`max_rim_band`) ended where the radial profile
    of the seal's ink says the text ends: the detector marks black print too, and print crossing
    the seal just inside its rim merges with it, while the ink mask holds the seal's ink alone."""
    b = region.axes[1]
    if rim.band.height <= params.max_rim_band * b:
        return rim
    inner = estimate_band(ink, region).inner
    if not rim.band.outer + params.min_rim_band * b <= inner < rim.band.inner:
        return rim
    return replace(rim, band=Band(rim.band.outer, inner))


def locate(
    prob: np.ndarray, ink: np.ndarray, region: SealRegion, params: LocateParams = DEFAULT_LOCATE
) -> SealText | None:
    """Where the text of the seal `region` (crop pixels) is, from the detector's map and the
    seal's ink mask over the crop; None when the map shows no rim."""
    found = locate_arcs(prob, ink, region, params)
    if found is None:
        return None
    rim, arcs = bounded_rim(found[0], ink, region, params), found[1]
    return with_inner(SealText(rim, arcs, (), up_vector(region, rim)), prob, ink, region, params)


def with_inner(
    text: SealText,
    prob: np.ndarray,
    ink: np.ndarray,
    region: SealRegion,
    params: LocateParams = DEFAULT_LOCATE,
) -> SealText:
    """`text` with the inner lines of the detector's map `prob` (over the crop)."""
    arcs = (text.rim, *text.arcs)
    return replace(text, inner=inner_quads(prob, ink, region, arcs, text.up, params.lines, params.polar))
