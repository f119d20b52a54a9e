"""Prometheus metrics on an explicit registry, owned by the app (no global state).

Names follow gateway_<subsystem>_<name>_<unit>; labels come only from bounded sets: the
route template (or "unmatched"), method, status class, model name, outcome, and rejection code.
"""

from __future__ import annotations

import time

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest
from starlette.types import ASGIApp, Message, Receive, Scope, Send

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
        self.rejections = Counter(
            "gateway_rejections_total",
            "Requests refused by the gateway, by reason",
            ["reason"],
            registry=self.registry,
        )

    def render(self) -> bytes:
        """The Prometheus text exposition of the registry."""
        return generate_latest(self.registry)


def route_template(scope: Scope) -> str:
    """The matched route's path template: bounded, unlike the raw path."""
    route = scope.get("route")
    return str(getattr(route, "path", UNMATCHED_ROUTE))


class MetricsMiddleware:
    """Pure ASGI middleware timing every HTTP request and counting those in flight."""

    def __init__(self, app: ASGIApp, metrics: GatewayMetrics) -> None:
        self.app = app
        self.metrics = metrics

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        status = 500  # what the client sees if the app dies before starting a response

        async def send_with_status(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)

        start = time.perf_counter()
        self.metrics.in_flight.inc()
        try:
            await self.app(scope, receive, send_with_status)
        finally:
            self.metrics.in_flight.dec()
            labels = (route_template(scope), scope["method"], f"{status // 100}xx")
            self.metrics.request_duration.labels(*labels).observe(time.perf_counter() - start)
