"""ocr_crops: detector map -> the page's lines read, in reading order, with their boxes."""

from __future__ import annotations

from typing import Any

from imgproc.text import (
    ScaleInfo,
    boxes_to_upload,
    confident_lines,
    crop_quad,
    db_postprocess,
    sort_reading_order,
)
from pymodel import (
    AsyncPerRequestModel,
    input_array,
    model_config,
    parameter,
    recognise_grouped,
    recogniser_charset,
    response,
    upright_async,
)


class TritonPythonModel(AsyncPerRequestModel):
    """Thin adapter over imgproc.text: DB boxes, reading order, crops, direction and recognition
    (BLS, per width group), greedy CTC where the recogniser's output arrives, score filter."""

    def initialize(self, args: dict[str, str]) -> None:
        config = model_config(args)
        self._max_lines = int(parameter(config, "max_lines"))
        self._text_score = float(parameter(config, "text_score"))
        self._charset = recogniser_charset(args)

    async def respond(self, request: Any) -> Any:
        image = input_array(request, "WORKING_IMAGE")
        scale = ScaleInfo.from_array(input_array(request, "SCALE"))
        boxes, _ = db_postprocess(input_array(request, "PROBABILITIES"), image.shape[:2])
        boxes = boxes[sort_reading_order(boxes)][: self._max_lines]
        crops = await upright_async([crop_quad(image, box) for box in boxes])
        lines = await recognise_grouped(crops, self._charset)
        texts, scores, polygons = confident_lines(lines, boxes_to_upload(boxes, scale), self._text_score)
        return response(TEXTS=texts, SCORES=scores, POLYGONS=polygons)
