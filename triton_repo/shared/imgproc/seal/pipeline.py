"""One call from a decoded page to everything the seal BLS must recognise.

`prepare_seals` finds the seals, and for each one works on a crop around it: saturation
thresholds adapted to that seal's ink, the ink image (red strokes dark, black print gone),
the rim band, the full unwrapped band, the rim/code layout, the candidate rim strips, the
code strip and the inner crops. All images are single-channel uint8, dark ink on white; the
recogniser wants three channels, so the caller stacks them. Nothing here calls a model.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import cv2
import numpy as np

from .find import DEFAULT_FIND, FindParams, find_seals_in_mask
from .ink import (
    DEFAULT_INK,
    RedInkThresholds,
    adapted_to,
    ink_gray_hsv,
    red_mask_hsv,
    stretch_contrast,
    to_hsv,
)
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
from .shapes import SealRegion
from .unwrap import DEFAULT_BAND, Band, BandParams, estimate_band, unwrap_band

STRIP_HEIGHT = 48  # PP-OCRv4 recognition input height
CODE_INK_ROWS = 0.03  # a strip row with less ink than this share is empty
CODE_MARGIN = 0.12  # of the band height, added around the rows the code occupies


@dataclass(frozen=True)
class SealParams:
    """All seal thresholds in one place; the BLS builds this once from its config."""

    ink: RedInkThresholds = DEFAULT_INK
    find: FindParams = DEFAULT_FIND
    band: BandParams = DEFAULT_BAND
    layout: LayoutParams = DEFAULT_LAYOUT
    inner: InnerParams = DEFAULT_INNER
    strip_height: int = STRIP_HEIGHT
    crop_margin: float = 0.1  # of the seal's long semi-axis, kept around the crop
    # Rim strips are narrowed by this much: unwrapped rim characters stand wide apart (and seal
    # fonts are often condensed), and the recogniser reads them more surely closer together.
    # Dev seeds 3000-6000, 414 round/oval seals exact: 321 at 1.0, 327 at 0.85, 325 at 0.75.
    rim_squeeze: float = 0.85


DEFAULT_SEAL = SealParams()


@dataclass(frozen=True)
class RimStrip:
    """A candidate reading of the rim text: a gray strip and the prior weight of its score."""

    image: np.ndarray
    prior: float


@dataclass(frozen=True)
class SealCrops:
    """What to recognise for one seal. `region` is in page pixels."""

    region: SealRegion
    rim: list[RimStrip] = field(default_factory=list)  # favourite first; empty for rect seals
    code: np.ndarray | None = None  # strip of the bottom-arc code, upright
    inner: list[np.ndarray] = field(default_factory=list)  # crops for text detection


def _crop_box(region: SealRegion, shape: tuple[int, ...], margin: float) -> tuple[int, int, int, int]:
    pad = margin * region.axes[0]
    reach = region.axes[0] + pad
    cx, cy = region.center
    x0, y0 = max(0, int(cx - reach)), max(0, int(cy - reach))
    return x0, y0, min(shape[1], int(np.ceil(cx + reach))), min(shape[0], int(np.ceil(cy + reach)))


def _shifted(region: SealRegion, x0: int, y0: int) -> SealRegion:
    x, y = region.center
    bx0, by0, bx1, by1 = region.box
    return replace(region, center=(x - x0, y - y0), box=(bx0 - x0, by0 - y0, bx1 - x0, by1 - y0))


def _code_strip(
    gray: np.ndarray, region: SealRegion, band: Band, full: np.ndarray, arc: Arc, height: int, ink_level: int
) -> np.ndarray:
    """The code arc re-unwrapped over just the rows it occupies, turned upright."""
    piece = cut_arc(full, arc)
    rows = np.nonzero((piece < ink_level).mean(axis=1) >= CODE_INK_ROWS)[0]
    top, bottom = (int(rows[0]), int(rows[-1]) + 1) if rows.size else (0, full.shape[0])
    scale = band.height / full.shape[0]
    reach = CODE_MARGIN * band.height  # digits sit closer to the ring than the rim text
    code_band = Band(max(0.0, band.outer + top * scale - reach), band.outer + bottom * scale + reach)
    start, span = arc.start / full.shape[1], arc.length / full.shape[1]
    strip = unwrap_band(gray, region, code_band, height, start=start, span=span)
    return stretch_contrast(np.ascontiguousarray(strip[::-1, ::-1]))


def _to_height(image: np.ndarray, height: int, squeeze: float = 1.0) -> np.ndarray:
    """`image` scaled to `height` rows, and its width by `squeeze` more than the aspect keeps."""
    width = max(1, round(image.shape[1] * squeeze * height / image.shape[0]))
    return cv2.resize(image, (width, height), interpolation=cv2.INTER_AREA)


def _inner_crops(
    gray: np.ndarray, region: SealRegion, band: Band, layout: RimLayout, params: SealParams
) -> list[np.ndarray]:
    up = up_direction(region, band, layout.rim.centre(layout.width))
    # A gap that holds the bottom-arc code stays out: the code has its own strip.
    rim = None if layout.code else (layout.rim.start / layout.width, layout.rim.length / layout.width)
    interior = inner_region(gray, region, band, up, rim, params.inner)
    return [stretch_contrast(below_star(interior, params.inner) if region.shape == "round" else interior)]


def _elliptic(gray: np.ndarray, mask: np.ndarray, region: SealRegion, params: SealParams) -> SealCrops:
    height = params.strip_height
    band = estimate_band(mask, region, params.band)
    full = without_rules(stretch_contrast(unwrap_band(gray, region, band, height)), params.layout)
    layout = rim_layout(full, params.layout)
    blank, rows = round(params.layout.blank * height), round(params.layout.blank_rows * height)
    candidates = rim_candidates(layout, height, params.layout)
    rim = [
        RimStrip(_to_height(cut_arc(full, c.arc, c.turned, blank, rows), height, params.rim_squeeze), c.prior)
        for c in candidates
    ]
    code = (
        _code_strip(gray, region, band, full, layout.code, height, params.layout.ink_level)
        if layout.code
        else None
    )
    return SealCrops(region, rim, code, _inner_crops(gray, region, band, layout, params))


def crops_for(rgb: np.ndarray, region: SealRegion, params: SealParams = DEFAULT_SEAL) -> SealCrops:
    """Candidate strips and crops for one seal found on the RGB page."""
    x0, y0, x1, y1 = _crop_box(region, rgb.shape, params.crop_margin)
    crop = rgb[y0:y1, x0:x1]
    hsv = to_hsv(crop)
    local = adapted_to(hsv, params.ink)
    gray, mask = ink_gray_hsv(crop, hsv, local), red_mask_hsv(hsv, local)
    shifted = _shifted(region, x0, y0)
    if region.shape == "rect":
        return SealCrops(
            region, inner=[stretch_contrast(c) for c in rect_interior(gray, shifted, params.inner)]
        )
    return replace(_elliptic(gray, mask, shifted, params), region=region)


def prepare_seals(rgb: np.ndarray, params: SealParams = DEFAULT_SEAL) -> list[SealCrops]:
    """Every seal on an RGB page with its strips and crops; empty when there is none."""
    regions = find_seals_in_mask(red_mask_hsv(to_hsv(rgb), params.ink), params.find)
    return [crops_for(rgb, region, params) for region in regions]
