"""API keys and request ids on the real stack: the real gateway over HTTP, the real Triton."""

from __future__ import annotations

import asyncio
import logging

import cv2
import httpx
import pytest

from evaluation.support.digits import load_mnist
from evaluation.support.servers import serve_gateway
from gateway.local_triton import LocalTriton
from gateway.metrics import GatewayMetrics
from gateway.requestid import RequestIdFilter, current_request_id
from gateway.settings import Settings
from gateway.triton import TritonClient

pytestmark = pytest.mark.integration
KEY = "integration-key-1"


def digit() -> bytes:
    images, _ = load_mnist("heldout")
    return cv2.imencode(".png", images[0])[1].tobytes()


def test_keys_guard_v1_and_leave_probes_open(gateway_settings: Settings) -> None:
    settings = gateway_settings.model_copy(update={"api_keys": (KEY,)})
    with serve_gateway(settings) as url, httpx.Client(base_url=url, timeout=60) as client:
        files = {"image": ("d.png", digit())}
        refused = client.post("/v1/mnist", files=files, headers={"x-request-id": "no-key-1"})
        assert refused.status_code == 401 and refused.json()["error"]["code"] == "unauthorized"
        assert refused.headers["x-request-id"] == "no-key-1"
        served = client.post("/v1/mnist", files=files, headers={"authorization": f"Bearer {KEY}"})
        assert served.status_code == 200 and len(served.headers["x-request-id"]) == 32
        for path in ("/healthz", "/readyz", "/metrics"):
            assert client.get(path).status_code == 200, path


def test_triton_answers_under_the_gateways_request_id(triton: LocalTriton) -> None:
    async def infer() -> str:
        client = TritonClient(triton.grpc_url, 30.0, GatewayMetrics(), 1)
        token = current_request_id.set("trace-me-7")
        try:
            return (await client.infer_image("mnist", digit(), ["PROBABILITIES"])).request_id
        finally:
            current_request_id.reset(token)
            await client.close()

    assert asyncio.run(infer()) == "trace-me-7"


def test_every_log_record_carries_the_request_id() -> None:
    record = logging.LogRecord("gateway", logging.INFO, __file__, 1, "hello", None, None)
    token = current_request_id.set("log-id-3")
    try:
        assert RequestIdFilter().filter(record) and record.request_id == "log-id-3"
    finally:
        current_request_id.reset(token)
