"""Admission control: past `max_in_flight` inference requests, new ones get 429 at once.

It is pure ASGI middleware in front of the routes rather than a FastAPI dependency, so that a
refused request costs no body read, no multipart parse and no dependency resolution: under
overload the gateway sheds load before spending CPU on it.
"""

from __future__ import annotations

from starlette.types import ASGIApp, Receive, Scope, Send

from gateway.errors import Overloaded, error_response

INFERENCE_PREFIX = "/v1/"


class InFlightLimiter:
    """Counts inference requests in progress (one event loop per process: no lock needed)."""

    def __init__(self, limit: int, retry_after_s: int) -> None:
        self.limit, self.retry_after_s, self.current = limit, retry_after_s, 0

    def refusal(self) -> Overloaded | None:
        """The error to answer with when full, else None."""
        if self.current < self.limit:
            return None
        return Overloaded(f"more than {self.limit} requests in flight", retry_after_s=self.retry_after_s)


class AdmissionMiddleware:
    """Holds one limiter slot for the whole of every inference request."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not scope["path"].startswith(INFERENCE_PREFIX):
            await self.app(scope, receive, send)
            return
        state = scope["state"]  # the lifespan's State (gateway.main), copied per request
        limiter: InFlightLimiter = state["limiter"]
        with state["tracing"].span("admission") as span:
            refusal = limiter.refusal()
            if span is not None:
                admitted = refusal is None
                span.set_attributes({"gateway.in_flight": limiter.current, "gateway.admitted": admitted})
        if refusal is not None:
            state["metrics"].rejections.labels(refusal.code).inc()
            response = error_response(refusal.status, refusal.code, refusal.message, refusal.retry_after_s)
            await response(scope, receive, send)
            return
        limiter.current += 1
        try:
            await self.app(scope, receive, send)
        finally:
            limiter.current -= 1
