"""The app factory: wires settings, the Triton client, metrics, routes and error handling.

Nothing connects at import time; the lifespan opens the one gRPC client and closes it.
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import TypedDict

from fastapi import FastAPI

from gateway.admission import AdmissionMiddleware, InFlightLimiter
from gateway.auth import ApiKeyMiddleware, install_api_key_docs, load_keys
from gateway.disconnect import CancelOnDisconnect
from gateway.docs import install_offline_docs
from gateway.errors import install_error_handlers
from gateway.lifecycle import CloseWhileDraining, Lifecycle
from gateway.metrics import GatewayMetrics
from gateway.observe import ObserveMiddleware
from gateway.otlp import trace_target
from gateway.page import install_page
from gateway.requestid import RequestIdMiddleware
from gateway.routers import health, mnist, ocr, seal
from gateway.settings import Settings
from gateway.tracing import TraceMiddleware, Tracing
from gateway.triton import TritonClient

TITLE = "Seal gateway"
DESCRIPTION = (
    "Image recognition on NVIDIA Triton: handwritten digits (MNIST), text OCR (PP-OCRv4) and "
    "Chinese seal recognition. Upload an image as multipart field `image` or as a raw body."
)


class State(TypedDict):
    """What every request can reach through `request.state` (see gateway.deps)."""

    settings: Settings
    metrics: GatewayMetrics
    triton: TritonClient
    limiter: InFlightLimiter
    lifecycle: Lifecycle
    tracing: Tracing


def create_app(settings: Settings | None = None, lifecycle: Lifecycle | None = None) -> FastAPI:
    """Build the ASGI app; resources are opened by its lifespan, not here. `lifecycle` is
    shared with the server that runs it (see gateway.lifecycle)."""
    settings = settings or Settings()
    lifecycle = lifecycle or Lifecycle()
    metrics = GatewayMetrics()
    target = trace_target()  # read now: an exporter or protocol the gateway lacks fails here

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[State]:
        tracing = Tracing.start(target, metrics.spans_dropped, os.environ)
        triton = TritonClient(
            settings.triton_url,
            settings.request_timeout_s,
            metrics,
            settings.retry_after_s,
            tracing,
            max_upload_bytes=settings.largest_upload_bytes,
        )
        limiter = InFlightLimiter(settings.max_in_flight, settings.retry_after_s)
        try:
            yield State(
                settings=settings, metrics=metrics, triton=triton, limiter=limiter,
                lifecycle=lifecycle, tracing=tracing,
            )  # fmt: skip
        finally:
            await triton.close()
            tracing.shutdown()

    app = FastAPI(
        title=TITLE,
        description=DESCRIPTION,
        version="0.1.0",
        lifespan=lifespan,
        docs_url=None,
        redoc_url=None,
        # The gateway makes its own spans (gateway.tracing) and metrics; FastAPI's OpenTelemetry
        # hooks would add a span per dependency and cost a provider lookup per request.
        telemetry={"tracing": False, "metrics": False, "logs": False},
    )
    # Outermost last: an id and a trace on every response; refusals timed, logged and in the
    # trace; no slot for a request without a key.
    app.add_middleware(CancelOnDisconnect)  # innermost: what is outside sees it end as 499
    app.add_middleware(AdmissionMiddleware)
    app.add_middleware(ApiKeyMiddleware, keys=load_keys(settings.api_keys, settings.api_keys_file))
    app.add_middleware(ObserveMiddleware, metrics=metrics, traced=target is not None)
    app.add_middleware(CloseWhileDraining, lifecycle=lifecycle)
    if target is not None:  # off: not even a layer to pass through
        app.add_middleware(TraceMiddleware)
    app.add_middleware(RequestIdMiddleware)
    install_error_handlers(app)
    install_offline_docs(app)
    install_page(app)
    install_api_key_docs(app)
    for router in (health.router, mnist.router, ocr.router, seal.router):
        app.include_router(router)
    return app
