"""API keys and request ids at the HTTP boundary, with a FAKE Triton client (tests.app)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from gateway.auth import is_allowed, load_keys
from gateway.deps import get_triton
from gateway.main import create_app
from gateway.settings import Settings
from tests.app.test_app_with_fake_triton import FakeTriton, png

KEY, FILE_KEY = "k-3f9a1c", "k-from-the-secret"


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    secret = tmp_path / "keys"
    secret.write_text(f"\n  {FILE_KEY}  \n\n")
    app = create_app(Settings(api_keys=(KEY,), api_keys_file=secret))
    app.dependency_overrides[get_triton] = FakeTriton
    with TestClient(app) as test_client:
        yield test_client


def post(client: TestClient, headers: dict[str, str]) -> int:
    return client.post("/v1/mnist", files={"image": ("d.png", png())}, headers=headers).status_code


@pytest.mark.parametrize(
    "headers",
    [{}, {"authorization": "Bearer wrong"}, {"authorization": KEY}, {"authorization": f"Basic {KEY}"},
     {"authorization": f"Bearer {KEY}x"}, {"authorization": "Bearer "}],
)  # fmt: skip
def test_v1_without_a_valid_key_is_401_json(client: TestClient, headers: dict[str, str]) -> None:
    response = client.post("/v1/mnist", files={"image": ("d.png", png())}, headers=headers)
    assert response.status_code == 401 and response.headers["www-authenticate"] == "Bearer"
    assert response.json()["error"]["code"] == "unauthorized"


def test_keys_from_the_list_and_the_file_both_work(client: TestClient) -> None:
    assert post(client, {"authorization": f"Bearer {KEY}"}) == 200
    assert post(client, {"authorization": f"bearer {FILE_KEY}"}) == 200


@pytest.mark.parametrize("path", ["/healthz", "/readyz", "/metrics", "/docs", "/openapi.json"])
def test_probes_scrapes_and_docs_stay_open(client: TestClient, path: str) -> None:
    assert client.get(path).status_code == 200


def test_no_keys_configured_means_open() -> None:
    app = create_app(Settings())
    app.dependency_overrides[get_triton] = FakeTriton
    with TestClient(app) as client:
        assert post(client, {}) == 200


def test_the_docs_declare_the_bearer_scheme_on_v1_only(client: TestClient) -> None:
    schema = client.get("/openapi.json").json()
    assert schema["components"]["securitySchemes"]["bearerAuth"]["scheme"] == "bearer"
    assert schema["paths"]["/v1/mnist"]["post"]["security"] == [{"bearerAuth": []}]
    assert "security" not in schema["paths"]["/readyz"]["get"]


def test_the_comparison_checks_every_key() -> None:
    keys = load_keys(("a", "bb"), None)
    assert is_allowed(b"bb", keys) and not is_allowed(b"b", keys) and not is_allowed(None, keys)


def test_a_request_id_is_echoed_or_generated(client: TestClient) -> None:
    given = client.get("/healthz", headers={"x-request-id": "client-id.42"})
    assert given.headers["x-request-id"] == "client-id.42"
    generated = {client.get("/healthz").headers["x-request-id"] for _ in range(3)}
    assert len(generated) == 3
    refused = client.post("/v1/mnist", files={"image": ("d.png", png())}, headers={"x-request-id": "r-1"})
    assert refused.status_code == 401 and refused.headers["x-request-id"] == "r-1"


def test_a_request_id_that_could_forge_log_lines_is_replaced(client: TestClient) -> None:
    response = client.get("/healthz", headers={"x-request-id": "evil\tINFO forged"})
    assert response.headers["x-request-id"] != "evil\tINFO forged"
    assert len(client.get("/healthz", headers={"x-request-id": "x" * 500}).headers["x-request-id"]) == 32
