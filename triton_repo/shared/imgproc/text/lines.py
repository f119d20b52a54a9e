"""Reading the text lines of an image, whoever runs the models: detect, order, crop, turn
upright, recognise.

The sequence RapidOCR runs, written once over awaitable model calls: the seal model passes
BLS calls to `text_detection`, `text_direction` and a recogniser, the evaluation harness
ONNX Runtime sessions.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from imgproc.arrays import Floats, Pixels
from imgproc.imaging import three_channels

from .db import db_postprocess
from .detection import det_preprocess, prepare_image
from .geometry import crop_quad, sort_reading_order
from .recognition import Decoded, apply_direction, cls_preprocess

Model = Callable[[Floats], Awaitable[Floats]]
Recogniser = Callable[[list[Pixels]], Awaitable[list[Decoded]]]


async def read_lines(
    image: Pixels, detect: Model, classify: Model, recognise: Recogniser
) -> list[tuple[str, float]]:
    """Text and confidence of each line of an image (gray or BGR), in reading order."""
    working, _ = prepare_image(three_channels(image))
    boxes, _ = db_postprocess(await detect(det_preprocess(working)), working.shape[:2])
    crops = [crop_quad(working, box) for box in boxes[sort_reading_order(boxes)]]
    if not crops:
        return []
    upright = apply_direction(crops, await classify(cls_preprocess(crops)))
    return [(line.text, line.score) for line in await recognise(upright)]
