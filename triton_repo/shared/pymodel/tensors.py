"""A request's input tensors as NumPy arrays, and a response's output tensors."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import triton_python_backend_utils as pb_utils
from imgproc.arrays import AnyArray, Strings


def input_array(request: Any, name: str) -> AnyArray:
    """One input tensor of a request as a NumPy array (no copy)."""
    array: AnyArray = pb_utils.get_input_tensor_by_name(request, name).as_numpy()
    return array


def request_bytes(request: Any, name: str = "IMAGE") -> list[bytes]:
    """The rows of a [batch, n] UINT8 input, each as the upload's bytes."""
    return [row.tobytes() for row in input_array(request, name)]


def optional_input(request: Any, name: str) -> AnyArray | None:
    """An optional input tensor of a request as a NumPy array, None when the request lacks it."""
    tensor = pb_utils.get_input_tensor_by_name(request, name)
    return None if tensor is None else tensor.as_numpy()


def strings(texts: Sequence[str]) -> Strings:
    """Texts as a TYPE_STRING tensor (UTF-8 bytes)."""
    return np.array([text.encode() for text in texts], dtype=np.object_)


def response(**tensors: AnyArray) -> Any:
    """A successful response with the given named output tensors."""
    return pb_utils.InferenceResponse(output_tensors=[pb_utils.Tensor(k, v) for k, v in tensors.items()])
