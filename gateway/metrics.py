"""Prometheus metrics on an explicit registry, owned by the app (no global state).

Names follow gateway_<subsystem>_<name>_<unit>; labels come only from bounded sets: the
route template (or "unmatched"), method, status class, model name, outcome, rejection or error
code and the reason a span was dropped. The latency histograms carry the trace id of a traced
request as an exemplar; exemplars exist only in the OpenMetrics exposition, which a scraper gets
by asking for it (Prometheus does: `Accept: application/openmetrics-text`).
"""

from __future__ import annotations

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram
from prometheus_client.exposition import choose_encoder
from starlette.types import Scope

LATENCY_BUCKETS_S = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0)
SIZE_BUCKETS_BYTES = tuple(float(2**k) for k in range(8, 25, 2))  # 256 B .. 16 MiB
UNMATCHED_ROUTE = "unmatched"


class GatewayMetrics:
    """Every metric the gateway exports, registered on its own CollectorRegistry."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        self.request_duration = Histogram(
            "gateway_http_request_duration_seconds",
            "HTTP request latency, from first byte to response",
            ["route", "method", "status_class"],
            buckets=LATENCY_BUCKETS_S,
            registry=self.registry,
        )
        self.triton_duration = Histogram(
            "gateway_triton_request_duration_seconds",
            "Latency of one Triton inference call",
            ["model", "outcome"],
            buckets=LATENCY_BUCKETS_S,
            registry=self.registry,
        )
        self.in_flight = Gauge(
            "gateway_http_requests_in_flight", "HTTP requests being served", registry=self.registry
        )
        self.upload_size = Histogram(
            "gateway_upload_size_bytes",
            "Size of accepted image uploads",
            ["route"],
            buckets=SIZE_BUCKETS_BYTES,
            registry=self.registry,
        )
        self.document_pages = Counter(
            "gateway_document_pages",
            "PDF pages answered, by document model and outcome (ok, or the page's error code)",
            ["model", "outcome"],
            registry=self.registry,
        )
        self.rejections = Counter(
            "gateway_rejections_total",
            "Requests refused by the gateway, by reason",
            ["reason"],
            registry=self.registry,
        )

        self.spans_dropped = Counter(
            "gateway_tracing_spans_dropped_total",
            "Spans lost before reaching the trace collector: its queue was full, or the export failed",
            ["reason"],
            registry=self.registry,
        )

    def render(self, accept: str = "") -> tuple[bytes, str]:
        """The registry in the exposition format `accept` asks for (OpenMetrics, with
        exemplars, or Prometheus text), and its content type."""
        encoder, content_type = choose_encoder(accept)
        return encoder(self.registry), content_type


def route_template(scope: Scope) -> str:
    """The matched route's path template: bounded, unlike the raw path."""
    route = scope.get("route")
    return str(getattr(route, "path", UNMATCHED_ROUTE))
