"""ocr_preprocess: upload bytes -> detector input, working image, scale info and upload size."""

from __future__ import annotations

from typing import Any

import numpy as np
from imgproc.imaging import decode_rgb
from imgproc.text import det_preprocess, prepare_image
from pymodel import (
    PerRequestModel,
    max_pixels,
    request_bytes,
    response,
)


class TritonPythonModel(PerRequestModel):
    """Thin adapter over imgproc.text: decode once, shrink to the working image, build the tensor."""

    def initialize(self, args: dict[str, str]) -> None:
        self._max_pixels = max_pixels(args)

    def respond(self, request: Any) -> Any:
        (data,) = request_bytes(request)
        rgb = decode_rgb(data, self._max_pixels)
        working, scale = prepare_image(rgb)
        size = np.array(rgb.shape[:2], np.int32)
        del rgb  # a large upload's full-size pixels are not needed past this point
        return response(
            DETECTION_INPUT=det_preprocess(working),
            WORKING_IMAGE=working,
            SCALE=scale.to_array(),
            IMAGE_SIZE=size,
        )
