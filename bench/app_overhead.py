"""The gateway's own Python cost per request: the ASGI app driven in-process, Triton faked.

No sockets, no server, no Triton: the real app (middleware, routing, dependencies, streaming
multipart parse, header check, JSON) answers POST /v1/mnist with a fake Triton client that
returns fixed probabilities at once. CPU time per request (process_time, best of several
repeats) is steady on a busy machine, so each change to the hot path can be judged by it.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence
from typing import Any

import numpy as np

from bench.frontdoor import BOUNDARY, multipart_body
from gateway.admission import InFlightLimiter
from gateway.main import State, create_app
from gateway.metrics import GatewayMetrics
from gateway.settings import Settings
from gateway.tracing import Tracing
from gateway.triton import Inference, Parameters

REQUESTS = 2000
REPEATS = 5


class FakeTritonForBench:
    """Answers every inference at once with the same ten probabilities."""

    async def infer_image(
        self, model: str, image: bytes, outputs: Sequence[str], parameters: Parameters | None = None
    ) -> Inference:
        return Inference(model, "1", {"PROBABILITIES": np.full((1, 10), 0.1, np.float32)})


def _scope(state: State, body: bytes, content_type: str) -> dict[str, Any]:
    headers = [
        (b"host", b"bench"),
        (b"content-type", content_type.encode()),
        (b"content-length", b"%d" % len(body)),
    ]
    return {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "POST",
        "scheme": "http",
        "path": "/v1/mnist",
        "raw_path": b"/v1/mnist",
        "query_string": b"",
        "root_path": "",
        "headers": headers,
        "client": ("127.0.0.1", 1),
        "server": ("127.0.0.1", 80),
        "state": dict(state),
    }


async def _one(app: Any, state: State, body: bytes, content_type: str) -> int:
    """One request through the app; its status."""
    messages = [{"type": "http.request", "body": body, "more_body": False}]
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        return messages.pop() if messages else {"type": "http.disconnect"}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    await app(_scope(state, body, content_type), receive, send)
    return int(sent[0]["status"])


async def _serve(app: Any, state: State, body: bytes, content_type: str, requests: int) -> None:
    for _ in range(requests):
        if (status := await _one(app, state, body, content_type)) != 200:
            raise RuntimeError(f"the app answered {status}")


def cpu_us_per_request(
    body: bytes, content_type: str, requests: int = REQUESTS, repeats: int = REPEATS
) -> float:
    """Best-of-`repeats` CPU microseconds per request for this body."""
    settings = Settings()
    app = create_app(settings)
    state = State(
        settings=settings,
        metrics=GatewayMetrics(),
        triton=FakeTritonForBench(),  # type: ignore[typeddict-item]
        limiter=InFlightLimiter(settings.max_in_flight, settings.retry_after_s),
        tracing=Tracing(),  # off, as without OTEL_* variables
    )
    asyncio.run(_serve(app, state, body, content_type, max(1, requests // 10)))  # warm caches
    best = float("inf")
    for _ in range(repeats):
        start = time.process_time()
        asyncio.run(_serve(app, state, body, content_type, requests))
        best = min(best, time.process_time() - start)
    return 1e6 * best / requests


def run(image: bytes) -> str:
    rows = [
        (
            "multipart/form-data",
            cpu_us_per_request(multipart_body(image), f"multipart/form-data; boundary={BOUNDARY}"),
        ),
        ("application/octet-stream", cpu_us_per_request(image, "application/octet-stream")),
    ]
    lines = [
        f"### The gateway's own CPU per request (in-process, Triton faked, a {len(image)}-byte PNG)",
        "",
        "| body | CPU µs per request |",
        "|---|---|",
        *(f"| {kind} | {us:.0f} |" for kind, us in rows),
    ]
    return "\n".join(lines)
