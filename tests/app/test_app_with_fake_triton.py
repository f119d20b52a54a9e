"""The HTTP contract with faults injected: a fake Triton client stands in for the real one.

Everything else (routing, uploads, error handler, metrics) is the real app, run through
TestClient as a context manager so that the lifespan runs.
"""

from __future__ import annotations

import asyncio
import io
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest
from fastapi.testclient import TestClient
from PIL import Image

from gateway.deps import get_triton
from gateway.errors import GatewayError, TritonUnavailable, UpstreamTimeout
from gateway.main import create_app
from gateway.settings import Settings
from gateway.triton import Inference, Parameters


def png() -> bytes:
    buffer = io.BytesIO()
    Image.new("L", (28, 28)).save(buffer, "PNG")
    return buffer.getvalue()


class FakeTriton:
    """Answers like Triton would, or raises the error it was told to, or waits."""

    def __init__(self) -> None:
        self.error: GatewayError | None = None
        self.delay_s = 0.0

    async def infer_image(
        self, model: str, image: bytes, outputs: Sequence[str], parameters: Parameters | None = None
    ) -> Inference:
        await asyncio.sleep(self.delay_s)
        if self.error is not None:
            raise self.error
        probabilities = np.eye(10, dtype=np.float32)[[7]]
        return Inference(model, "1", {"PROBABILITIES": probabilities})

    async def ready(self, models: Sequence[str]) -> list[str]:
        return ["triton unreachable: fake"] if self.error else []


@pytest.fixture
def fake() -> FakeTriton:
    return FakeTriton()


@pytest.fixture
def client(fake: FakeTriton) -> Iterator[TestClient]:
    app = create_app(Settings(max_in_flight=2, retry_after_s=5))
    app.dependency_overrides[get_triton] = lambda: fake
    with TestClient(app) as test_client:
        yield test_client


def test_success_shape(client: TestClient) -> None:
    response = client.post("/v1/mnist", files={"image": ("d.png", png(), "image/png")})
    assert response.status_code == 200
    body = response.json()
    assert body["label"] == 7 and len(body["probabilities"]) == 10
    assert body["model"] == {"name": "mnist", "version": "1"}


def test_raw_octet_stream_body_is_accepted(client: TestClient) -> None:
    response = client.post("/v1/mnist", content=png(), headers={"content-type": "application/octet-stream"})
    assert response.status_code == 200


@pytest.mark.parametrize(
    "error, status",
    [(TritonUnavailable("down", retry_after_s=5), 503), (UpstreamTimeout("slow"), 504)],
)
def test_upstream_errors_keep_the_one_shape(
    client: TestClient, fake: FakeTriton, error: GatewayError, status: int
) -> None:
    fake.error = error
    response = client.post("/v1/mnist", files={"image": ("d.png", png(), "image/png")})
    assert response.status_code == status
    assert response.json()["error"]["code"] == error.code
    assert client.get("/readyz").status_code == 503
    assert client.get("/healthz").status_code == 200


def test_in_flight_limit_answers_429_with_retry_after(client: TestClient, fake: FakeTriton) -> None:
    fake.delay_s = 0.5

    def post() -> tuple[int, str | None]:
        response = client.post("/v1/mnist", content=png(), headers={"content-type": "image/png"})
        return response.status_code, response.headers.get("retry-after")

    # Threads share the TestClient's one event loop, so the five requests overlap there.
    with ThreadPoolExecutor(max_workers=5) as pool:
        results = list(pool.map(lambda _: post(), range(5)))
    assert sorted(status for status, _ in results) == [200, 200, 429, 429, 429]
    assert all(retry == "5" for status, retry in results if status == 429)


def test_unknown_route_and_method_use_the_error_shape(client: TestClient) -> None:
    assert client.get("/nope").json()["error"]["code"] == "not_found"
    assert client.get("/v1/mnist").json()["error"]["code"] == "method_not_allowed"


def test_rejections_are_counted_by_reason(client: TestClient) -> None:
    client.post("/v1/mnist", files={"image": ("d.png", b"", "image/png")})
    metrics = client.get("/metrics").text
    assert 'gateway_rejections_total{reason="empty_upload"} 1.0' in metrics


def test_the_page_and_its_assets_are_served_by_the_gateway_itself(client: TestClient) -> None:
    page = client.get("/")
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    assets = [part.split('"')[0] for part in page.text.split('="/static/page/')[1:]]
    assert sorted(assets) == ["page.css", "page.js"]
    for asset in assets:
        assert client.get(f"/static/page/{asset}").status_code == 200
    assert "http" not in page.text.replace('href="/docs"', "")  # nothing from another host


def statuses(error: type[GatewayError]) -> set[int]:
    """The HTTP statuses of `error` and every error class under it."""
    return {error.status}.union(*(statuses(subclass) for subclass in error.__subclasses__()))


def test_every_inference_route_documents_every_status_the_gateway_answers(client: TestClient) -> None:
    answered = statuses(GatewayError) - {GatewayError.status}  # the base is never raised itself
    paths = client.get("/openapi.json").json()["paths"]
    operations = {f"{method} {path}": op for path, ops in paths.items() for method, op in ops.items()}
    inference = {name: op for name, op in operations.items() if " /v1/" in name}
    assert inference and {502, 503, 504} <= answered
    undocumented = {name: answered - set(map(int, op["responses"])) for name, op in inference.items()}
    assert not any(undocumented.values()), undocumented
