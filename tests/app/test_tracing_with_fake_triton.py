"""Tracing and the access log through the real app, with a FAKE Triton client (the real
stack's traces are in tests/integration/test_tracing.py) and real OTLP receivers (HTTP, gRPC)."""

from __future__ import annotations

import logging
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import grpc
import pytest
from fastapi.testclient import TestClient
from opentelemetry.proto.collector.trace.v1 import trace_service_pb2_grpc
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)
from opentelemetry.proto.trace.v1.trace_pb2 import Status

from evaluation.support.otlp import OtlpReceiver, ReceivedSpan, otlp_receiver
from gateway.deps import get_triton
from gateway.errors import TritonUnavailable
from gateway.logs import LogContextFilter
from gateway.main import create_app
from gateway.settings import Settings
from tests.app.test_app_with_fake_triton import FakeTriton, png
from tests.app.test_documents_with_fake_triton import NDJSON, PDF, FakeDocumentTriton, count, page

TRACE, SPAN = "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"
TIMEOUT_S = 10.0
ERROR = Status.STATUS_CODE_ERROR


@pytest.fixture
def receiver(monkeypatch: pytest.MonkeyPatch) -> Iterator[OtlpReceiver]:
    with otlp_receiver() as receiver:
        monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", receiver.url)
        monkeypatch.setenv("OTEL_BSP_SCHEDULE_DELAY", "50")
        yield receiver


def client_for(settings: Settings) -> TestClient:
    app = create_app(settings)
    app.dependency_overrides[get_triton] = FakeTriton
    return TestClient(app)


def wait(receiver: OtlpReceiver, name: str) -> list[ReceivedSpan]:
    return receiver.wait_for(TRACE, lambda spans: name in {s.name for s in spans}, TIMEOUT_S)


def test_the_clients_trace_is_continued_and_named_in_the_response(receiver: OtlpReceiver) -> None:
    with client_for(Settings()) as client:
        response = client.post(
            "/v1/mnist", files={"image": ("d.png", png())}, headers={"traceparent": f"00-{TRACE}-{SPAN}-01"}
        )
    assert response.status_code == 200
    assert response.headers["traceresponse"].startswith(f"00-{TRACE}-")
    spans = wait(receiver, "POST /v1/mnist")
    (server,) = [s for s in spans if s.name == "POST /v1/mnist"]
    assert server.parent_id == SPAN and server.service == "seal-gateway"
    assert {"admission", "upload"} <= {s.name for s in spans if s.parent_id == server.span_id}


def test_the_console_exporter_prints_the_spans_and_sends_none(
    receiver: OtlpReceiver, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("OTEL_TRACES_EXPORTER", "console")
    with client_for(Settings()) as client:  # leaving it shuts the tracing down: its spans are out
        response = client.post(
            "/v1/mnist", files={"image": ("d.png", png())}, headers={"traceparent": f"00-{TRACE}-{SPAN}-01"}
        )
    assert response.status_code == 200 and response.headers["traceresponse"].startswith(f"00-{TRACE}-")
    printed = capsys.readouterr().out
    assert f'"trace_id": "0x{TRACE}"' in printed and '"name": "POST /v1/mnist"' in printed
    assert receiver.trace(TRACE) == []


def test_a_refused_request_has_its_trace_too(receiver: OtlpReceiver) -> None:
    with client_for(Settings(api_keys=("k",))) as client:
        response = client.post("/v1/mnist", content=png(), headers={"traceparent": f"00-{TRACE}-{SPAN}-01"})
    assert response.status_code == 401 and response.headers["traceresponse"].startswith(f"00-{TRACE}-")
    (server,) = wait(receiver, "POST unmatched")  # refused before routing
    assert server.attributes["http.response.status_code"] == 401


def test_a_stream_cut_short_marks_its_span_with_its_error(receiver: OtlpReceiver) -> None:
    fake = FakeDocumentTriton()
    fake.script = [(0, count(2)), (0, page(1)), (0, TritonUnavailable("gone", retry_after_s=1))]
    app = create_app(Settings())
    app.dependency_overrides[get_triton] = lambda: fake
    with TestClient(app) as client:
        response = client.post(
            "/v1/seal",
            files={"image": ("a.pdf", PDF, "application/pdf")},
            headers={**NDJSON, "traceparent": f"00-{TRACE}-{SPAN}-01"},
        )
    assert response.status_code == 200
    (server,) = [s for s in wait(receiver, "POST /v1/seal") if s.name == "POST /v1/seal"]
    assert server.attributes["http.response.status_code"] == 503 and server.status == ERROR


def test_one_json_access_line_per_request_with_its_ids(
    receiver: OtlpReceiver, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.handler.addFilter(LogContextFilter())  # as `python -m gateway` sets up its handler
    with caplog.at_level(logging.INFO, "gateway.access"), client_for(Settings()) as client:
        response = client.post(
            "/v1/mnist", files={"image": ("d.png", png())}, headers={"X-Request-ID": "abc-1"}
        )
        client.get("/healthz")  # probes are not logged
    (record,) = [r for r in caplog.records if r.name == "gateway.access"]
    fields = record.fields  # type: ignore[attr-defined]
    assert fields["route"] == "/v1/mnist" and fields["status"] == 200 and fields["method"] == "POST"
    assert fields["bytes_in"] > len(png()) and fields["bytes_out"] == len(response.content)
    assert record.request_id == "abc-1"  # type: ignore[attr-defined]
    assert response.headers["traceresponse"].split("-")[1] == record.trace_id  # type: ignore[attr-defined]


def test_without_otel_variables_nothing_is_traced(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OTEL_EXPORTER_OTLP_ENDPOINT", raising=False)
    monkeypatch.delenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", raising=False)
    with client_for(Settings()) as client:
        response = client.post(
            "/v1/mnist", files={"image": ("d.png", png())}, headers={"traceparent": f"00-{TRACE}-{SPAN}-01"}
        )
    assert response.status_code == 200 and "traceresponse" not in response.headers


class GrpcTraceReceiver(trace_service_pb2_grpc.TraceServiceServicer):
    """A real OTLP/gRPC trace receiver (opentelemetry-proto's service) on a loopback port."""

    def __init__(self) -> None:
        self.names: list[str] = []

    def Export(self, request: ExportTraceServiceRequest, context: object) -> ExportTraceServiceResponse:  # noqa: N802
        for resource_spans in request.resource_spans:
            self.names += [span.name for scope in resource_spans.scope_spans for span in scope.spans]
        return ExportTraceServiceResponse()


def test_the_grpc_protocol_exports_over_grpc(monkeypatch: pytest.MonkeyPatch) -> None:
    receiver = GrpcTraceReceiver()
    server = grpc.server(ThreadPoolExecutor(2))
    trace_service_pb2_grpc.add_TraceServiceServicer_to_server(receiver, server)
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", f"http://127.0.0.1:{port}")
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_PROTOCOL", "grpc")
    monkeypatch.setenv("OTEL_BSP_SCHEDULE_DELAY", "50")
    try:
        with client_for(Settings()) as client:
            assert client.post("/v1/mnist", files={"image": ("d.png", png())}).status_code == 200
            deadline = time.monotonic() + TIMEOUT_S
            while "POST /v1/mnist" not in receiver.names and time.monotonic() < deadline:
                time.sleep(0.05)
    finally:
        server.stop(None)
    assert {"POST /v1/mnist", "admission", "upload"} <= set(receiver.names)
