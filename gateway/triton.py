"""A typed async wrapper around ONE tritonclient.grpc.aio client per process.

This is the only module that talks to Triton. tritonclient's errors are translated into the
gateway's own at this boundary (`raise Ours(...) from exc`):

    StatusCode.INVALID_ARGUMENT             -> InvalidImage        422  (the model's own message)
    "maximum queue size" / RESOURCE_EXHAUSTED -> Overloaded        429
    StatusCode.DEADLINE_EXCEEDED            -> UpstreamTimeout     504
    StatusCode.INTERNAL, UNKNOWN            -> UpstreamError       502  (a model failed: retrying
                                                                        will not help)
    anything else (UNAVAILABLE, NOT_FOUND, ...) -> TritonUnavailable 503

Each call is a client span of the request's trace, and carries the trace's context to Triton
in its metadata (`traceparent`), where Triton's own tracing continues it (gateway.tracing).

A call cancelled because its client hung up (`gateway.disconnect`) is cancelled on the wire
too, and counted with outcome `cancelled`.

Readiness asks every Triton behind the channel on its own (`gateway.balancing.each_triton`),
since the channel would send a request to any of them: each one that answers must be ready with
every required model. One that cannot be reached is out of the channel's rotation and is left
out; readiness fails when none can be reached. The reasons count Tritons rather than name their
addresses, which stay inside the deployment.

A decoupled model (the document models) answers one request with many responses over a
gRPC stream (`stream`): an error response there reaches the client as a bare message, mapped
as anything else is; a stream silent for longer than its gap is UpstreamTimeout.

Only an invalid argument's message reaches the client: the python models word those
themselves (`pymodel.failed`). Anything else Triton says may hold exception text from inside a
model, so the client gets a fixed message and the gateway's log the rest.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import Counter
from collections.abc import AsyncGenerator, AsyncIterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import grpc
import numpy as np
import numpy.typing as npt
import tritonclient.grpc.aio as grpcclient
from opentelemetry.trace import Span, SpanKind
from tritonclient.grpc._utils import get_error_grpc
from tritonclient.utils import InferenceServerException

from gateway.balancing import BALANCING_CHANNEL_ARGS, each_triton, grpc_target
from gateway.errors import (
    GatewayError,
    InvalidImage,
    Overloaded,
    TritonUnavailable,
    UpstreamError,
    UpstreamTimeout,
)
from gateway.metrics import GatewayMetrics
from gateway.requestid import current_request_id
from gateway.tracing import Tracing, trace_exemplar, triton_metadata

logger = logging.getLogger(__name__)
IMAGE_INPUT = "IMAGE"
CANCELLED = "cancelled"  # the Triton-call metric's outcome for a call its client gave up on
# Keep idle HTTP/2 connections to Triton alive through proxies and detect dead peers.
CHANNEL_ARGS = [
    ("grpc.keepalive_time_ms", 30_000),
    ("grpc.keepalive_timeout_ms", 10_000),
    ("grpc.keepalive_permit_without_calls", 1),
    # Reconnecting within about a second of a Triton's return (gRPC's default back-off grows to
    # two minutes, which kept answering 503 for 8-10 s after a restarted Triton was ready) and
    # spreading calls over many Tritons: gateway.balancing's BALANCING_CHANNEL_ARGS.
]
# Room around an upload in one gRPC message (the request's other fields, an answer's tensors).
MESSAGE_OVERHEAD_BYTES = 16 * 1024 * 1024
Parameters = Mapping[str, str | int | bool | float]
TextInputs = Mapping[str, Sequence[str]]  # string (BYTES [n]) inputs beside the image, by name


@dataclass(frozen=True)
class Inference:
    """The named output arrays of one inference, which model version produced them, and the
    request id Triton answered under (the gateway's X-Request-ID)."""

    model: str
    version: str
    outputs: dict[str, npt.NDArray[Any]]
    request_id: str = ""

    def model_ref(self) -> dict[str, str]:
        """Which model and version answered, as every route reports it (`ModelRef`)."""
        return {"name": self.model, "version": self.version}


def _span_attributes(model: str, method: str = "ModelInfer") -> dict[str, str]:
    """A Triton call's span attributes (OpenTelemetry's RPC conventions, and the model)."""
    return {"rpc.system": "grpc", "rpc.method": method, "triton.model": model}


def translate(exc: InferenceServerException, retry_after_s: int) -> GatewayError:
    """Map a tritonclient error onto the gateway's hierarchy."""
    return error_for(str(exc.status() or ""), str(exc.message() or exc), retry_after_s)


def error_for(status: str, message: str, retry_after_s: int) -> GatewayError:
    """Our error for a Triton status (a gRPC status name, as tritonclient or a document model's
    page error names it) and its message."""
    if status.endswith("INVALID_ARGUMENT"):
        return InvalidImage(message)
    if status.endswith("RESOURCE_EXHAUSTED") or "maximum queue size" in message:
        return Overloaded("the inference server is overloaded", retry_after_s=retry_after_s)
    if status.endswith("DEADLINE_EXCEEDED"):
        return UpstreamTimeout("the inference server did not answer in time")
    if status.endswith(("INTERNAL", "UNKNOWN")):
        logger.warning("a model failed: %s %s", status, message)  # the client gets no detail
        return UpstreamError("the model failed on this request")
    return TritonUnavailable("the inference server is unavailable", retry_after_s=retry_after_s)


def _inputs(image: bytes, texts: TextInputs | None) -> list[grpcclient.InferInput]:
    """The upload's bytes as IMAGE [1, n] UINT8, and each text input as BYTES [n] of UTF-8."""
    tensor = grpcclient.InferInput(IMAGE_INPUT, [1, len(image)], "UINT8")
    tensor.set_data_from_numpy(np.frombuffer(image, dtype=np.uint8).reshape(1, -1))
    inputs = [tensor]
    for name, values in (texts or {}).items():
        strings = grpcclient.InferInput(name, [len(values)], "BYTES")
        strings.set_data_from_numpy(np.array([value.encode() for value in values], dtype=np.object_))
        inputs.append(strings)
    return inputs


def _inference(result: grpcclient.InferResult, outputs: Sequence[str]) -> Inference:
    response = result.get_response()
    arrays = {name: result.as_numpy(name) for name in outputs}
    return Inference(response.model_name, response.model_version, arrays, response.id)


class TritonClient:
    """Owns the gRPC channel; opened in the app's lifespan, closed at shutdown."""

    def __init__(
        self,
        url: str,
        timeout_s: float,
        metrics: GatewayMetrics,
        retry_after_s: int = 1,
        tracing: Tracing | None = None,
        max_upload_bytes: int = 64 * 1024 * 1024,
    ) -> None:
        # One channel over every Triton `url` names, balanced per call (gateway.balancing), whose
        # messages hold the largest upload accepted.
        message = max_upload_bytes + MESSAGE_OVERHEAD_BYTES
        sizes = [("grpc.max_send_message_length", message), ("grpc.max_receive_message_length", message)]
        self._client = grpcclient.InferenceServerClient(
            grpc_target(url), channel_args=[*CHANNEL_ARGS, *sizes, *BALANCING_CHANNEL_ARGS]
        )
        self._url = url
        self._timeout_s = timeout_s
        self._metrics = metrics
        self._retry_after_s = retry_after_s
        self._tracing = tracing or Tracing()

    async def infer_image(
        self,
        model: str,
        image: bytes,
        outputs: Sequence[str],
        parameters: Parameters | None = None,
        texts: TextInputs | None = None,
    ) -> Inference:
        """Send the upload's bytes as IMAGE [1, n] UINT8 (and `texts`); raises GatewayError."""
        requested = [grpcclient.InferRequestedOutput(name) for name in outputs]
        with self._tracing.span(f"triton {model}", SpanKind.CLIENT, _span_attributes(model)) as span:
            start, outcome = time.perf_counter(), "ok"
            try:
                result = await self._client.infer(
                    model,
                    _inputs(image, texts),
                    outputs=requested,
                    client_timeout=self._timeout_s,
                    parameters=dict(parameters) if parameters else None,
                    request_id=current_request_id.get(),  # Triton's log and errors name it
                    headers=triton_metadata(span),  # Triton's trace continues this span
                )
            except InferenceServerException as exc:
                error = translate(exc, self._retry_after_s)
                outcome = error.code
                raise error from exc
            except asyncio.CancelledError:  # the client hung up (`disconnect`): so is the gRPC call
                outcome = CANCELLED
                raise
            finally:
                self._observe(model, outcome, start, span)
        return _inference(result, outputs)

    def _observe(self, model: str, outcome: str, start: float, span: Span | None) -> None:
        """A Triton call's duration and outcome, on its metric and its span."""
        exemplar = trace_exemplar() if span is not None else None
        self._metrics.triton_duration.labels(model, outcome).observe(time.perf_counter() - start, exemplar)
        if span is not None:
            span.set_attribute("triton.outcome", outcome)

    async def stream(
        self, model: str, image: bytes, parameters: Parameters, gap_s: float, texts: TextInputs | None = None
    ) -> AsyncGenerator[Inference, None]:
        """Every response of a decoupled model to one request (the upload's bytes as IMAGE, and
        `texts`), each with all its outputs, as it arrives, until Triton ends the stream; raises
        GatewayError, UpstreamTimeout after `gap_s` without a response. Closing the iterator
        early (an answer complete, a client gone) cancels the request in Triton."""
        attributes = _span_attributes(model, "ModelStreamInfer")
        with self._tracing.span(f"triton {model}", SpanKind.CLIENT, attributes) as span:
            request = {
                "model_name": model,
                "inputs": _inputs(image, texts),
                "request_id": current_request_id.get(),
                "parameters": dict(parameters),
            }

            async def one_request() -> AsyncIterator[dict[str, Any]]:
                yield request

            start, outcome = time.perf_counter(), "ok"
            responses = self._client.stream_infer(one_request(), headers=triton_metadata(span))
            try:
                while True:
                    result, error = await asyncio.wait_for(anext(responses), gap_s)
                    if error is not None:
                        raise error
                    yield _inference(result, [output.name for output in result.get_response().outputs])
            except StopAsyncIteration:
                return
            except (InferenceServerException, grpc.RpcError) as exc:
                raised = exc if isinstance(exc, InferenceServerException) else get_error_grpc(exc)
                ours = translate(raised, self._retry_after_s)
                outcome = ours.code
                raise ours from exc
            except TimeoutError as exc:
                outcome = UpstreamTimeout.code
                raise UpstreamTimeout(f"the inference server sent nothing for {gap_s:g} s") from exc
            except (asyncio.CancelledError, GeneratorExit):  # a client gone, or an answer complete
                outcome = CANCELLED
                raise
            finally:
                responses.cancel()
                self._observe(model, outcome, start, span)

    async def ready(self, models: Sequence[str]) -> list[str]:
        """The reasons the Tritons behind the channel cannot all serve `models` (empty when they
        can; see the module docstring)."""
        try:
            targets = await asyncio.to_thread(each_triton, self._url)  # resolving may block
        except OSError as exc:
            return [f"triton unreachable: {exc}"]
        answers = await asyncio.gather(*(self._ready_at(target, models) for target in targets))
        reachable = [reasons for reasons in answers if reasons is not None]
        if not reachable:
            return ["triton unreachable"]
        counts = Counter(reason for reasons in reachable for reason in reasons)
        if len(reachable) == 1:
            return list(counts)
        return [f"{reason} on {count} of {len(reachable)} tritons" for reason, count in counts.items()]

    async def _ready_at(self, target: str, models: Sequence[str]) -> list[str] | None:
        """What the one Triton at `target` lacks to serve `models`; None when it cannot be reached."""
        client = grpcclient.InferenceServerClient(target, channel_args=CHANNEL_ARGS)
        try:
            if not await client.is_server_ready(client_timeout=self._timeout_s):
                return ["triton server not ready"]
            flags = [await client.is_model_ready(m, client_timeout=self._timeout_s) for m in models]
        except InferenceServerException as exc:
            if str(exc.status()).endswith("UNAVAILABLE"):
                return None
            return [f"triton did not answer: {exc.message()}"]
        finally:
            await client.close()
        return [f"model {model} not ready" for model, ok in zip(models, flags, strict=True) if not ok]

    async def close(self) -> None:
        await self._client.close()
