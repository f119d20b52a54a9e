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

Only an invalid argument's message reaches the client: the python models word those
themselves (`pymodel.failed`). Anything else Triton says may hold exception text from inside a
model, so the client gets a fixed message and the gateway's log the rest.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt
import tritonclient.grpc.aio as grpcclient
from opentelemetry.trace import SpanKind
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
    ("grpc.max_send_message_length", 64 * 1024 * 1024),
    ("grpc.max_receive_message_length", 64 * 1024 * 1024),
    # Reconnecting within about a second of a Triton's return (gRPC's default back-off grows to
    # two minutes, which kept answering 503 for 8-10 s after a restarted Triton was ready) and
    # spreading calls over many Tritons: gateway.balancing's BALANCING_CHANNEL_ARGS.
]
Parameters = Mapping[str, str | int | bool]


@dataclass(frozen=True)
class Inference:
    """The named output arrays of one inference, which model version produced them, and the
    request id Triton answered under (the gateway's X-Request-ID)."""

    model: str
    version: str
    outputs: dict[str, npt.NDArray[Any]]
    request_id: str = ""


def _span_attributes(model: str) -> dict[str, str]:
    """A Triton call's span attributes (OpenTelemetry's RPC conventions, and the model)."""
    return {"rpc.system": "grpc", "rpc.method": "ModelInfer", "triton.model": model}


def translate(exc: InferenceServerException, retry_after_s: int) -> GatewayError:
    """Map a tritonclient error onto the gateway's hierarchy."""
    status, message = str(exc.status() or ""), str(exc.message() or exc)
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


class TritonClient:
    """Owns the gRPC channel; opened in the app's lifespan, closed at shutdown."""

    def __init__(
        self,
        url: str,
        timeout_s: float,
        metrics: GatewayMetrics,
        retry_after_s: int = 1,
        tracing: Tracing | None = None,
    ) -> None:
        # One channel over every Triton `url` names, balanced per call (gateway.balancing).
        self._client = grpcclient.InferenceServerClient(
            grpc_target(url), channel_args=[*CHANNEL_ARGS, *BALANCING_CHANNEL_ARGS]
        )
        self._url = url
        self._timeout_s = timeout_s
        self._metrics = metrics
        self._retry_after_s = retry_after_s
        self._tracing = tracing or Tracing()

    async def infer_image(
        self, model: str, image: bytes, outputs: Sequence[str], parameters: Parameters | None = None
    ) -> Inference:
        """Send the upload's bytes as IMAGE [1, n] UINT8; raises GatewayError."""
        tensor = grpcclient.InferInput(IMAGE_INPUT, [1, len(image)], "UINT8")
        tensor.set_data_from_numpy(np.frombuffer(image, dtype=np.uint8).reshape(1, -1))
        requested = [grpcclient.InferRequestedOutput(name) for name in outputs]
        with self._tracing.span(f"triton {model}", SpanKind.CLIENT, _span_attributes(model)) as span:
            start, outcome = time.perf_counter(), "ok"
            try:
                result = await self._client.infer(
                    model,
                    [tensor],
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
                duration = time.perf_counter() - start
                exemplar = trace_exemplar() if span is not None else None
                self._metrics.triton_duration.labels(model, outcome).observe(duration, exemplar)
                if span is not None:
                    span.set_attribute("triton.outcome", outcome)
        response = result.get_response()
        arrays = {name: result.as_numpy(name) for name in outputs}
        return Inference(response.model_name, response.model_version, arrays, response.id)

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
