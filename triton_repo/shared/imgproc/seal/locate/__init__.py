"""locate: a seal's crop in (`SealCrop`), where its text is out (`Located`).

The learned seal text detector (`detect`: PaddleX's PP-OCRv4 mobile seal det, called through
the `Detector` the pipeline gives) reads the crop, an oval turned level first; its map,
unwrapped around the fitted outline (`polar`), gives the rim's band and extent, the other
arcs and the bottom code (`rim`), and the inner lines (`lines`): a `SealText`. A seal turned
far from upright whose inner lines went unfound is detected once more upright, for them.
Where the map shows no rim, and for rectangular seals, the classical path (`classical`: the
ink's radial profile, `band`, and the gaps round the band, `layout`) says where the text is:
a `ClassicalText` or a `RectText`. `LocateParams` holds every threshold.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import replace

from imgproc.arrays import Floats, Mask

from ..records import Located, SealCrop, SealRegion, SealText
from .classical import classical_text
from .detect import level_turn, seal_det_input, text_inside, text_map, upright_turn
from .lines import inner_quads
from .params import DEFAULT_LOCATE, LocateParams
from .rim import bounded_rim, locate_arcs, up_vector

# The seal text detector: its input tensor in, its output map out.
Detector = Callable[[Floats], Awaitable[Floats]]

__all__ = ["DEFAULT_LOCATE", "Detector", "LocateParams", "locate", "locate_seal", "with_inner"]


def locate(
    prob: Floats, ink: Mask, region: SealRegion, params: LocateParams = DEFAULT_LOCATE
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
    prob: Floats,
    ink: Mask,
    region: SealRegion,
    params: LocateParams = DEFAULT_LOCATE,
) -> SealText:
    """`text` with the inner lines of the detector's map `prob` (over the crop)."""
    arcs = (text.rim, *text.arcs)
    return replace(text, inner=inner_quads(prob, ink, region, arcs, text.up, params.lines, params.polar))


async def _upright_inner(crop: SealCrop, text: SealText, detect: Detector, params: LocateParams) -> SealText:
    """`text`, or for a seal turned far from upright whose inner lines went unfound, its inner
    lines from the detector's map of its crop turned upright (see `detect`)."""
    turn = upright_turn(text.up)
    if text.inner or abs(turn) <= params.det.upright_after_deg:
        return text
    output = await detect(seal_det_input(crop.bgr, turn, params.det))
    return with_inner(text, text_map(output, crop.bgr.shape, turn), crop.mask, crop.local, params)


async def locate_seal(crop: SealCrop, detect: Detector, params: LocateParams = DEFAULT_LOCATE) -> Located:
    """Where the text of one seal is: by the detector, else by the classical path."""
    if not crop.region.is_elliptic:
        return classical_text(crop, params.classical)
    turn = level_turn(crop.local)
    output = await detect(seal_det_input(crop.bgr, turn, params.det))
    prob = text_map(output, crop.bgr.shape, turn)
    inside = text_inside(prob, crop.local, params.det)  # trust's evidence, whichever path reads it
    text = locate(prob, crop.mask, crop.local, params)
    if text is None:
        return replace(classical_text(crop, params.classical), text_inside=inside)
    return replace(await _upright_inner(crop, text, detect, params), text_inside=inside)
