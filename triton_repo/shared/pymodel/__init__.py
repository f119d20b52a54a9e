"""Triton-side helpers shared by the python models, one module per concern; the models import
them from here (`from pymodel import X`).

    params       a model's config.pbtxt and its `parameters`
    tensors      a request's inputs as arrays, a response's outputs
    errors       the one error boundary: what a request that raised is answered
    boundary     the per-request loop (`PerRequestModel`) and the request being answered
    bls          calls to other models, each response checked right after its own call
    recognisers  the PP-OCR models behind BLS: direction, detection, line recognisers

Kept apart from `imgproc` because it imports `triton_python_backend_utils`, which exists
only inside the Python backend's stub process.
"""

from pymodel.bls import call_model, call_model_all, call_model_async, call_model_outputs, call_model_tensor
from pymodel.boundary import AsyncPerRequestModel, PerRequestModel, answering, check_cancelled
from pymodel.errors import (
    Failure,
    InvalidInput,
    ModelCallError,
    RequestCancelled,
    failed,
    failure,
    trace_id_of,
)
from pymodel.params import max_pixels, model_config, parameter, parameters
from pymodel.recognisers import (
    DETECTION_MODEL,
    DIRECTION_MODEL,
    PPOCR_V4,
    PPOCR_V5,
    PPOCR_V6,
    RECOGNITION_MODELS,
    RecognitionModel,
    read_image_lines,
    recognise_chars,
    recognise_grouped,
    recognise_seq2seq,
    recogniser_charset,
    upright,
    upright_async,
)
from pymodel.tensors import input_array, optional_input, request_bytes, response, strings

__all__ = [
    "DETECTION_MODEL",
    "DIRECTION_MODEL",
    "PPOCR_V4",
    "PPOCR_V5",
    "PPOCR_V6",
    "RECOGNITION_MODELS",
    "AsyncPerRequestModel",
    "Failure",
    "InvalidInput",
    "ModelCallError",
    "PerRequestModel",
    "RecognitionModel",
    "RequestCancelled",
    "answering",
    "call_model",
    "call_model_all",
    "call_model_async",
    "call_model_outputs",
    "call_model_tensor",
    "check_cancelled",
    "failed",
    "failure",
    "input_array",
    "max_pixels",
    "model_config",
    "optional_input",
    "parameter",
    "parameters",
    "read_image_lines",
    "recognise_chars",
    "recognise_grouped",
    "recognise_seq2seq",
    "recogniser_charset",
    "request_bytes",
    "response",
    "strings",
    "trace_id_of",
    "upright",
    "upright_async",
]
