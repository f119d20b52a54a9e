"""ocr_line_preprocess: upload bytes -> one upright line as the recogniser's input (detect=false)."""

from __future__ import annotations

from typing import Any

import numpy as np
from imgproc.arrays import Floats
from imgproc.imaging import decode_rgb
from imgproc.text import prepare_line, rec_preprocess
from pymodel import (
    PerRequestModel,
    max_pixels,
    request_bytes,
    response,
    upright,
)


def outline(height: int, width: int) -> Floats:
    """float32[1, 4, 2]: the image's corners (tl, tr, br, bl) as the one line's polygon."""
    return np.array([[[0, 0], [width, 0], [width, height], [0, height]]], np.float32)


class TritonPythonModel(PerRequestModel):
    """Thin adapter over imgproc.text, as RapidOCR's use_det=False: no detection, no score filter."""

    def initialize(self, args: dict[str, str]) -> None:
        self._max_pixels = max_pixels(args)

    def respond(self, request: Any) -> Any:
        (data,) = request_bytes(request)
        rgb = decode_rgb(data, self._max_pixels)
        crops = upright([prepare_line(rgb)])
        height, width = rgb.shape[:2]
        return response(
            RECOGNITION_INPUT=rec_preprocess(crops),
            LINE_COUNT=np.array([1], np.int32),
            BOXES=outline(height, width),
            FILTER_SCORES=np.array([False]),
            IMAGE_SIZE=np.array([height, width], np.int32),
        )
