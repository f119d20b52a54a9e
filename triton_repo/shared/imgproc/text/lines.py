"""Reading the text lines of an image, whoever runs the models: detect, order, crop, turn
upright, recognise.

The sequence RapidOCR runs, written once over awaitable model calls: the seal model passes
BLS calls to `text_detection`, `text_direction` and a recogniser, the evaluation harness
ONNX Runtime sessions.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

from imgproc.arrays import Floats, Pixels
from imgproc.imaging import three_channels

from .db import db_postprocess
from .detection import det_preprocess, prepare_image
from .geometry import crop_quad, sort_reading_order
from .recognition import REC_BATCH_SIZE, Decoded, apply_direction, aspect_batches, cls_preprocess

Model = Callable[[Floats], Awaitable[Floats]]
Recogniser = Callable[[list[Pixels]], Awaitable[list[Decoded]]]


async def read_in_groups(
    crops: list[Pixels], recognise: Recogniser, batch_size: int = REC_BATCH_SIZE
) -> list[Decoded]:
    """Line crops read in RapidOCR's groups (`aspect_batches`: lines of like width together, so a
    short line is not padded to the page's widest), every group's call in flight at once;
    results in input order. A page's lines in one batch took 2.4 times as long (11.4 s against
    4.9 s, a generated invoice of 66 lines, in process on one thread)."""
    groups = aspect_batches(crops, batch_size)
    read = await asyncio.gather(*(recognise([crops[i] for i in group]) for group in groups))
    lines: list[Decoded] = [Decoded((), ())] * len(crops)
    for group, decoded in zip(groups, read, strict=True):
        for index, line in zip(group, decoded, strict=True):
            lines[index] = line
    return lines


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
