"""The one error boundary of the python models: what a request that raised is answered.

ImageError (the upload) and InvalidInput (another input) are the client's fault; ModelCallError
is a model called through BLS failing; RequestCancelled is a client that stopped waiting; the
rest are bugs or deployment faults, logged under the request's ids (`failure`).
"""

from __future__ import annotations

import json
import traceback
from dataclasses import dataclass
from typing import Any

import triton_python_backend_utils as pb_utils
from imgproc.imaging import ImageError


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
