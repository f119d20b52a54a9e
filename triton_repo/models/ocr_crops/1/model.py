"""ocr_crops: detector map -> upright line crops as one recogniser tensor, with their boxes."""

from __future__ import annotations

from typing import Any

import numpy as np
from imgproc.text import (
    ScaleInfo,
    boxes_to_upload,
    crop_quad,
    db_postprocess,
    rec_preprocess,
    sort_reading_order,
)
from imgproc.text.recognition import CHANNELS, REC_HEIGHT, REC_MIN_WIDTH
from pymodel import (
    PerRequestModel,
    input_array,
    model_config,
    parameter,
    response,
    upright,
)

# Sent to text_recognition when a page has no lines: Triton rejects an empty batch
# (server#968), so one blank row goes instead and LINE_COUNT 0 tells ctc_decode to drop it.
BLANK_ROW = np.zeros((1, CHANNELS, REC_HEIGHT, REC_MIN_WIDTH), np.float32)


class TritonPythonModel(PerRequestModel):
    """Thin adapter over imgproc.text: DB boxes, reading order, crops, direction, rec tensor."""

    def initialize(self, args: dict[str, str]) -> None:
        self._max_lines = int(parameter(model_config(args), "max_lines"))

    def respond(self, request: Any) -> Any:
        image = input_array(request, "WORKING_IMAGE")
        scale = ScaleInfo.from_array(input_array(request, "SCALE"))
        boxes, _ = db_postprocess(input_array(request, "PROBABILITIES"), image.shape[:2])
        boxes = boxes[sort_reading_order(boxes)][: self._max_lines]
        crops = upright([crop_quad(image, box) for box in boxes])
        return response(
            RECOGNITION_INPUT=rec_preprocess(crops) if crops else BLANK_ROW,
            LINE_COUNT=np.array([len(crops)], np.int32),
            BOXES=boxes_to_upload(boxes, scale),
            FILTER_SCORES=np.array([True]),
        )
