"""What each HTTP request did, measured once and told three ways: the latency histogram (with
the request's trace as the exemplar of its bucket), one JSON log line on `gateway.access`
(gateway.logs), and the attributes of the request's span.

Pure ASGI, inside the trace middleware (so the request's span is current here) and outside
authentication and admission (so refusals are measured too). Probes and scrapes (`/healthz`,
`/readyz`, `/metrics`) are timed but not logged: one every few seconds from each prober says
nothing a reader wants.

A response's status is the one it started with, unless the app says it failed after that
(`report_failure`: a PDF's stream cut short after its 200), so that a stream's true outcome is
what the log, the metrics and the trace show.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass

from opentelemetry import trace
from opentelemetry.trace import Status, StatusCode
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from gateway.logs import FIELDS
from gateway.metrics import GatewayMetrics, route_template
from gateway.requestid import current_request_id
from gateway.tracing import trace_exemplar

access_log = logging.getLogger("gateway.access")
UNLOGGED_PATHS = frozenset({"/healthz", "/readyz", "/metrics"})
SERVER_ERROR = 500  # a status from here on marks the span as failed (4xx are the client's)
OUTCOME = "gateway.outcome"  # the scope's key for the request's `Outcome`


@dataclass
class Outcome:
    """What the app says of its response after it started: the status of a failure, if any."""

    failed_status: int | None = None


def report_failure(scope: Scope, status: int) -> None:
    """Record that the response of `scope`, already started, failed after all with `status`."""
    outcome: Outcome | None = scope.get(OUTCOME)
    if outcome is not None:  # None: not under ObserveMiddleware (a bare app in a test)
        outcome.failed_status = status


@dataclass(frozen=True)
class RequestRecord:
    """One finished request."""

    method: str
    route: str
    path: str
    status: int
    duration_s: float
    bytes_in: int
    bytes_out: int

    @property
    def status_class(self) -> str:
        return f"{self.status // 100}xx"


def log_request(record: RequestRecord) -> None:
    """The request's JSON access line (its ids come from gateway.logs)."""
    if not access_log.isEnabledFor(logging.INFO):
        return
    fields = {
        "method": record.method,
        "route": record.route,
        "status": record.status,
        "duration_ms": round(1000 * record.duration_s, 3),
        "bytes_in": record.bytes_in,
        "bytes_out": record.bytes_out,
    }
    access_log.info("request", extra={FIELDS: fields})


def describe_span(record: RequestRecord) -> None:
    """Name the request's span after its route and give it the outcome."""
    span = trace.get_current_span()
    if not span.is_recording():
        return
    span.update_name(f"{record.method} {record.route}")
    span.set_attributes(
        {
            "http.route": record.route,
            "http.response.status_code": record.status,
            "http.request.body.size": record.bytes_in,
            "http.response.body.size": record.bytes_out,
            "gateway.request_id": current_request_id.get(),
        }
    )
    if record.status >= SERVER_ERROR:
        span.set_status(Status(StatusCode.ERROR))


class ObserveMiddleware:
    """Times, sizes and counts every HTTP request, then reports it (see the module docstring)."""

    def __init__(self, app: ASGIApp, metrics: GatewayMetrics, traced: bool = False) -> None:
        self.app = app
        self.metrics = metrics
        self.traced = traced  # off: no exemplar, no span to describe, not even a context lookup

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        status, bytes_in, bytes_out = 500, 0, 0  # 500: the app died before starting a response

        async def counting_receive() -> Message:
            nonlocal bytes_in
            message = await receive()
            bytes_in += len(message.get("body", b""))
            return message

        async def recording_send(message: Message) -> None:
            nonlocal status, bytes_out
            if message["type"] == "http.response.start":
                status = message["status"]
            else:
                bytes_out += len(message.get("body", b""))
            await send(message)

        outcome = scope[OUTCOME] = Outcome()
        start = time.perf_counter()
        self.metrics.in_flight.inc()
        try:
            await self.app(scope, counting_receive, recording_send)
        finally:
            self.metrics.in_flight.dec()
            record = RequestRecord(
                scope["method"], route_template(scope), scope["path"], outcome.failed_status or status,
                time.perf_counter() - start, bytes_in, bytes_out,
            )  # fmt: skip
            self.report(record)

    def report(self, record: RequestRecord) -> None:
        labels = (record.route, record.method, record.status_class)
        exemplar = trace_exemplar() if self.traced else None
        self.metrics.request_duration.labels(*labels).observe(record.duration_s, exemplar)
        if self.traced:
            describe_span(record)
        if record.path not in UNLOGGED_PATHS:
            log_request(record)
