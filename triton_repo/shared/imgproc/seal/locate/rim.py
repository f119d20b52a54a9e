"""The rim and the other arcs of a seal, from the learned detector's map in its polar frame.

Unwrapped around the fitted outline (`polar`), the map falls apart into pieces of text;
pieces with little seal ink under them are other print (the detector marks black text as
well) and are dropped. The rim is in the outermost band of text rows; a piece is a rim piece
when it fills that band, a code when it keeps to its outer rows (bottom-arc digits are small
and sit by the ring), an inner line when it lies deeper. The rim pieces are cut into arcs at
the widest gap between them, or, where a second gap is nearly as wide, into the two arcs
between the two (the lower line of an invoice supervision seal 监制章, any bottom text); the
rim is the longest arc, favouring the one nearer the page's top since documents are stamped
roughly upright. The other arcs and the codes are read turned (tops inward). Known failure
modes and their answers: a piece merging the rim with an inner line still fills the band
(only the band's rows are read, and the line is told from the rim where the rim's text ends
in the other columns, `TextArc.text_inner`); a map with no gap at all is opened at its
emptiest column; the detector's tight polygons clip end characters, so arcs are padded by
part of a character.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from imgproc.arrays import Floats, Ints, Mask

from ..geometry import TWO_PI, arc_length, parameter_at, rotation, share_at
from ..records import Band, SealRegion, TextArc
from ..runs import Run, circular_runs, joined, smoothed
from .band import estimate_band
from .params import DEFAULT_LOCATE, LocateParams
from .polar import Piece, Polar, pieces, polar_maps, union

Rows = tuple[int, int]  # rows [top, bottom) of the polar map


def _band_rows(found: list[Piece], polar: Polar, b: float, params: LocateParams) -> Rows | None:
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


def _column_kinds(cells: Mask, rows: Rows, params: LocateParams) -> tuple[Mask, Mask]:
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


def _filled_to(window: Mask, first: Ints) -> Ints:
    """Per column, the row (of `window`) just past the run of text that starts at `first`."""
    rows = np.arange(window.shape[0])[:, None]
    gap = (~window) & (rows > first[None, :])
    ends: Ints = np.where(gap.any(axis=0), gap.argmax(axis=0), window.shape[0])
    return ends


def _page_up_share(region: SealRegion, inset: float) -> float:
    """Perimeter share (at `inset`) of the direction of the page's top from the centre."""
    local = np.array([0.0, -1.0]) @ rotation(region.angle_deg)  # into the seal frame
    t = np.arctan2(local[1] / region.axes[1], local[0] / region.axes[0])
    return float(share_at(region, inset, np.array([t]))[0])


def _weight(run: Run, cols: int, up_share: float, params: LocateParams) -> float:
    """An arc's claim to be the rim: its length, more for arcs nearer the page's top."""
    centre = (run.start + run.stop) / 2.0 / cols
    weight: float = run.length * (1.0 + params.page_up_weight * np.cos(TWO_PI * (centre - up_share)))
    return weight


def _opened(run: Run, share: Floats, window: int) -> Run:
    """A run round the whole ring, opened at its emptiest column (smoothed over `window`)."""
    cols = len(share)
    if run.length < cols:
        return run
    cut = int(np.argmin(smoothed(share, window)))
    return Run(cut + 1, cut + cols)


def _circular_distance(a: float, b: float, cols: int) -> float:
    return abs((a - b + cols / 2.0) % cols - cols / 2.0)


def _mirrored(first: Run, second: Run, axis: float | None, cols: int, params: LocateParams) -> bool:
    """Whether two gaps mirror each other about an oval's short axis (always, for round seals,
    whose axes say nothing): an oval's rim and lower line are centred on that axis, while
    gaps that print over the rim cuts are anywhere."""
    if axis is None:
        return True
    centres = ((first.start + first.stop) / 2.0, (second.start + second.stop) / 2.0)
    return _circular_distance(2.0 * axis - centres[0], centres[1], cols) <= params.mirror_tolerance * cols


def _split(first: Run, second: Run, cols: int) -> list[Run]:
    a, b = sorted([first, second])
    return [Run(a.stop, b.start), Run(b.stop, a.start + cols)]


def _sides(
    gaps: list[Run], cols: int, band_cols: float, axis: float | None, params: LocateParams
) -> list[Run]:
    """The arcs of text between the gaps: the complement of the widest gap, or, where two
    gaps nearly as wide as the widest stand opposite each other about an oval's short axis
    (a lower line apart from the rim, as on an invoice supervision seal), the two arcs between
    them, the pair with the most gap that leaves both arcs long enough."""
    widest = max(gap.length for gap in gaps)
    least = max(params.comparable_gap * widest, params.min_split * band_cols)
    wide = [gap for gap in gaps if gap.length >= least]
    pairs = [
        (first, second)
        for i, first in enumerate(wide)
        for second in wide[i + 1 :]
        if _mirrored(first, second, axis, cols, params)
        and min(arc.length for arc in _split(first, second, cols)) >= params.min_arc_share * cols
    ]
    if pairs:
        return _split(*max(pairs, key=lambda pair: pair[0].length + pair[1].length), cols)
    first = max(gaps, key=lambda gap: gap.length)
    return [Run(first.stop, first.start + cols)]


def _axis_column(polar: Polar, region: SealRegion) -> float | None:
    """The polar map's column of an oval's short axis (either end), None for a round seal."""
    if not region.shape.has_axes:
        return None
    return float(share_at(region, polar.frame.middle, np.array([np.pi / 2.0]))[0]) * polar.text.shape[1]


def up_vector(region: SealRegion, rim: TextArc) -> Floats:
    """Unit vector (image frame) from the centre to the middle of the rim; for an oval,
    whose text is centred on its short axis, snapped to that axis."""
    t = float(parameter_at(region, rim.band.middle, np.array([rim.centre]))[0])
    vector: Floats = rotation(region.angle_deg) @ np.array(
        [region.axes[0] * np.cos(t), region.axes[1] * np.sin(t)]
    )
    vector = vector / max(float(np.linalg.norm(vector)), 1e-9)
    if region.shape.has_axes:
        minor = rotation(region.angle_deg) @ np.array([0.0, 1.0])
        vector = minor if float(minor @ vector) > 0 else -minor
    return vector


def _edges(
    cells: Mask, run: Run, rows: Rows, polar: Polar, params: LocateParams
) -> tuple[float, float, float]:
    """Outer and inner insets of the text `cells` in the columns of `run`, near the band `rows`:
    in each column, of the run of text that starts nearest the ring (a line below, merged
    with it by the detector, is not part of it); and the inner inset where the text ends in
    the columns where it does end within reach of the band (`min_ended`)."""
    top, bottom = rows
    slack = max(1, (bottom - top) // 2)
    low, high = max(0, top - slack), min(cells.shape[0], bottom + slack)
    window = cells[low:high][:, run.columns(cells.shape[1])]
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

    def inner(lasts: Ints) -> float:
        return polar.inset(float(np.percentile(lasts + low, 100.0 - p)))

    return polar.inset(float(np.percentile(firsts, p))), inner(ends[has]), inner(ends_seen)


def _column_share(polar: Polar, region: SealRegion, column: float, inset: float) -> float:
    """A column of the polar map as a perimeter share at `inset`: on an oval, outlines at
    different insets share out their perimeters differently."""
    t = parameter_at(region, polar.frame.middle, np.array([column / polar.text.shape[1]]))
    return float(share_at(region, inset, t)[0])


def _arc(
    cells: Mask,
    run: Run,
    rows: Rows,
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
    if run.length + 2.0 * extra >= cols:
        return TextArc(band, _column_share(polar, region, run.start, middle), 1.0, turned, held)
    start = _column_share(polar, region, run.start - extra, middle)
    stop = _column_share(polar, region, run.stop + extra, middle)
    return TextArc(band, start, (stop - start) % 1.0, turned, held)


def _room(run: Run, cols: int, params: LocateParams) -> float:
    """How far an arc may grow at each end: short of the middle of the gap it leaves."""
    return params.gap_room * max(0, cols - run.length)


def _band_cols(polar: Polar, region: SealRegion, rows: Rows) -> float:
    """The band's height in columns of the polar map."""
    top, bottom = rows
    col_px = arc_length(region, polar.inset((top + bottom) / 2.0)) / polar.text.shape[1]
    return (bottom - top) * polar.row_px / col_px


def _rim_arcs(
    rim_cols: Mask, polar: Polar, region: SealRegion, rows: Rows, params: LocateParams
) -> list[Run]:
    """The rim's columns cut into arcs at the widest gap(s) between them."""
    cols, band_cols = len(rim_cols), _band_cols(polar, region, rows)
    filled = rim_cols.copy()
    for hole in circular_runs(~rim_cols):  # a stroke-thin break inside a character is no gap
        if hole.length <= params.hole * band_cols:
            filled[hole.columns(cols)] = True
    gaps = circular_runs(~filled)
    if not gaps:  # text all round: open it where there is least
        band = polar.text[rows[0] : rows[1]].mean(axis=0)
        return [_opened(Run(0, cols), band, max(1, round(band_cols)))]
    return _sides(gaps, cols, band_cols, _axis_column(polar, region), params)


def _grown(arc: Run, text_cols: Mask, reach: int) -> Run:
    """`arc` grown over text columns next to its ends, by at most `reach` columns each way:
    the detector's polygons are rounded at their ends, where the first and last characters
    do not fill the band."""
    cols = len(text_cols)
    start, stop = arc.start, arc.stop
    for _ in range(reach):
        if stop - start >= cols - 1 or not text_cols[(start - 1) % cols]:
            break
        start -= 1
    for _ in range(reach):
        if stop - start >= cols - 1 or not text_cols[stop % cols]:
            break
        stop += 1
    return Run(start, stop)


def locate_arcs(
    prob: Floats, ink: Mask, region: SealRegion, params: LocateParams = DEFAULT_LOCATE
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
        code_cols[core.columns(cols)] = False
    others = [run for run in arcs if run != rim] + joined(code_cols, params.code_join * band_cols)
    return _arc(cells, rim, rows, False, polar, region, params), tuple(
        _arc(cells, run, rows, True, polar, region, params)
        for run in others
        if run.length >= params.min_arc * band_cols
    )


def bounded_rim(rim: TextArc, ink: Mask, region: SealRegion, params: LocateParams) -> TextArc:
    """The rim with a band too deep for rim text (`max_rim_band`) ended where the radial profile
    of the seal's ink says the text ends: the detector marks black print too, and print crossing
    the seal just inside its rim merges with it, while the ink mask holds the seal's ink alone."""
    b = region.axes[1]
    if rim.band.height <= params.max_rim_band * b:
        return rim
    inner = estimate_band(ink, region, params.classical.band).inner
    if not rim.band.outer + params.min_rim_band * b <= inner < rim.band.inner:
        return rim
    return replace(rim, band=Band(rim.band.outer, inner))
