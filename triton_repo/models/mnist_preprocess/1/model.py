"""mnist_preprocess: upload bytes -> normalised-geometry 28x28 digit, one response per request."""

from __future__ import annotations

from typing import Any

import numpy as np
from imgproc.imaging import decode_gray
from imgproc.mnist import to_mnist
from pymodel import (
    PerRequestModel,
    max_pixels,
    request_bytes,
    response,
)


class TritonPythonModel(PerRequestModel):
    """Thin adapter over imgproc: decode, to_mnist, and a per-request error on bad input."""

    def initialize(self, args: dict[str, str]) -> None:
        self._max_pixels = max_pixels(args)

    def respond(self, request: Any) -> Any:
        digits = [to_mnist(decode_gray(data, self._max_pixels)) for data in request_bytes(request)]
        return response(PIXELS=np.stack(digits)[:, None].astype(np.float32))
