"""Session fixtures: one real local Triton and one real gateway over HTTP for the whole run."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from evaluation.support.servers import serve_gateway
from gateway.local_triton import LocalTriton
from gateway.settings import Settings

ALL_MODELS = ("mnist", "ocr", "ocr_line", "seal", "ocr_document", "seal_document")


@pytest.fixture(scope="session")
def triton() -> Iterator[LocalTriton]:
    server = LocalTriton()
    server.start()
    try:
        yield server
    finally:
        if not server.is_running():
            print(f"tritonserver died during the run; log tail:\n{server.log_tail()}")  # noqa: T201
        server.stop()


@pytest.fixture(scope="session")
def gateway_settings(triton: LocalTriton) -> Settings:
    return Settings(triton_url=triton.grpc_url, ready_models=ALL_MODELS)


@pytest.fixture(scope="session")
def gateway_url(gateway_settings: Settings) -> Iterator[str]:
    with serve_gateway(gateway_settings) as url:
        yield url


@pytest.fixture(scope="session")
def http(gateway_url: str) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=gateway_url, timeout=60) as client:
        yield client
