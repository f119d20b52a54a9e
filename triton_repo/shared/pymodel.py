"""Triton-side helpers shared by the python models: parameters, inputs, per-request errors.

Kept apart from `imgproc` because it imports `triton_python_backend_utils`, which exists
only inside the Python backend's stub process.
"""

from __future__ import annotations

import asyncio
import json
import traceback
from collections.abc import Sequence
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import triton_python_backend_utils as pb_utils
from imgproc.arrays import AnyArray, Floats, Pixels, Strings
from imgproc.imaging import ImageError, Refused, three_channels
from imgproc.text import (
    Decoded,
    apply_direction,
    aspect_batches,
    cls_preprocess,
    ctc_decode_chars,
    rec_preprocess,
)
from imgproc.text.charset import load_charset
from imgproc.text.lines import read_lines as text_lines
from imgproc.text.recognition import REC_BATCH_SIZE
from imgproc.text.seq2seq import as_decoded, padded_batch

# The PP-OCR models' tensors, as their config.pbtxt (and the ONNX exports) name them.
DIRECTION_MODEL = "text_direction"
DIRECTION_INPUT = "x"
DIRECTION_OUTPUT = "save_infer_model/scale_0.tmp_1"
DETECTION_MODEL = "text_detection"
DETECTION_INPUT = "x"
DETECTION_OUTPUT = "sigmoid_0.tmp_0"
RECOGNITION_INPUT = "x"  # both recognisers take imgproc.text.rec_preprocess's tensor


@dataclass(frozen=True)
class RecognitionModel:
    """A CTC line recogniser served by Triton: its name and output tensor."""

    name: str
    output: str

    def onnx(self, args: dict[str, str]) -> Path:
        """Its model.onnx, a sibling of the calling model in the repository (the charset's home)."""
        return Path(args["model_repository"]).parent / self.name / "1" / "model.onnx"


PPOCR_V4 = RecognitionModel("text_recognition", "softmax_11.tmp_0")
PPOCR_V5 = RecognitionModel("text_recognition_v5", "fetch_name_0")
PPOCR_V6 = RecognitionModel("text_recognition_v6", "fetch_name_0")
RECOGNITION_MODELS = {model.name: model for model in (PPOCR_V4, PPOCR_V5, PPOCR_V6)}


# The request a model is answering, set around `respond`: every BLS call made for it checks
# first that its client still waits, and joins its trace (`_tensor_request`), so the models
# need not pass it on.
_answering: ContextVar[Any] = ContextVar("answering", default=None)


def answering(request: Any) -> None:
    """Marks `request` as the one the calling task (and the tasks it starts) answers: their
    BLS calls stop once its client has gone. The error boundaries set it; a decoupled model,
    which answers outside them, sets it itself."""
    _answering.set(request)


class PerRequestModel:
    """Base of the python models: exactly one response per request, in order.

    Subclasses implement `respond` and simply raise: `failed` is the one error boundary that
    turns what they raise into that request's error response, never failing the others.
    """

    def execute(self, requests: list[Any]) -> list[Any]:
        return [self._guarded(request) for request in requests]

    def _guarded(self, request: Any) -> Any:
        answering = _answering.set(request)
        try:
            return self.respond(request)
        except Exception as exc:  # noqa: BLE001 - the contract: never fail the other requests
            return failed(exc, type(self).__module__, request)
        finally:
            _answering.reset(answering)

    def respond(self, request: Any) -> Any:
        raise NotImplementedError


class AsyncPerRequestModel:
    """`PerRequestModel` for models whose work awaits other models (BLS `async_exec`): the
    requests of a batch are answered concurrently, each by the coroutine `respond`."""

    async def execute(self, requests: list[Any]) -> list[Any]:
        return list(await asyncio.gather(*(self._guarded(request) for request in requests)))

    async def _guarded(self, request: Any) -> Any:
        answering(request)  # in this request's own task (gather): its calls' tasks inherit it
        try:
            return await self.respond(request)
        except Exception as exc:  # noqa: BLE001 - the contract: never fail the other requests
            return failed(exc, type(self).__module__, request)

    async def respond(self, request: Any) -> Any:
        raise NotImplementedError


def _request_id(request: Any) -> str:
    try:
        return str(request.request_id()) or "-"
    except Exception:  # noqa: BLE001 - a request without an id still gets its answer
        return "-"


def trace_id_of(context: str | None) -> str:
    """The trace id in Triton's OpenTelemetry context of a request (`request.trace().get_context()`:
    JSON with the W3C `traceparent`), or `-` for a request that is not traced."""
    try:
        fields = str(json.loads(context or "{}").get("traceparent", "")).split("-")
    except (ValueError, AttributeError):
        return "-"
    return fields[1] if len(fields) == 4 else "-"


def _ids(request: Any) -> str:
    """The ids a log line names a request by: Triton's request id (the gateway's X-Request-ID)
    and the trace id, the same as in the gateway's log and the trace store."""
    try:
        trace_id = trace_id_of(request.trace().get_context())
    except Exception:  # noqa: BLE001 - a request without a trace is still logged
        trace_id = "-"
    return f"request {_request_id(request)} trace {trace_id}"


@dataclass(frozen=True)
class Failure:
    """How a request's failure is answered: the `pb_utils.TritonError` code's name and the
    message its client may see."""

    code: str
    message: str


def failure(exc: Exception, model: str, request: Any) -> Failure:
    """The one error boundary of the python models: what a request whose handling raised
    `exc` is answered, logged where it is not the client's fault.

    ImageError (the upload is not a usable image) or InvalidInput (another input or parameter
    that is not) -> INVALID_ARG with its message, the gateway's 422; RequestCancelled (nobody
    waits for the answer any more) -> CANCELLED; ModelCallError (a model this one calls
    failed: not ready, overloaded) -> UNAVAILABLE, the gateway's 503, naming that model;
    anything else is a bug or a deployment fault -> INTERNAL with a generic message, the
    gateway's 502, the details in Triton's log under the request's id.
    """
    if isinstance(exc, ImageError | InvalidInput):
        return Failure("INVALID_ARG", str(exc))
    ids = _ids(request)
    if isinstance(exc, RequestCancelled):
        pb_utils.Logger.log_info(f"{model}: {ids}: cancelled, work left dropped")
        return Failure("CANCELLED", f"{model}: request cancelled")
    if isinstance(exc, ModelCallError):
        pb_utils.Logger.log_warn(f"{model}: {ids}: {exc}")
        return Failure("UNAVAILABLE", f"{model}: {exc.model} is unavailable")
    detail = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
    pb_utils.Logger.log_error(f"{model}: {ids}: {detail}")
    return Failure("INTERNAL", f"{model}: internal error (request {_request_id(request)})")


def failed(exc: Exception, model: str, request: Any) -> Any:
    """The error response for a request whose handling raised `exc` (see `failure`)."""
    answer = failure(exc, model, request)
    return pb_utils.InferenceResponse(
        error=pb_utils.TritonError(answer.message, getattr(pb_utils.TritonError, answer.code))
    )


def model_config(args: dict[str, str]) -> dict[str, Any]:
    """The model's config.pbtxt as the dict Triton hands to `initialize`."""
    config: dict[str, Any] = json.loads(args["model_config"])
    return config


def parameters(config: dict[str, Any]) -> dict[str, str]:
    """Every `parameters` entry of config.pbtxt, key to string value."""
    return {key: str(value["string_value"]) for key, value in config.get("parameters", {}).items()}


def parameter(config: dict[str, Any], key: str) -> str:
    """A `parameters` entry of config.pbtxt; raises KeyError naming the missing key."""
    try:
        return str(config["parameters"][key]["string_value"])
    except KeyError as exc:
        raise KeyError(f"config.pbtxt of {config.get('name')} lacks parameter {key!r}") from exc


def max_pixels(args: dict[str, str]) -> int:
    """The `max_pixels` parameter: the decode guard of every model that takes an upload."""
    return int(parameter(model_config(args), "max_pixels"))


def input_array(request: Any, name: str) -> AnyArray:
    """One input tensor of a request as a NumPy array (no copy)."""
    array: AnyArray = pb_utils.get_input_tensor_by_name(request, name).as_numpy()
    return array


def request_bytes(request: Any, name: str = "IMAGE") -> list[bytes]:
    """The rows of a [batch, n] UINT8 input, each as the upload's bytes."""
    return [row.tobytes() for row in input_array(request, name)]


class ModelCallError(RuntimeError):
    """A model called through BLS answered with an error; `invalid`: it refused its input
    (`imgproc.imaging.Refused`), it is not unavailable."""

    def __init__(self, model: str, message: str, invalid: bool = False) -> None:
        super().__init__(f"{model}: {message}")
        self.model, self.message, self.invalid = model, message, invalid


class InvalidInput(ValueError):
    """A request's input or parameter, other than its image, that cannot be used as sent."""


class RequestCancelled(Exception):
    """The client of a request stopped waiting for it (its deadline passed, or it hung up)."""


def check_cancelled(request: Any) -> None:
    """Raises RequestCancelled where Triton has marked `request` cancelled: a long request
    (a page of many seals) then stops at its next model call instead of holding the model
    instance, and the requests queued behind it, for an answer nobody reads. Calls already in
    flight finish: a page of 24 seals past a 5 s deadline had 104 strips read after its 504,
    and has 10 now."""
    if request.is_cancelled():
        raise RequestCancelled


def _request(model_name: str, inputs: dict[str, AnyArray], outputs: Sequence[str]) -> Any:
    return _tensor_request(
        model_name, [pb_utils.Tensor(name, value) for name, value in inputs.items()], outputs
    )


def _tensor_request(model_name: str, inputs: Sequence[Any], outputs: Sequence[str], **options: Any) -> Any:
    """A BLS request, made only while the request being answered is still wanted, and traced
    as a child of it: Triton's trace of that request (the gateway's, when it sent a context)
    then shows each call with its model's queue and compute (every BLS call is built here).
    Raises RequestCancelled."""
    answering = _answering.get()
    if answering is not None:
        check_cancelled(answering)
        options["trace"] = answering.trace()
    return pb_utils.InferenceRequest(
        model_name=model_name, requested_output_names=list(outputs), inputs=list(inputs), **options
    )


def _checked(result: Any, model_name: str) -> Any:
    """The response of a BLS call, or ModelCallError where it answered an error."""
    if result.has_error():  # checked right after this call, on this response
        message = result.error().message()
        raise ModelCallError(model_name, message, Refused.is_refusal(message))
    return result


def _output_tensors(result: Any, model_name: str, outputs: Sequence[str]) -> dict[str, Any]:
    checked = _checked(result, model_name)
    return {name: pb_utils.get_output_tensor_by_name(checked, name) for name in outputs}


def _outputs(result: Any, model_name: str, outputs: Sequence[str]) -> dict[str, AnyArray]:
    return {name: tensor.as_numpy() for name, tensor in _output_tensors(result, model_name, outputs).items()}


def call_model(model_name: str, inputs: dict[str, AnyArray], output: str) -> AnyArray:
    """Run another Triton model through BLS and return one output; raises ModelCallError."""
    return _outputs(_request(model_name, inputs, [output]).exec(), model_name, [output])[output]


async def call_model_async(model_name: str, inputs: dict[str, AnyArray], output: str) -> AnyArray:
    """`call_model` without blocking: other calls of this model instance go on meanwhile."""
    return (await call_model_outputs(model_name, inputs, [output]))[output]


async def call_model_outputs(
    model_name: str, inputs: dict[str, AnyArray], outputs: Sequence[str]
) -> dict[str, AnyArray]:
    """Several outputs of another Triton model, without blocking; raises ModelCallError."""
    return _outputs(await _request(model_name, inputs, outputs).async_exec(), model_name, outputs)


def _memory(on_cpu: bool) -> dict[str, Any]:
    return {"preferred_memory": pb_utils.PreferredMemory(pb_utils.TRITONSERVER_MEMORY_CPU)} if on_cpu else {}


async def call_model_tensor(model_name: str, inputs: Sequence[Any], output: str, on_cpu: bool = False) -> Any:
    """One output of another Triton model as a `pb_utils.Tensor`, left where that model put it
    (on its GPU, say) unless `on_cpu`; the inputs are `pb_utils.Tensor`s, so one model's
    output passes on to the next by DLPack without a copy. Raises ModelCallError."""
    result = await _tensor_request(model_name, inputs, [output], **_memory(on_cpu)).async_exec()
    return _output_tensors(result, model_name, [output])[output]


async def call_model_all(model_name: str, inputs: Sequence[Any], on_cpu: bool = False) -> dict[str, Any]:
    """Every output of another Triton model (none named in the request: Triton then answers
    all), by name, as `call_model_tensor` gives one; raises ModelCallError."""
    result = await _tensor_request(model_name, inputs, [], **_memory(on_cpu)).async_exec()
    return {tensor.name(): tensor for tensor in _checked(result, model_name).output_tensors()}


def optional_input(request: Any, name: str) -> AnyArray | None:
    """An optional input tensor of a request as a NumPy array, None when the request lacks it."""
    tensor = pb_utils.get_input_tensor_by_name(request, name)
    return None if tensor is None else tensor.as_numpy()


def upright(crops: list[Pixels]) -> list[Pixels]:
    """Line crops with the upside-down ones turned, classified in one BLS call; raises ModelCallError."""
    if not crops:  # Triton rejects an empty batch; nothing to classify anyway
        return []
    scores = call_model(DIRECTION_MODEL, {DIRECTION_INPUT: cls_preprocess(crops)}, DIRECTION_OUTPUT)
    return apply_direction(crops, scores)


async def upright_async(crops: list[Pixels]) -> list[Pixels]:
    """`upright` without blocking the calling model's other requests; raises ModelCallError."""
    if not crops:
        return []
    tensor = cls_preprocess(crops)
    return apply_direction(
        crops, await call_model_async(DIRECTION_MODEL, {DIRECTION_INPUT: tensor}, DIRECTION_OUTPUT)
    )


def recogniser_charset(args: dict[str, str], model: RecognitionModel = PPOCR_V4) -> tuple[str, ...]:
    """The character table of a recogniser, read once from its own files."""
    return load_charset(model.onnx(args))


async def recognise_chars(
    images: Sequence[Pixels],
    charset: Sequence[str],
    model: RecognitionModel = PPOCR_V4,
    alternatives: int = 0,
    frames: int = 0,
) -> list[Decoded]:
    """Each line image (gray or BGR) read per character, with the `alternatives` likeliest
    characters of each (and `frames` of every frame, `Decoded.frames`), in one BLS call;
    raises ModelCallError."""
    if not images:  # Triton rejects an empty batch
        return []
    batch = rec_preprocess([three_channels(image) for image in images])
    probs = await call_model_async(model.name, {RECOGNITION_INPUT: batch}, model.output)
    return ctc_decode_chars(probs, charset, alternatives, frames)


async def recognise_seq2seq(images: Sequence[Pixels], model: str) -> list[Decoded]:
    """Each line image (gray or BGR) read by an encoder-decoder BLS model (`seq2seq_recognition`)
    in one call, as `Decoded` lines (every character with the line's score); raises
    ModelCallError."""
    if not images:
        return []
    batch, widths = padded_batch([three_channels(image) for image in images])
    out = await call_model_outputs(model, {"IMAGES": batch, "WIDTHS": widths}, ["TEXTS", "SCORES"])
    return [
        as_decoded(text.decode(), float(score))
        for text, score in zip(out["TEXTS"], out["SCORES"], strict=True)
    ]


async def recognise_grouped(
    crops: Sequence[Pixels],
    charset: Sequence[str],
    model: RecognitionModel = PPOCR_V4,
    batch_size: int = REC_BATCH_SIZE,
) -> list[Decoded]:
    """BGR line crops read in RapidOCR's groups (`aspect_batches`: similar widths together, so
    a short line is not padded to the page's widest), all groups' BLS calls in flight at once,
    each decoded as soon as it returns; results in input order. Raises ModelCallError."""
    groups = aspect_batches(crops, batch_size)
    read = await asyncio.gather(
        *(recognise_chars([crops[i] for i in group], charset, model) for group in groups)
    )
    lines: list[Decoded] = [Decoded((), ())] * len(crops)
    for group, decoded in zip(groups, read, strict=True):
        for index, line in zip(group, decoded, strict=True):
            lines[index] = line
    return lines


async def read_lines(image: Pixels, charset: Sequence[str]) -> list[tuple[str, float]]:
    """Detect, order, straighten and recognise the text lines of an image through BLS
    (`imgproc.text.lines.read_lines`); raises ModelCallError."""

    async def detect(tensor: Floats) -> Floats:
        return await call_model_async(DETECTION_MODEL, {DETECTION_INPUT: tensor}, DETECTION_OUTPUT)

    async def classify(tensor: Floats) -> Floats:
        return await call_model_async(DIRECTION_MODEL, {DIRECTION_INPUT: tensor}, DIRECTION_OUTPUT)

    async def recognise(crops: list[Pixels]) -> list[Decoded]:
        return await recognise_chars(crops, charset)

    return await text_lines(image, detect, classify, recognise)


def strings(texts: Sequence[str]) -> Strings:
    """Texts as a TYPE_STRING tensor (UTF-8 bytes)."""
    return np.array([text.encode() for text in texts], dtype=np.object_)


def response(**tensors: AnyArray) -> Any:
    """A successful response with the given named output tensors."""
    return pb_utils.InferenceResponse(output_tensors=[pb_utils.Tensor(k, v) for k, v in tensors.items()])
