"""A real OTLP/HTTP trace receiver on a loopback port, for the tracing tests and the benchmark.

Every export is decoded into opentelemetry-proto's `ExportTraceServiceRequest`: protobuf as
the gateway's Python SDK sends it, or OTLP JSON as Triton's C++ exporter does (its ids are hex
strings, which the protobuf JSON mapping reads as base64: they are turned over first). The
spans are kept, flattened, with the service that sent them; or, for a benchmark, only counted
by name (`keep=False`), which skips the slow protobuf JSON mapping: a collector's work is not
what a benchmark of the gateway measures.
"""

from __future__ import annotations

import base64
import collections
import json
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from google.protobuf import json_format
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)
from opentelemetry.proto.common.v1.common_pb2 import AnyValue

ID_FIELDS = ("traceId", "spanId", "parentSpanId")
WAIT_POLL_S = 0.1


@dataclass(frozen=True)
class ReceivedSpan:
    service: str
    name: str
    trace_id: str  # hex, as traceparent writes it
    span_id: str
    parent_id: str  # "" for a root span
    kind: int
    attributes: dict[str, Any]
    events: tuple[str, ...]
    status: int = 0  # the span's status code: 0 unset, 1 ok, 2 error


def _value(value: AnyValue) -> Any:
    kind = value.WhichOneof("value")
    return getattr(value, kind) if kind else None


def _hex_ids_to_base64(node: Any) -> None:
    if isinstance(node, dict):
        for key, value in node.items():
            if key in ID_FIELDS and isinstance(value, str):
                node[key] = base64.b64encode(bytes.fromhex(value)).decode()
            else:
                _hex_ids_to_base64(value)
    elif isinstance(node, list):
        for item in node:
            _hex_ids_to_base64(item)


def decode(body: bytes, content_type: str) -> ExportTraceServiceRequest:
    """One OTLP/HTTP trace export, protobuf or JSON."""
    request = ExportTraceServiceRequest()
    if content_type.startswith("application/json"):
        tree = json.loads(body)
        _hex_ids_to_base64(tree)
        json_format.ParseDict(tree, request, ignore_unknown_fields=True)
    else:
        request.ParseFromString(body)
    return request


def span_names(body: bytes, content_type: str) -> list[str]:
    """The names of the spans in one export, read the cheap way."""
    if content_type.startswith("application/json"):
        tree = json.loads(body)
        return [
            span["name"]
            for resource_spans in tree.get("resourceSpans", [])
            for scope_spans in resource_spans.get("scopeSpans", [])
            for span in scope_spans.get("spans", [])
        ]
    request = ExportTraceServiceRequest.FromString(body)
    return [span.name for rs in request.resource_spans for ss in rs.scope_spans for span in ss.spans]


def flatten(request: ExportTraceServiceRequest) -> list[ReceivedSpan]:
    spans = []
    for resource_spans in request.resource_spans:
        resource = {a.key: _value(a.value) for a in resource_spans.resource.attributes}
        for scope_spans in resource_spans.scope_spans:
            for span in scope_spans.spans:
                spans.append(
                    ReceivedSpan(
                        service=str(resource.get("service.name", "")),
                        name=span.name,
                        trace_id=span.trace_id.hex(),
                        span_id=span.span_id.hex(),
                        parent_id=span.parent_span_id.hex(),
                        kind=span.kind,
                        attributes={a.key: _value(a.value) for a in span.attributes},
                        events=tuple(event.name for event in span.events),
                        status=span.status.code,
                    )
                )
    return spans


class OtlpReceiver:
    """Collects the spans exported to `url` (OTLP/HTTP, `/v1/traces`) until stopped."""

    def __init__(self, keep: bool = True) -> None:
        self.spans: list[ReceivedSpan] = []
        self.counts: collections.Counter[str] = collections.Counter()  # span name -> spans received
        self.exports = 0
        self._keep = keep
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - http.server's name
                body = self.rfile.read(int(self.headers.get("content-length", 0)))
                receiver.receive(body, self.headers.get("content-type", ""))
                reply = ExportTraceServiceResponse().SerializeToString()
                self.send_response(200)
                self.send_header("content-type", "application/x-protobuf")
                self.send_header("content-length", str(len(reply)))
                self.end_headers()
                self.wfile.write(reply)

            def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - quiet
                pass

        return Handler

    def receive(self, body: bytes, content_type: str) -> None:
        spans = flatten(decode(body, content_type)) if self._keep else []
        names = [span.name for span in spans] if self._keep else span_names(body, content_type)
        with self._lock:
            self.spans.extend(spans)
            self.counts.update(names)
            self.exports += 1

    def start(self) -> OtlpReceiver:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def trace(self, trace_id: str) -> list[ReceivedSpan]:
        with self._lock:
            return [span for span in self.spans if span.trace_id == trace_id]

    def wait_for(
        self, trace_id: str, done: Callable[[list[ReceivedSpan]], bool], timeout_s: float
    ) -> list[ReceivedSpan]:
        """The trace's spans once `done` says they are all there, or whatever came in time."""
        deadline = time.monotonic() + timeout_s
        while not done(spans := self.trace(trace_id)) and time.monotonic() < deadline:
            time.sleep(WAIT_POLL_S)
        return spans


@contextmanager
def otlp_receiver(keep: bool = True) -> Iterator[OtlpReceiver]:
    receiver = OtlpReceiver(keep).start()
    try:
        yield receiver
    finally:
        receiver.stop()
