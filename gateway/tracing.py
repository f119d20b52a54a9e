"""OpenTelemetry tracing: one request, one trace, from the client through Triton.

A request's server span continues the client's W3C `traceparent` (or starts a trace), every
response names it in a `traceresponse` header (W3C Trace Context level 2:
`00-<trace id>-<span id>-<flags>`), and its children time the upload's read and check,
admission, and each Triton call. The Triton call sends the context in its gRPC metadata, and
Triton's own OpenTelemetry tracing continues the trace through ensemble steps and BLS calls
(gateway.otlp: it traces what arrives with a context, so only sampled requests get one).

Configured by the standard OTEL_* variables only (gateway.otlp); spans go out as OTLP, or to
the console. Off, nothing is built: no provider, no thread, and `span()` hands out one shared
no-op. On, the provider is the app's own (no global state); spans leave through the SDK's
batch processor, behind a bounded queue (`OTEL_BSP_MAX_QUEUE_SIZE`) on its own thread, so a
collector that is down or slow costs a request nothing; the spans lost to a full queue or a
failed export are counted in `gateway_tracing_spans_dropped_total{reason}`.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence
from contextlib import AbstractContextManager, nullcontext
from typing import Any

from opentelemetry import trace
from opentelemetry.context import Context
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.resources import SERVICE_NAME, Resource
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import (
    BatchSpanProcessor,
    ConsoleSpanExporter,
    SpanExporter,
    SpanExportResult,
)
from opentelemetry.trace import Span, SpanContext, SpanKind, Tracer
from opentelemetry.trace.propagation.tracecontext import TraceContextTextMapPropagator
from prometheus_client import Counter
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from gateway import spanwire
from gateway.otlp import GRPC, ConsoleTarget, TraceTarget, service_name

TRACEPARENT, TRACESTATE = "traceparent", "tracestate"
TRACERESPONSE = b"traceresponse"
QUEUE_FULL, EXPORT_FAILED = "queue_full", "export_failed"  # the dropped-spans counter's reasons
# At shutdown the batch thread gets this long to send what it holds: a collector that is
# down must not hold up the process's exit (the SDK's own default is 30 s).
SHUTDOWN_FLUSH_MS = 2000
_OFF: AbstractContextManager[None] = nullcontext()
_PROPAGATOR = TraceContextTextMapPropagator()


class CountingExporter(SpanExporter):
    """An exporter that counts the spans of every batch it failed to send."""

    def __init__(self, inner: SpanExporter, dropped: Counter) -> None:
        self._inner, self._dropped = inner, dropped

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        result = self._inner.export(spans)
        if result is not SpanExportResult.SUCCESS:
            self._dropped.labels(EXPORT_FAILED).inc(len(spans))
        return result

    def shutdown(self) -> None:
        self._inner.shutdown()

    def force_flush(self, timeout_millis: int = 30000) -> bool:
        return self._inner.force_flush(timeout_millis)


class CountingBatchSpanProcessor(BatchSpanProcessor):
    """The SDK's batch processor, counting the spans its full queue turns away (the SDK only
    logs them). It reads the queue of the pinned SDK's processor: tests/unit/test_tracing.py
    fills it, so a version that moves it fails there."""

    def __init__(self, exporter: SpanExporter, dropped: Counter) -> None:
        super().__init__(CountingExporter(exporter, dropped))
        self._dropped = dropped
        self._queue: Any = self._batch_processor._queue  # a bounded deque
        self._capacity: int = self._batch_processor._max_queue_size

    def on_end(self, span: ReadableSpan) -> None:
        if span.context is not None and span.context.trace_flags.sampled:
            if len(self._queue) >= self._capacity:
                self._dropped.labels(QUEUE_FULL).inc()
        super().on_end(span)

    def shutdown_within(self, timeout_ms: int) -> None:
        """Send what is queued, for at most `timeout_ms`, and stop the batch thread (the SDK's
        own `shutdown` waits up to 30 s for a collector that does not answer)."""
        self._batch_processor.shutdown(timeout_ms)


class WireSpanExporter(OTLPSpanExporter):
    """The SDK's OTLP/HTTP exporter (its transport, retries, headers, compression and TLS from
    the OTEL_EXPORTER_OTLP_* variables), with the batch written by gateway.spanwire: a third of
    the SDK encoder's cost. The pinned exporter keeps its transport in `_client`."""

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        if self._shutdown:
            return SpanExportResult.FAILURE
        sent = self._client.export(spanwire.encode(spans))
        return SpanExportResult.SUCCESS if sent.success else SpanExportResult.FAILURE


def _exporter(target: TraceTarget) -> SpanExporter:
    """The console exporter, or the OTLP exporter for the protocol; it reads the endpoint,
    headers, timeout, compression and certificates from the OTEL_EXPORTER_OTLP_* variables
    itself."""
    if isinstance(target, ConsoleTarget):
        return ConsoleSpanExporter(out=sys.stdout)  # the stdout of now (the default is import time's)
    if target.protocol == GRPC:
        from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import (  # noqa: PLC0415
            OTLPSpanExporter as GrpcExporter,
        )

        return GrpcExporter()
    return WireSpanExporter()


class Tracing:
    """The app's tracer, or nothing when tracing is off."""

    def __init__(
        self, provider: TracerProvider | None = None, processor: CountingBatchSpanProcessor | None = None
    ) -> None:
        self._processor = processor
        self._tracer: Tracer | None = provider.get_tracer("gateway") if provider is not None else None

    @classmethod
    def start(cls, target: TraceTarget | None, dropped: Counter, env: Mapping[str, str]) -> Tracing:
        """Tracing to `target` (off when None); the sampler comes from OTEL_TRACES_SAMPLER(_ARG)."""
        if target is None:
            return cls()
        resource = Resource.create({SERVICE_NAME: service_name(env)})
        provider = TracerProvider(resource=resource)
        processor = CountingBatchSpanProcessor(_exporter(target), dropped)
        provider.add_span_processor(processor)
        return cls(provider, processor)

    @property
    def on(self) -> bool:
        return self._tracer is not None

    def span(
        self, name: str, kind: SpanKind = SpanKind.INTERNAL, attributes: Mapping[str, Any] | None = None
    ) -> AbstractContextManager[Span | None]:
        """A child of the current span, ended with the `with` block (None when tracing is off).
        It is not made current: the gateway's children are leaves, and attaching a context
        costs a fifth of a span."""
        if self._tracer is None:
            return _OFF
        return self._tracer.start_span(name, kind=kind, attributes=attributes)

    def server_span(self, scope: Scope) -> AbstractContextManager[Span]:
        """The request's span, continuing the client's `traceparent`; only when on."""
        assert self._tracer is not None, "server_span needs tracing on"
        return self._tracer.start_as_current_span(
            scope["method"],  # renamed to `METHOD /route` once routing has matched
            context=client_context(scope),
            kind=SpanKind.SERVER,
            attributes={"http.request.method": scope["method"]},
        )

    def shutdown(self) -> None:
        """Send what is queued (for at most SHUTDOWN_FLUSH_MS) and stop the batch thread."""
        if self._processor is not None:
            self._processor.shutdown_within(SHUTDOWN_FLUSH_MS)


def client_context(scope: Scope) -> Context | None:
    """The W3C context the client sent (`traceparent`, `tracestate`), or None; a malformed
    one is ignored and the request starts its own trace."""
    carrier = {
        name.decode("latin-1"): value.decode("latin-1")
        for name, value in scope["headers"]
        if name in (b"traceparent", b"tracestate")
    }
    return _PROPAGATOR.extract(carrier) if carrier else None


def traceparent(context: SpanContext) -> str:
    """The W3C traceparent of a span context."""
    return f"00-{context.trace_id:032x}-{context.span_id:016x}-{context.trace_flags:02x}"


def triton_metadata(span: Span | None) -> dict[str, str] | None:
    """The gRPC metadata that carries `span`'s context to Triton: only for a sampled span,
    since Triton traces whatever arrives with a context (gateway.otlp)."""
    if span is None or not span.get_span_context().trace_flags.sampled:
        return None
    return {TRACEPARENT: traceparent(span.get_span_context())}


def trace_exemplar() -> dict[str, str] | None:
    """The exemplar labels that point a metric sample at the current (sampled) trace."""
    context = trace.get_current_span().get_span_context()
    return {"trace_id": f"{context.trace_id:032x}"} if context.trace_flags.sampled else None


class TraceMiddleware:
    """Runs every HTTP request inside its server span and names the trace on the response."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        tracing: Tracing | None = scope.get("state", {}).get("tracing")
        if scope["type"] != "http" or tracing is None or not tracing.on:
            await self.app(scope, receive, send)
            return
        with tracing.server_span(scope) as span:
            header = (TRACERESPONSE, traceparent(span.get_span_context()).encode())

            async def naming(message: Message) -> None:
                if message["type"] == "http.response.start":
                    message = {**message, "headers": [*message.get("headers", []), header]}
                await send(message)

            await self.app(scope, receive, naming)
