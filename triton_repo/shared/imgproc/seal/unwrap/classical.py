"""What to read of a seal located by its ink (`locate.classical`): rim candidates cut from the
band unwrapped all round, the bottom-arc code unwrapped over its own rows, and the interior
for the general text detector; of a rectangular seal, its inside both ways up.
"""

from __future__ import annotations

import cv2
import numpy as np

from imgproc.arrays import Pixels, as_pixels
from imgproc.imaging import WHITE

from ..geometry import unwrap_band
from ..ink import stretch_contrast
from ..records import ClassicalText, RectText, SealCrop, SealStrips, Strip
from ..runs import Run
from .interior import below_star, inner_region, rect_interior
from .params import DEFAULT_UNWRAP, UnwrapParams


def cut_arc(strip: Pixels, run: Run, turned: bool, blank: int, blank_rows: int) -> Pixels:
    """Columns of `run` from a full-band strip (wrapping round), framed by `blank` white columns
    and `blank_rows` white rows on each side, turned 180 degrees if asked."""
    piece = strip[:, run.columns(strip.shape[1])]
    framed = np.pad(piece, ((blank_rows, blank_rows), (blank, blank)), constant_values=WHITE)
    return np.ascontiguousarray(framed[::-1, ::-1]) if turned else framed


def _to_height(image: Pixels, height: int, squeeze: float) -> Pixels:
    """`image` scaled to `height` rows, and its width by `squeeze` more than the aspect keeps."""
    width = max(1, round(image.shape[1] * squeeze * height / image.shape[0]))
    return as_pixels(cv2.resize(image, (width, height), interpolation=cv2.INTER_AREA))


def _stretched(gray: Pixels, params: UnwrapParams) -> Pixels:
    return stretch_contrast(gray, params.dark_percentile, params.light_percentile)


def _code_strip(crop: SealCrop, text: ClassicalText, params: UnwrapParams) -> tuple[tuple[Strip, ...], ...]:
    """The bottom-arc code unwrapped over its own rows, turned upright (none without a code)."""
    if text.code is None:
        return ()
    arc = text.code
    strip = unwrap_band(crop.gray, crop.local, arc.band, text.full.shape[0], start=arc.start, span=arc.span)
    return ((Strip(_stretched(np.ascontiguousarray(strip[::-1, ::-1]), params)),),)


def _interior(crop: SealCrop, text: ClassicalText, params: UnwrapParams) -> Pixels:
    region = crop.local
    interior = inner_region(crop.gray, region, text.band, text.up, text.rim_shares, params.interior)
    return _stretched(below_star(interior, params.interior) if region.shape.has_star else interior, params)


def classical_strips(
    crop: SealCrop, text: ClassicalText, params: UnwrapParams = DEFAULT_UNWRAP
) -> SealStrips:
    """What to read of an elliptic seal located by its ink."""
    height = params.height
    blank, rows = round(params.blank * height), round(params.blank_rows * height)
    rim = tuple(
        Strip(
            _to_height(cut_arc(text.full, c.run, c.turned, blank, rows), height, params.squeeze),
            c.prior,
            group,
        )
        for group, c in enumerate(text.candidates)
    )
    return SealStrips(
        rim=rim, arcs=_code_strip(crop, text, params), interiors=(_interior(crop, text, params),)
    )


def rect_strips(crop: SealCrop, text: RectText, params: UnwrapParams = DEFAULT_UNWRAP) -> SealStrips:
    """What to read of a rectangular seal: its inside, both ways up."""
    inside = rect_interior(crop.gray, crop.local, text.up, params.interior)
    return SealStrips(interiors=tuple(_stretched(image, params) for image in inside))
