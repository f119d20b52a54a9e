"""One seal cut out of the page: the colour crop, its ink image and ink mask, and the seal's
outline in crop pixels. Every later stage works on this crop, never on the whole page. The
rings of seals stamped over it are taken out first (`rings`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import cv2
import numpy as np

from imgproc.arrays import Mask, Pixels, as_pixels

from ..ink import DEFAULT_INK, InkParams, is_grey, red_mask_hsv, to_hsv
from ..records import Box, SealCrop, SealRegion
from .ink_image import DEFAULT_CUT, CutParams, adapted_to, crop_toner, ink_gray_hsv
from .rings import without_rings


def beside(crop: SealCrop, reach: float) -> Pixels:
    """The colour crop's rows of the page, `reach` crop widths further at each side (BGR): an
    invoice's title runs on past the supervision seal stamped across it."""
    if crop.page is None or reach <= 0:
        return crop.bgr
    height, width = crop.bgr.shape[:2]
    x0 = round(crop.region.center[0] - crop.local.center[0])
    y0 = round(crop.region.center[1] - crop.local.center[1])
    more = round(reach * width)
    rows = crop.page[y0 : y0 + height, max(0, x0 - more) : min(crop.page.shape[1], x0 + width + more)]
    return as_pixels(cv2.cvtColor(np.ascontiguousarray(rows), cv2.COLOR_RGB2BGR))


def surroundings(crop: SealCrop, params: CutParams) -> list[Pixels]:
    """The crop and, where the page is there, the page beside it (`cue_reach` crop widths each
    side): both views, for at the wider one's scale the seal's own small print may go unfound."""
    wide = beside(crop, params.cue_reach)
    return [crop.bgr] if wide is crop.bgr else [crop.bgr, wide]


def crop_box(region: SealRegion, shape: tuple[int, ...], margin: float) -> Box:
    """(x0, y0, x1, y1) of the square around the seal plus `margin`, clipped to the page."""
    reach = region.axes[0] * (1.0 + margin)
    cx, cy = region.center
    x0, y0 = max(0, int(cx - reach)), max(0, int(cy - reach))
    return x0, y0, min(shape[1], int(np.ceil(cx + reach))), min(shape[0], int(np.ceil(cy + reach)))


def shifted(region: SealRegion, x0: int, y0: int) -> SealRegion:
    """The region in the pixels of a crop whose top-left corner is page pixel (x0, y0)."""
    x, y = region.center
    bx0, by0, bx1, by1 = region.box
    return replace(region, center=(x - x0, y - y0), box=(bx0 - x0, by0 - y0, bx1 - x0, by1 - y0))


def _inks(crop: Pixels, ink: InkParams, params: CutParams) -> tuple[Pixels, Mask]:
    """The ink image and the ink mask of an RGB crop: of its red ink, or of its toner."""
    hsv = to_hsv(crop)
    if is_grey(hsv, ink):
        value = np.ascontiguousarray(hsv[..., 2])
        return value, crop_toner(value)
    local = adapted_to(hsv, ink, params)
    return ink_gray_hsv(crop, hsv, local, params), red_mask_hsv(hsv, local)


def cut_seal(
    rgb: Pixels,
    region: SealRegion,
    ink: InkParams = DEFAULT_INK,
    params: CutParams = DEFAULT_CUT,
    others: Sequence[SealRegion] = (),
) -> SealCrop:
    """The crop around one seal found on the RGB page; `others`: seals stamped over it (page
    pixels), whose rings are taken out of the crop (`rings`)."""
    x0, y0, x1, y1 = crop_box(region, rgb.shape, params.margin)
    crop = np.ascontiguousarray(rgb[y0:y1, x0:x1])
    gray, mask = _inks(crop, ink, params)
    if others and params.other_rings:
        clean = without_rings(crop, mask, [shifted(other, x0, y0) for other in others], params)
        if clean is not crop:
            crop = clean
            gray, mask = _inks(crop, ink, params)
    bgr = as_pixels(cv2.cvtColor(crop, cv2.COLOR_RGB2BGR))
    return SealCrop(region, shifted(region, x0, y0), bgr, gray, mask, rgb)
