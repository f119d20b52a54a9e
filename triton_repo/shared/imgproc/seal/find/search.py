"""Finding seals on a page: red-ink blobs that are bordered ellipses or rectangles.

`find_seals` takes the page's red-ink mask on the white-balanced page (on a large page, at
every second or third pixel: `searched_page`) without the tinted edges of dark print
(`fringes`), or, on a page without colour, its toner (`grey`); on a photo that shows the desk
around the sheet, only the sheet's (`paper`), and a ring running off the sheet is seen as one
running off the image. The mask is analysed at a bounded
working size, where the printed rules in it are found once (`rules`), and closed so that a
seal's ring, text and star merge into one blob; each blob, biggest first, gives the seals it
outlines (`blobs`, with fit). A second, wider closing then adds
large seals whose pale or patchy ring the first pass saw in pieces, with a patchier ring
allowed, and a third, narrower one seals that the first merged with other red ink they
touch. A blob inside a seal found already is passed over (a big seal's characters can pass
for small seals), and each pass adds only seals not found yet.
"""

from __future__ import annotations

from dataclasses import replace

import cv2
import numpy as np

from imgproc.arrays import Ints, Mask, Pixels, as_ints

from ..fit import DEFAULT_FIT, FitParams, big_enough, crossing, distinct, hull_area, sheet_interior
from ..fit.params import OverlapParams
from ..ink import DEFAULT_INK, InkParams, is_grey, median_hue, to_hsv
from ..records import SealRegion, WorkingInk
from .balance import white_balanced
from .blobs import blob_contours, candidates, close_side
from .fringes import finding_mask
from .grey import long_lines, toner_mask
from .paper import paper_mask
from .params import DEFAULT_FIND, FindParams
from .rules import rule_pixels
from .textline import in_a_row, in_text_line

_GROW = np.ones((3, 3), np.uint8)  # the ink grown a pixel: faint, speckled rings read as continuous


def _working_mask(mask: Mask, params: FindParams) -> tuple[Mask, float]:
    """Mask shrunk to the working size (thin strokes kept), and the scale applied."""
    scale = min(1.0, params.work_max_side / max(mask.shape))
    small: Ints = mask.astype(np.uint8) * 255
    if scale < 1.0:
        size = (max(1, round(mask.shape[1] * scale)), max(1, round(mask.shape[0] * scale)))
        small = as_ints(cv2.resize(small, size, interpolation=cv2.INTER_AREA))
    return small > 0, scale


def searched_page(page: Pixels, max_side: int) -> tuple[Pixels, float]:
    """The page's every `step`-th row and column, the least whole step that brings its long
    side to at most `max_side` (0: no bound), and the scale that is; the page itself where it is
    no larger. Pixels are taken, not averaged: a faint stroke keeps its colour (averaged with
    the paper beside it, it pales), and the mask is the page's own at the pixels taken."""
    step = -(-max(page.shape[:2]) // max_side) if max_side > 0 else 1
    if step <= 1:
        return page, 1.0
    return np.ascontiguousarray(page[::step, ::step]), 1.0 / step


def _prepared(ink: Mask, params: FindParams) -> WorkingInk:
    thick = cv2.dilate(ink.astype(np.uint8), _GROW) > 0
    rules = rule_pixels(ink, params.rules) if params.cut_rules else np.zeros(ink.shape, bool)
    return WorkingInk(ink, thick, rules)


def _on_sheet(whole: WorkingInk, sheet: Mask, fit: FitParams) -> WorkingInk:
    """The working ink with what lies off the sheet (at the working size) taken out; the rules
    stay those of the whole mask."""
    return WorkingInk(whole.ink & sheet, whole.thick & sheet, whole.rules, sheet, sheet_interior(sheet, fit))


def _rescale(region: SealRegion, scale: float, width: int, height: int) -> SealRegion:
    if scale == 1.0:
        return region
    x0, y0, x1, y1 = (v / scale for v in region.box)
    box = (max(0, int(x0)), max(0, int(y0)), min(width, int(np.ceil(x1))), min(height, int(np.ceil(y1))))
    center = (region.center[0] / scale, region.center[1] / scale)
    axes = (region.axes[0] / scale, region.axes[1] / scale)
    return replace(region, center=center, axes=axes, box=box)


def _within(contour: Ints, found: list[SealRegion]) -> bool:
    """Whether the blob's centre lies in the box of a seal found already (nothing new there)."""
    x, y, w, h = cv2.boundingRect(contour)
    cx, cy = x + w / 2.0, y + h / 2.0
    return any(s.box[0] <= cx <= s.box[2] and s.box[1] <= cy <= s.box[3] for s in found)


def _run_pass(
    ink: WorkingInk,
    params: FindParams,
    fit: FitParams,
    factor: float,
    min_width: float,
    found: list[SealRegion],
    blobs: Mask | None = None,
) -> None:
    """Add to `found` the seals of one closing, at least `min_width` across, biggest blobs first
    (a blob inside a seal found already is left alone: a big seal's characters). The blobs are
    those of `blobs` closed (default: the ink); the seals are judged on the ink."""
    mask = ink.ink if blobs is None else blobs
    contours = [c for c in blob_contours(mask, params, factor) if big_enough(c, fit)]
    for contour in sorted(contours, key=hull_area, reverse=True):
        if not _within(contour, found):
            seals = candidates(contour, ink, params, fit, factor)
            _add_new(found, [r for r in seals if 2.0 * r.axes[1] >= min_width], fit.overlap)


def _centre_inside(region: SealRegion, other: SealRegion) -> bool:
    x0, y0, x1, y1 = other.box
    return x0 <= region.center[0] <= x1 and y0 <= region.center[1] <= y1


def _area(region: SealRegion) -> float:
    return region.axes[0] * region.axes[1]


def _same(region: SealRegion, seal: SealRegion, overlap: OverlapParams) -> bool:
    """Whether two regions are one seal: either centre in the other's box (a big seal's
    characters can pass for small seals, and a later pass finds again what an earlier one
    found), unless they are two seals stamped over each other (`fit.distinct`)."""
    near = _centre_inside(region, seal) or _centre_inside(seal, region)
    return near and not distinct(region, seal, overlap)


def _add_new(found: list[SealRegion], more: list[SealRegion], overlap: OverlapParams) -> None:
    """Append the regions of `more`, largest first, that are not one of `found` or of those
    appended before them (`_same`)."""
    for region in sorted(more, key=_area, reverse=True):
        if not any(_same(region, seal, overlap) for seal in found):
            found.append(region)


def _relaxed(floor: float, wide: float) -> float:
    """A shape's coverage floor in the wide pass: `wide`, unless the shape is switched off (a
    floor above 1, which no outline reaches: rectangles on a grey page, where tables are)."""
    return floor if floor > 1.0 else wide


def _search(ink: WorkingInk, params: FindParams, fit: FitParams) -> list[SealRegion]:
    """The seals of the three closings of the working ink, at the working scale, and where
    `params.lineless` (grey pages), of the ink without its long lines."""
    wide = replace(
        fit,
        min_ellipse_coverage=_relaxed(fit.min_ellipse_coverage, params.wide_coverage),
        min_rect_coverage=_relaxed(fit.min_rect_coverage, params.wide_coverage),
    )
    passes = (
        (fit, 1.0, 0.0),
        (
            wide,
            params.wide_close,
            params.wide_min_widths * close_side(ink.ink.shape, params, params.wide_close),
        ),
        (fit, params.tight_close, 0.0),
    )
    found: list[SealRegion] = []
    for checks, factor, min_width in passes:
        _run_pass(ink, params, checks, factor, min_width, found)
    if params.lineless:
        _run_pass(ink, params, fit, 1.0, 0.0, found, _unlined(ink.ink, params))
    return found


def _unlined(mask: Mask, params: FindParams) -> Mask:
    """The working ink without its long straight lines (`grey.long_lines`): the blobs of the
    last pass on a grey page."""
    return mask & ~long_lines(mask, params.grey)


def find_seals_in_mask(
    mask: Mask,
    params: FindParams = DEFAULT_FIND,
    fit: FitParams = DEFAULT_FIT,
    paper: Mask | None = None,
) -> list[SealRegion]:
    """Seals outlined by a boolean red-ink mask, largest first; empty when there are none.
    `paper`: the sheet a photo shows, of the mask's shape (None: the whole image). Seals are
    sought on it first (ink off it is the desk's, and a ring is seen only on it), then on the
    whole image: a misjudged sheet (a certificate's coloured frame taken for the desk) loses
    none. The mask is shrunk and its rules found once for both. Letters of a line of red
    text are left out (`params.text_lines`)."""
    return _find_in_mask(mask, params, fit, None if paper is None else _working_mask(paper, params)[0])


def _without_titles(
    seals: list[SealRegion], small: Mask, params: FindParams, fit: FitParams
) -> list[SealRegion]:
    """The seals that are no letter of a line of red text (`params.text_lines`). A seal whose
    ring crosses another's, or that stands in a row of seals of its size, is none: seals
    stamped over or beside each other have neighbours at their height, as letters do, but
    letters are not rings of one size in a row (`textline.in_a_row`)."""
    if not params.text_lines:
        return seals
    return [
        r
        for r in seals
        if any(_companions(r, other, params, fit) for other in seals if other is not r)
        or not in_text_line(r, small, params.text_line)
    ]


def _companions(region: SealRegion, other: SealRegion, params: FindParams, fit: FitParams) -> bool:
    """Whether two found seals are seals stamped over each other or side by side."""
    return crossing(region, other, fit.overlap) or in_a_row(region, other, params.text_line)


def _find_in_mask(mask: Mask, params: FindParams, fit: FitParams, sheet: Mask | None) -> list[SealRegion]:
    """`find_seals_in_mask` with the sheet already at the working size (shrunk once a page)."""
    small, scale = _working_mask(mask, params)
    whole = _prepared(small, params)
    inks = [whole] if sheet is None else [_on_sheet(whole, sheet, fit), whole]
    found: list[SealRegion] = []
    for ink in inks:
        seals = _without_titles(_search(ink, params, fit), small, params, fit)
        _add_new(found, [_rescale(r, scale, mask.shape[1], mask.shape[0]) for r in seals], fit.overlap)
    return sorted(found, key=_area, reverse=True)


def _grey_params(params: FindParams, fit: FitParams) -> tuple[FindParams, FitParams]:
    """The stricter checks for seals sought in the toner of a grey page (see `grey`): ellipses
    only, inked almost all round, with writing inside; print beside a grey seal is no red title."""
    grey = params.grey
    checks = replace(
        fit,
        min_ellipse_coverage=grey.min_coverage,
        min_rect_coverage=np.inf,
        min_ink_fill=grey.min_fill,
        max_ink_fill=grey.max_fill,
        robust=grey.robust,
        snap=grey.snap,
    )
    return replace(params, wide_coverage=grey.min_coverage, text_lines=False, lineless=grey.lineless), checks


def _red(region: SealRegion, hsv: Pixels, mask: Mask, params: FindParams) -> bool:
    """Whether a region's ink in the red mask is red, not orange or gold print
    (`params.max_median_hue`)."""
    x0, y0, x1, y1 = region.box
    hue = median_hue(hsv[y0:y1, x0:x1], mask[y0:y1, x0:x1])
    return hue is None or hue <= params.max_median_hue


def find_on_page(
    rgb: Pixels,
    ink: InkParams = DEFAULT_INK,
    params: FindParams = DEFAULT_FIND,
    fit: FitParams = DEFAULT_FIT,
) -> tuple[Pixels, list[SealRegion]]:
    """The RGB page white-balanced (once: `balance`), and the seals on it, largest first. The
    mask is taken without the tinted edges of dark print (`fringes`), or, on a page without
    colour, is its toner (`grey`): call this rather than `find_seals_in_mask` on a plain red
    mask."""
    balanced = white_balanced(rgb, params.balance)
    searched, scale = searched_page(balanced, params.page_max_side)
    hsv = to_hsv(searched)
    paper = paper_mask(hsv, params.paper)
    # Every mask of the page has its shape, so the sheet is shrunk to the working size once.
    sheet = None if paper is None else _working_mask(paper, params)[0]
    mask = finding_mask(hsv, ink, params.fringe)
    found = [r for r in _find_in_mask(mask, params, fit, sheet) if _red(r, hsv, mask, params)]
    if params.grey_fallback and is_grey(hsv, ink):
        # A small seal on a black-and-white page is red but barely colours it: keep what the red
        # mask found, and add the grey seals.
        grey, checks = _grey_params(params, fit)
        for value in (params.grey.max_value, *params.grey.other_values):
            _add_new(found, _find_in_mask(toner_mask(hsv, value), grey, checks, sheet), fit.overlap)
    height, width = balanced.shape[:2]
    return balanced, sorted((_rescale(r, scale, width, height) for r in found), key=_area, reverse=True)


def find_seals(
    rgb: Pixels,
    ink: InkParams = DEFAULT_INK,
    params: FindParams = DEFAULT_FIND,
    fit: FitParams = DEFAULT_FIT,
) -> list[SealRegion]:
    """The seals on an RGB page, largest first, as the pipeline finds them (`find_on_page`)."""
    return find_on_page(rgb, ink, params, fit)[1]
