"""Tracing's pure parts: what the OTEL_* variables turn on, Triton's flags, the W3C headers,
the JSON log line, and the dropped-span count with FAKE exporters (a stuck one and a failing one)."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Sequence

import orjson
import pytest
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SpanExporter, SpanExportResult
from prometheus_client import CollectorRegistry, Counter

from gateway.logs import JsonFormatter, LogContextFilter
from gateway.otlp import CONSOLE, OtlpTarget, otlp_target, service_name, trace_target, triton_trace_args
from gateway.requestid import current_request_id
from gateway.tracing import (
    SHUTDOWN_FLUSH_MS,
    CountingBatchSpanProcessor,
    Tracing,
    client_context,
    traceparent,
    triton_metadata,
)

CLIENT_TRACEPARENT = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"


def test_tracing_is_off_unless_an_endpoint_is_named() -> None:
    assert otlp_target({}) is None
    assert otlp_target({"OTEL_SERVICE_NAME": "x", "OTEL_TRACES_SAMPLER": "always_on"}) is None
    assert otlp_target({"OTEL_EXPORTER_OTLP_ENDPOINT": "  "}) is None
    on = {"OTEL_EXPORTER_OTLP_ENDPOINT": "http://jaeger:4318"}
    assert otlp_target(on) == OtlpTarget("http://jaeger:4318", False, "http/protobuf")
    assert otlp_target({**on, "OTEL_SDK_DISABLED": "true"}) is None
    assert otlp_target({**on, "OTEL_TRACES_EXPORTER": "none"}) is None


def test_the_traces_exporter_is_otlp_console_or_none_and_nothing_else() -> None:
    on = {"OTEL_EXPORTER_OTLP_ENDPOINT": "http://jaeger:4318"}
    assert otlp_target({**on, "OTEL_TRACES_EXPORTER": "otlp"}) == otlp_target(on)
    assert otlp_target({**on, "OTEL_TRACES_EXPORTER": "console"}) is None  # nothing goes out as OTLP
    assert trace_target({"OTEL_TRACES_EXPORTER": " Console "}) == CONSOLE
    assert trace_target({**on, "OTEL_TRACES_EXPORTER": "console", "OTEL_SDK_DISABLED": "true"}) is None
    assert trace_target(on) == otlp_target(on) and trace_target({}) is None
    for other in ("zipkin", "jaeger", "otlp,console", "logging"):
        with pytest.raises(ValueError, match=f"OTEL_TRACES_EXPORTER={other!r}.*otlp, console or none"):
            trace_target({**on, "OTEL_TRACES_EXPORTER": other})


def test_the_traces_endpoint_is_a_whole_url_and_wins() -> None:
    target = otlp_target(
        {
            "OTEL_EXPORTER_OTLP_ENDPOINT": "http://a:4318/",
            "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://b:4318/custom",
        }
    )
    assert target is not None and target.traces_url == "http://b:4318/custom"
    base = otlp_target({"OTEL_EXPORTER_OTLP_ENDPOINT": "http://a:4318/"})
    assert base is not None and base.traces_url == "http://a:4318/v1/traces"


def test_a_protocol_the_gateway_cannot_speak_fails_at_start() -> None:
    env = {"OTEL_EXPORTER_OTLP_ENDPOINT": "http://a:4318", "OTEL_EXPORTER_OTLP_PROTOCOL": "http/json"}
    with pytest.raises(ValueError, match="http/json"):
        otlp_target(env)
    grpc = otlp_target({**env, "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"})
    assert grpc is not None and grpc.protocol == "grpc"


def test_triton_traces_only_what_arrives_with_a_context_to_the_http_url() -> None:
    args = triton_trace_args(OtlpTarget("http://jaeger:4318", False, "http/protobuf"), "triton-a")
    settings = args[1::2]
    assert set(args[::2]) == {"--trace-config"}
    assert {"mode=opentelemetry", "rate=0", "level=TIMESTAMPS", "count=-1"} <= set(settings)
    assert "opentelemetry,url=http://jaeger:4318/v1/traces" in settings
    assert "opentelemetry,resource=service.name=triton-a" in settings
    assert triton_trace_args(None) == ()
    assert triton_trace_args(OtlpTarget("http://jaeger:4317", False, "grpc")) == ()  # Triton: HTTP only


def test_the_service_name_comes_from_otel_service_name() -> None:
    assert service_name({}) == "seal-gateway"
    assert service_name({"OTEL_SERVICE_NAME": "edge"}) == "edge"


def test_a_clients_traceparent_is_continued_and_a_bad_one_ignored() -> None:
    from opentelemetry import trace

    scope = {"headers": [(b"traceparent", CLIENT_TRACEPARENT.encode())]}
    context = trace.get_current_span(client_context(scope)).get_span_context()
    assert traceparent(context) == CLIENT_TRACEPARENT
    for bad in (b"00-xyz", b"00-00000000000000000000000000000000-00f067aa0ba902b7-01"):
        span = trace.get_current_span(client_context({"headers": [(b"traceparent", bad)]}))
        assert not span.get_span_context().is_valid
    assert client_context({"headers": []}) is None


def test_triton_gets_a_context_only_for_a_sampled_span() -> None:
    from opentelemetry.sdk.trace.sampling import ALWAYS_OFF, ALWAYS_ON

    for sampler, expected in ((ALWAYS_ON, True), (ALWAYS_OFF, False)):
        with TracerProvider(sampler=sampler).get_tracer("t").start_as_current_span("call") as span:
            metadata = triton_metadata(span)
            assert (metadata is not None) is expected
            if metadata:
                assert metadata["traceparent"] == traceparent(span.get_span_context())
    assert triton_metadata(None) is None


def test_a_log_line_is_json_with_the_requests_ids() -> None:
    record = logging.LogRecord("gateway.access", logging.INFO, __file__, 1, "request", None, None)
    record.fields = {"status": 200}
    token = current_request_id.set("req-9")
    try:
        with TracerProvider().get_tracer("t").start_as_current_span("s") as span:
            assert LogContextFilter().filter(record)
    finally:
        current_request_id.reset(token)
    line = orjson.loads(JsonFormatter().format(record))
    assert line["request_id"] == "req-9" and line["status"] == 200 and line["message"] == "request"
    assert line["trace_id"] == f"{span.get_span_context().trace_id:032x}"
    outside = logging.LogRecord("x", logging.INFO, __file__, 1, "m", None, None)
    LogContextFilter().filter(outside)
    assert orjson.loads(JsonFormatter().format(outside))["trace_id"] is None


class StuckExporterFake(SpanExporter):
    """A collector that never answers: the first export blocks until released."""

    def __init__(self) -> None:
        self.release = threading.Event()

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        self.release.wait(10)
        return SpanExportResult.SUCCESS


class FailingExporterFake(SpanExporter):
    """A collector that is down."""

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        return SpanExportResult.FAILURE


def dropped_counter() -> Counter:
    return Counter("dropped", "d", ["reason"], registry=CollectorRegistry())


def test_spans_turned_away_by_a_full_queue_are_counted_with_fake_stuck_exporter(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("OTEL_BSP_MAX_QUEUE_SIZE", "8")
    monkeypatch.setenv("OTEL_BSP_MAX_EXPORT_BATCH_SIZE", "4")
    exporter, dropped = StuckExporterFake(), dropped_counter()
    processor = CountingBatchSpanProcessor(exporter, dropped)
    provider = TracerProvider()
    provider.add_span_processor(processor)
    tracer = provider.get_tracer("t")
    for _ in range(40):  # the first batch is stuck in export; the queue holds 8 more at most
        tracer.start_span("s").end()
    lost = dropped.labels("queue_full")._value.get()
    exporter.release.set()
    processor.shutdown()
    assert 40 - 8 - 4 <= lost <= 40 - 8


def test_spans_of_a_failed_export_are_counted_with_fake_failing_exporter() -> None:
    dropped = dropped_counter()
    processor = CountingBatchSpanProcessor(FailingExporterFake(), dropped)
    provider = TracerProvider()
    provider.add_span_processor(processor)
    for _ in range(3):
        provider.get_tracer("t").start_span("s").end()
    processor.force_flush()
    assert dropped.labels("export_failed")._value.get() == 3
    processor.shutdown()


def test_shutdown_does_not_wait_long_for_a_collector_that_never_answers_with_fake_stuck_exporter() -> None:
    exporter = StuckExporterFake()
    processor = CountingBatchSpanProcessor(exporter, dropped_counter())
    provider = TracerProvider()
    provider.add_span_processor(processor)
    tracing = Tracing(provider, processor)
    with tracing.span("s"):
        pass
    started = time.monotonic()
    tracing.shutdown()  # the stuck export holds the batch thread
    assert time.monotonic() - started < SHUTDOWN_FLUSH_MS / 1000 + 1
    exporter.release.set()


def test_serve_and_triton_give_triton_the_flags_of_the_same_variables(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    from gateway.__main__ import _tracing_args

    monkeypatch.delenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", raising=False)
    monkeypatch.delenv("OTEL_EXPORTER_OTLP_ENDPOINT", raising=False)
    assert _tracing_args("triton") == ()
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://collector:4318")
    assert _tracing_args("triton") == triton_trace_args(otlp_target(), "triton")
    assert "opentelemetry,url=http://collector:4318/v1/traces" in _tracing_args("triton")
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_PROTOCOL", "grpc")
    with caplog.at_level(logging.WARNING):
        assert _tracing_args("triton") == ()
    assert "OTLP/HTTP only" in caplog.text
