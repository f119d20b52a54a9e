"""Triton-side helpers shared by the python models: parameters, inputs, per-request errors.

Kept apart from `imgproc` because it imports `triton_python_backend_utils`, which exists
only inside the Python backend's stub process.
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import triton_python_backend_utils as pb_utils
from imgproc.text import apply_direction, cls_preprocess

# text_direction's tensors, as its config.pbtxt (and the ONNX export) names them.
DIRECTION_MODEL = "text_direction"
DIRECTION_INPUT = "x"
DIRECTION_OUTPUT = "save_infer_model/scale_0.tmp_1"


def model_config(args: dict[str, str]) -> dict[str, Any]:
    """The model's config.pbtxt as the dict Triton hands to `initialize`."""
    config: dict[str, Any] = json.loads(args["model_config"])
    return config


def parameter(config: dict[str, Any], key: str) -> str:
    """A `parameters` entry of config.pbtxt; raises KeyError naming the missing key."""
    try:
        return str(config["parameters"][key]["string_value"])
    except KeyError as exc:
        raise KeyError(f"config.pbtxt of {config.get('name')} lacks parameter {key!r}") from exc


def input_array(request: Any, name: str) -> np.ndarray:
    """One input tensor of a request as a NumPy array (no copy)."""
    return pb_utils.get_input_tensor_by_name(request, name).as_numpy()


def request_bytes(request: Any, name: str = "IMAGE") -> list[bytes]:
    """The rows of a [batch, n] UINT8 input, each as the upload's bytes."""
    return [row.tobytes() for row in input_array(request, name)]


def invalid_argument(message: str) -> Any:
    """A response that fails only this request, as INVALID_ARG (the gateway's 422)."""
    return pb_utils.InferenceResponse(error=pb_utils.TritonError(message, pb_utils.TritonError.INVALID_ARG))


class ModelCallError(RuntimeError):
    """A model called through BLS answered with an error."""


def call_model(model_name: str, inputs: dict[str, np.ndarray], output: str) -> np.ndarray:
    """Run another Triton model through BLS and return one output; raises ModelCallError."""
    request = pb_utils.InferenceRequest(
        model_name=model_name,
        requested_output_names=[output],
        inputs=[pb_utils.Tensor(name, value) for name, value in inputs.items()],
    )
    result = request.exec()
    if result.has_error():  # checked right after this exec(), on this response
        raise ModelCallError(f"{model_name}: {result.error().message()}")
    return pb_utils.get_output_tensor_by_name(result, output).as_numpy()


def upright(crops: list[np.ndarray]) -> list[np.ndarray]:
    """Line crops with the upside-down ones turned, classified in one BLS call; raises ModelCallError."""
    if not crops:  # Triton rejects an empty batch; nothing to classify anyway
        return []
    scores = call_model(DIRECTION_MODEL, {DIRECTION_INPUT: cls_preprocess(crops)}, DIRECTION_OUTPUT)
    return apply_direction(crops, scores)


def internal_error(message: str) -> Any:
    """A response that fails only this request, as INTERNAL (the gateway's 503)."""
    return pb_utils.InferenceResponse(error=pb_utils.TritonError(message, pb_utils.TritonError.INTERNAL))


def response(**tensors: np.ndarray) -> Any:
    """A successful response with the given named output tensors."""
    return pb_utils.InferenceResponse(output_tensors=[pb_utils.Tensor(k, v) for k, v in tensors.items()])
