"""gateway.spanwire writes the message the SDK's OTLP encoder writes, for every kind of span
the gateway makes and a few it does not (which go to the SDK's encoder)."""

from __future__ import annotations

from collections.abc import Sequence

from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor, SpanExporter, SpanExportResult
from opentelemetry.trace import Link, SpanKind, Status, StatusCode

from gateway import spanwire
from gateway.tracing import client_context


class KeepingExporterFake(SpanExporter):
    def __init__(self) -> None:
        self.spans: list[ReadableSpan] = []

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        self.spans.extend(spans)
        return SpanExportResult.SUCCESS


def spans_of(*resources: Resource) -> list[ReadableSpan]:
    """What a request makes: a server span under a client's context, its children, an error."""
    kept = KeepingExporterFake()
    for resource in resources:
        provider = TracerProvider(resource=resource)
        provider.add_span_processor(SimpleSpanProcessor(kept))
        tracer = provider.get_tracer("gateway", "1.0", schema_url="https://opentelemetry.io/schemas/1.21.0")
        parent = client_context(
            {"headers": [(b"traceparent", b"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")]}
        )
        with tracer.start_as_current_span("POST /v1/seal", parent, SpanKind.SERVER) as server:
            server.set_attributes({"http.response.status_code": 502, "ratio": 0.25, "neg": -3, "ok": False})
            tracer.start_span("admission", attributes={"gateway.admitted": True}).end()
            try:
                with tracer.start_span("upload", attributes={"upload.format": "png 公章"}):
                    raise ValueError("a bad upload")
            except ValueError:
                pass
            call = tracer.start_span("triton seal", kind=SpanKind.CLIENT)
            call.set_status(Status(StatusCode.ERROR, "the model failed"))
            call.end()
        provider.get_tracer("other").start_span("a root span").end()
    return kept.spans


def same_message(spans: Sequence[ReadableSpan]) -> None:
    ours = ExportTraceServiceRequest.FromString(spanwire.encode(spans))
    sdk = ExportTraceServiceRequest.FromString(encode_spans(spans).SerializeToString())
    assert sum(len(s.spans) for r in ours.resource_spans for s in r.scope_spans) == len(spans)
    assert ours == sdk, f"{ours}\n!=\n{sdk}"


def test_the_gateways_spans_encode_as_the_sdk_encodes_them() -> None:
    spans = spans_of(Resource.create({"service.name": "seal-gateway"}))
    assert {s.name for s in spans} >= {"POST /v1/seal", "admission", "upload", "triton seal", "a root span"}
    assert any(s.events for s in spans)  # the upload's exception event
    spanwire._fast(spans)  # written here, not handed to the SDK's encoder
    same_message(spans)


def test_several_resources_and_scopes_are_grouped_as_the_sdk_groups_them() -> None:
    same_message(spans_of(Resource.create({"service.name": "a"}), Resource.create({"service.name": "b"})))


def test_what_it_does_not_write_goes_to_the_sdks_encoder() -> None:
    kept = KeepingExporterFake()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(kept))
    tracer = provider.get_tracer("t")
    first = tracer.start_span("with an array", attributes={"models": ("a", "b")})
    first.end()
    tracer.start_span("with a link", links=[Link(first.get_span_context())]).end()
    for span in kept.spans:
        same_message([span])
