"""ctc_decode: recogniser softmax -> texts and scores, with the boxes of the lines kept."""

from __future__ import annotations

from typing import Any

import numpy as np
from imgproc.text import confident, ctc_decode
from pymodel import (
    PerRequestModel,
    input_array,
    model_config,
    parameter,
    recogniser_charset,
    response,
    strings,
)


class TritonPythonModel(PerRequestModel):
    """Thin adapter over imgproc.text.ctc_decode; the charset is loaded once."""

    def initialize(self, args: dict[str, str]) -> None:
        self._text_score = float(parameter(model_config(args), "text_score"))
        self._charset = recogniser_charset(args)

    def respond(self, request: Any) -> Any:
        count = int(input_array(request, "LINE_COUNT")[0])
        boxes = input_array(request, "BOXES")
        decoded = ctc_decode(input_array(request, "PROBABILITIES")[:count], self._charset)
        scores = np.array([score for _, score in decoded], np.float64)
        texts = strings([text for text, _ in decoded])
        if input_array(request, "FILTER_SCORES")[0]:
            keep = confident(scores, self._text_score)
            texts, scores, boxes = texts[keep], scores[keep], boxes[keep]
        return response(
            TEXTS=texts, SCORES=scores.astype(np.float32), POLYGONS=np.ascontiguousarray(boxes, np.float32)
        )
