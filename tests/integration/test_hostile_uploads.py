"""Hostile uploads against every inference endpoint of the real stack: a 4xx JSON error (or 200
for a valid image) for each, never a 5xx, and the service still ready afterwards.

The corpus is generated (tests.support.hostile); the gateway and Triton are the session's real
ones, so a lie a header tells that the gateway lets through is decoded for real by the models.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest

from gateway.settings import Settings
from tests.support.hostile import corpus, expected_status

pytestmark = pytest.mark.integration
ENDPOINTS = ("/v1/mnist", "/v1/ocr", "/v1/ocr?detect=false", "/v1/seal")
CLIENT_THREADS = 4
BOUNDARY = "hostileboundary42"


def is_error_json(response: httpx.Response) -> bool:
    body = response.json()
    return set(body) == {"error"} and body["error"]["status"] == response.status_code


def check(response: httpx.Response, name: str) -> str | None:
    """What is wrong with the answer to one hostile upload, or None."""
    if response.status_code >= 500:
        return f"{name}: {response.status_code} {response.text}"
    if response.status_code != 200 and not is_error_json(response):
        return f"{name}: {response.status_code} is not the JSON error shape: {response.text}"
    entry, route = name.split(" @ ")
    expected = expected_status(entry, route)
    if expected is not None and response.status_code != expected:
        return f"{name}: {response.status_code}, expected {expected}: {response.text}"
    return None


def test_every_hostile_file_gets_a_clear_answer_from_every_endpoint(
    http: httpx.Client, gateway_settings: Settings
) -> None:
    uploads = corpus(gateway_settings.max_pixels)

    def post(item: tuple[str, bytes, str]) -> str | None:
        name, data, route = item
        response = http.post(route, files={"image": ("upload", data, "application/octet-stream")})
        return check(response, f"{name} @ {route}")

    jobs = [(name, data, route) for name, data in uploads.items() for route in ENDPOINTS]
    with ThreadPoolExecutor(CLIENT_THREADS) as pool:
        problems = [problem for problem in pool.map(post, jobs) if problem]
    assert problems == []
    assert http.get("/readyz").status_code == 200


@pytest.mark.parametrize("route", ENDPOINTS)
def test_a_raw_body_that_lies_about_its_size_is_refused(http: httpx.Client, route: str) -> None:
    data = corpus(Settings().max_pixels)["gif claiming 65535 squared (30 bytes)"]
    response = http.post(route, content=data, headers={"content-type": "application/octet-stream"})
    assert response.status_code == 422 and response.json()["error"]["code"] == "invalid_image"


def multipart_body(data: bytes) -> bytes:
    head = f'--{BOUNDARY}\r\nContent-Disposition: form-data; name="image"; filename="d"\r\n\r\n'
    return head.encode() + data + f"\r\n--{BOUNDARY}--\r\n".encode()


@pytest.mark.parametrize("route", ENDPOINTS)
@pytest.mark.parametrize("cut", [10, 60, -20, -3])
def test_a_truncated_multipart_body_is_400(http: httpx.Client, route: str, cut: int) -> None:
    body = multipart_body(corpus(Settings().max_pixels)["valid tiff"])[:cut]
    headers = {"content-type": f"multipart/form-data; boundary={BOUNDARY}"}
    response = http.post(route, content=body, headers=headers)
    assert response.status_code == 400, response.text
    assert is_error_json(response)


@pytest.mark.parametrize("route", ENDPOINTS)
def test_a_body_over_the_byte_cap_is_413(http: httpx.Client, gateway_settings: Settings, route: str) -> None:
    data = b"\x89PNG\r\n\x1a\n" + b"\x00" * gateway_settings.max_upload_bytes
    response = http.post(route, content=data, headers={"content-type": "image/png"})
    assert response.status_code == 413 and is_error_json(response)
