"""The classical way to the text of a seal, for when the learned detector finds no rim, and
for rectangular seals, which it was not trained on.

Elliptic seals: the rim band comes from the radial ink profile (`unwrap.estimate_band`), the
rim's start and end from the gaps in the unwrapped band's angular ink profile
(`layout.rim_layout`), which also finds a bottom-arc code. The rim is offered as a few
candidate strips with priors (`layout.rim_candidates`); the interior is left to the text
detector (`SealStrips.interiors`). Rectangular seals: their inside, in both 180-degree
orientations, nearer the page's own upright first.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from .crop import SealCrop
from .ink import stretch_contrast
from .inner import DEFAULT_INNER, InnerParams, below_star, inner_region, rect_interior, up_direction
from .layout import (
    DEFAULT_LAYOUT,
    Arc,
    LayoutParams,
    RimLayout,
    cut_arc,
    rim_candidates,
    rim_layout,
    without_rules,
)
from .strips import DEFAULT_STRIP, SealStrips, Strip, StripParams
from .unwrap import DEFAULT_BAND, Band, BandParams, estimate_band, unwrap_band

CODE_INK_ROWS = 0.03  # a code strip row with less ink than this share is empty
CODE_MARGIN = 0.12  # of the band height, added around the rows the code occupies


@dataclass(frozen=True)
class ClassicalParams:
    """The classical path's thresholds."""

    band: BandParams = DEFAULT_BAND
    layout: LayoutParams = DEFAULT_LAYOUT
    inner: InnerParams = DEFAULT_INNER


DEFAULT_CLASSICAL = ClassicalParams()


def _to_height(image: np.ndarray, height: int, squeeze: float = 1.0) -> np.ndarray:
    """`image` scaled to `height` rows, and its width by `squeeze` more than the aspect keeps."""
    width = max(1, round(image.shape[1] * squeeze * height / image.shape[0]))
    return cv2.resize(image, (width, height), interpolation=cv2.INTER_AREA)


def _code_strip(crop: SealCrop, band: Band, full: np.ndarray, arc: Arc, ink_level: int) -> np.ndarray:
    """The code arc re-unwrapped over just the rows it occupies, turned upright."""
    piece = cut_arc(full, arc)
    rows = np.nonzero((piece < ink_level).mean(axis=1) >= CODE_INK_ROWS)[0]
    top, bottom = (int(rows[0]), int(rows[-1]) + 1) if rows.size else (0, full.shape[0])
    scale = band.height / full.shape[0]
    reach = CODE_MARGIN * band.height  # digits sit closer to the ring than the rim text
    code_band = Band(max(0.0, band.outer + top * scale - reach), band.outer + bottom * scale + reach)
    start, span = arc.start / full.shape[1], arc.length / full.shape[1]
    strip = unwrap_band(crop.gray, crop.local, code_band, full.shape[0], start=start, span=span)
    return stretch_contrast(np.ascontiguousarray(strip[::-1, ::-1]))


def _interior(crop: SealCrop, band: Band, layout: RimLayout, params: ClassicalParams) -> np.ndarray:
    region = crop.local
    up = up_direction(region, band, layout.rim.centre(layout.width))
    # A gap that holds the bottom-arc code stays out: the code has its own strip.
    rim = None if layout.code else (layout.rim.start / layout.width, layout.rim.length / layout.width)
    interior = inner_region(crop.gray, region, band, up, rim, params.inner)
    return stretch_contrast(below_star(interior, params.inner) if region.shape.has_star else interior)


def _elliptic(crop: SealCrop, params: ClassicalParams, strip: StripParams) -> SealStrips:
    height = strip.height
    band = estimate_band(crop.mask, crop.local, params.band)
    full = without_rules(stretch_contrast(unwrap_band(crop.gray, crop.local, band, height)), params.layout)
    layout = rim_layout(full, params.layout)
    blank, rows = round(params.layout.blank * height), round(params.layout.blank_rows * height)
    rim = tuple(
        Strip(_to_height(cut_arc(full, c.arc, c.turned, blank, rows), height, strip.squeeze), c.prior, group)
        for group, c in enumerate(rim_candidates(layout, height, params.layout))
    )
    code = (
        ()
        if layout.code is None
        else ((Strip(_code_strip(crop, band, full, layout.code, params.layout.ink_level)),),)
    )
    return SealStrips(rim=rim, arcs=code, interiors=(_interior(crop, band, layout, params),))


def classical_strips(
    crop: SealCrop, params: ClassicalParams = DEFAULT_CLASSICAL, strip: StripParams = DEFAULT_STRIP
) -> SealStrips:
    """What to read of a seal by the classical path."""
    if not crop.region.is_elliptic:
        return SealStrips(
            interiors=tuple(stretch_contrast(c) for c in rect_interior(crop.gray, crop.local, params.inner))
        )
    return _elliptic(crop, params, strip)
