"""A PDF's pages streamed as NDJSON through the real stack (REAL Triton, the real decoupled
document models, the real gateway over HTTP): each page's line as soon as it is read, a
failed page's error while the others still come, a slow page past its deadline, a client
that hangs up mid-stream, and the caps that keep a document's cost bounded."""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
import tritonclient.grpc as grpcclient
from PIL import Image

from evaluation.support.servers import serve_gateway
from gateway.local_triton import LocalTriton
from gateway.settings import Settings
from tests.integration.test_cancellation import cancelled_in_triton
from tests.support.hostile import (
    A4_POINTS,
    blank_pdf,
    deep_page_tree_pdf,
    flate_bomb_pdf,
    nested_pdf,
    one_page_pdf,
    stream_object,
)
from tests.support.seal_pages import as_pdf, seal_grid

pytestmark = pytest.mark.integration
NDJSON = {"Accept": "application/x-ndjson"}
TIMEOUT_S = 600


def page_of_seals(rows: int, cols: int) -> Image.Image:
    return Image.fromarray(seal_grid(rows, cols)[..., ::-1])


@pytest.fixture(scope="module")
def two_seals() -> Image.Image:
    return page_of_seals(1, 2)


def pdf_upload(data: bytes) -> dict[str, tuple[str, bytes, str]]:
    return {"image": ("scan.pdf", data, "application/pdf")}


def streamed(url: str, route: str, pdf: bytes, **headers: str) -> list[tuple[float, dict[str, Any]]]:
    """Each NDJSON line with the seconds from the request to its arrival."""
    start, lines = time.monotonic(), []
    with httpx.stream(
        "POST", url + route, files=pdf_upload(pdf), headers={**NDJSON, **headers}, timeout=TIMEOUT_S
    ) as response:
        assert response.status_code == 200, response.read()
        assert response.headers["content-type"] == "application/x-ndjson"
        for line in response.iter_lines():
            lines.append((time.monotonic() - start, json.loads(line)))
    return lines


def test_pages_stream_as_they_are_read_and_match_the_json_answer(
    gateway_url: str, http: httpx.Client, two_seals: Image.Image
) -> None:
    pdf = as_pdf([two_seals] * 6)
    lines = streamed(gateway_url, "/v1/seal", pdf)
    (_, first), *pages, (end_s, last) = lines
    assert first == {"pages": 6, "model": {"name": "seal_document", "version": "1"}}
    assert last == {"done": True, "pages": 6, "failed": 0, "expected": [], "model": first["model"]}
    assert sorted(page["page"] for _, page in pages) == [1, 2, 3, 4, 5, 6]
    first_page_s = pages[0][0]
    assert first_page_s < 0.6 * end_s, (first_page_s, end_s)  # the first page did not wait for the last
    answer = http.post("/v1/seal", files=pdf_upload(pdf), timeout=TIMEOUT_S).json()
    assert [page for _, page in sorted(pages, key=lambda line: line[1]["page"])] == answer["pages"]


def test_a_page_that_fails_mid_stream_is_its_error_and_the_others_still_come(
    gateway_url: str, two_seals: Image.Image
) -> None:
    pdf = as_pdf([two_seals, page_of_seals(5, 6), two_seals])  # 30 seals: refused, page 2 only
    (_, first), *pages, (_, last) = streamed(gateway_url, "/v1/seal", pdf)
    by_number = {page["page"]: page for _, page in pages}
    assert by_number[2]["error"]["status"] == 422 and by_number[2]["error"]["code"] == "invalid_image"
    assert by_number[2]["error"]["message"].startswith("page 2: refused: 30 seals found")
    assert len(by_number[1]["seals"]) == len(by_number[3]["seals"]) == 2
    assert last["done"] and last["failed"] == 1


PAGE_TIMEOUT_S = 3.0  # a blank page takes a fraction of it, a page of 24 seals several times it


@pytest.fixture
def impatient_gateway(gateway_settings: Settings) -> Iterator[str]:
    with serve_gateway(gateway_settings.model_copy(update={"page_timeout_s": PAGE_TIMEOUT_S})) as url:
        yield url


def test_a_page_past_its_deadline_is_an_error_line_and_the_stream_goes_on(impatient_gateway: str) -> None:
    blank = Image.new("RGB", (1240, 1754), "white")
    pdf = as_pdf([blank, page_of_seals(4, 6), blank, blank])
    (_, first), *pages, (_, last) = streamed(impatient_gateway, "/v1/seal", pdf)
    by_number = {page["page"]: page for _, page in pages}
    assert by_number[2]["error"] == {
        "status": 504,
        "code": "upstream_timeout",
        "message": f"page 2: not read within {PAGE_TIMEOUT_S:g} s",
    }
    assert by_number[1]["seals"] == by_number[4]["seals"] == []  # read, the last after the slow one
    assert last["done"] and last["pages"] == 4


def seal_pages_read(triton: LocalTriton) -> int:
    with grpcclient.InferenceServerClient(triton.grpc_url) as client:
        (stats,) = client.get_inference_statistics("seal").model_stats
    return int(stats.inference_stats.success.count) + int(stats.inference_stats.fail.count)


def quiet(triton: LocalTriton, settle_s: float = 3.0, within_s: float = 120.0) -> int:
    """The seal model's request count once it has stopped growing for `settle_s`."""
    deadline, count = time.monotonic() + within_s, seal_pages_read(triton)
    while time.monotonic() < deadline:
        time.sleep(settle_s)
        if (now := seal_pages_read(triton)) == count:
            return count
        count = now
    raise AssertionError("the seal model never went quiet")


def test_a_client_that_hangs_up_mid_stream_stops_the_pages_left(
    triton: LocalTriton, gateway_url: str, two_seals: Image.Image
) -> None:
    pages, request_id = 12, f"hang-up-stream-{uuid.uuid4().hex[:8]}"
    before = quiet(triton)
    with httpx.stream(
        "POST",
        gateway_url + "/v1/seal",
        files=pdf_upload(as_pdf([two_seals] * pages)),
        headers={**NDJSON, "X-Request-ID": request_id},
        timeout=TIMEOUT_S,
    ) as response:
        lines = response.iter_lines()
        assert json.loads(next(lines))["pages"] == pages
        assert "seals" in json.loads(next(lines))  # one page read: hang up
    assert cancelled_in_triton(triton, request_id, within_s=30.0)
    read = quiet(triton) - before
    assert read <= 4, f"{read} of {pages} pages read after the client left"  # those in flight


@pytest.fixture
def small_caps_gateway(gateway_settings: Settings) -> Iterator[str]:
    caps = {"max_upload_bytes": 100_000, "max_pdf_bytes": 300_000}
    with serve_gateway(gateway_settings.model_copy(update=caps)) as url:
        yield url


def padded_pdf(size: int) -> bytes:
    """A blank one-page PDF of about `size` bytes: the rest an unused object of raw bytes."""
    return one_page_pdf(b"", stream_object(b"x" * size))


def test_a_pdf_has_its_own_byte_cap_beside_the_image_cap(small_caps_gateway: str) -> None:
    image = b"\x89PNG\r\n\x1a\n" + b"\x00" * 150_000
    for data, status in ((padded_pdf(200_000), 200), (padded_pdf(400_000), 413), (image, 413)):
        response = httpx.post(f"{small_caps_gateway}/v1/ocr", files=pdf_upload(data), timeout=TIMEOUT_S)
        assert response.status_code == status, response.text


def test_a_pdf_larger_than_a_default_grpc_message_goes_through(http: httpx.Client) -> None:
    response = http.post("/v1/ocr", files=pdf_upload(padded_pdf(70 * 1024 * 1024)), timeout=TIMEOUT_S)
    assert response.status_code == 200, response.text  # gRPC's default cap is 4 MiB, ours was 64
    assert response.json()["pages"][0]["lines"] == []


@pytest.mark.parametrize(
    ("pdf", "message"),
    [
        (blank_pdf(*[A4_POINTS] * 1001), "the PDF has 1001 pages; at most 1000 are read"),
        (flate_bomb_pdf(1024), "a stream of the PDF decodes to more than 256 MiB"),
    ],
    ids=["thousand-and-one-pages", "flate-bomb"],
)
@pytest.mark.parametrize("headers", [{}, NDJSON], ids=["json", "ndjson"])
def test_a_pdf_over_the_caps_is_refused_before_any_page_is_read(
    http: httpx.Client, pdf: bytes, message: str, headers: dict[str, str]
) -> None:
    response = http.post("/v1/seal", files=pdf_upload(pdf), headers=headers, timeout=TIMEOUT_S)
    assert response.status_code == 422, response.text
    assert response.json()["error"] == {"status": 422, "code": "invalid_image", "message": message}


def test_pages_of_absurd_size_or_structure_are_bounded_and_the_service_stays_up(
    gateway_url: str, http: httpx.Client, two_seals: Image.Image
) -> None:
    huge = one_page_pdf(b"", box=b"[0 0 1000000 1000000]")
    for pdf in (huge, nested_pdf(100_000)):
        (_, page), _ = streamed(gateway_url, "/v1/seal", pdf)[1:]
        assert max(page["width"], page["height"]) <= 3000 and page["seals"] == []
    (_, page), (_, last) = streamed(gateway_url, "/v1/seal", deep_page_tree_pdf(5000))[1:]
    assert page["error"]["status"] == 422 and "page 1 cannot be loaded" in page["error"]["message"]
    assert last["failed"] == 1
    response = http.post("/v1/seal", files=pdf_upload(as_pdf([two_seals])), timeout=TIMEOUT_S)
    assert response.status_code == 200 and len(response.json()["pages"][0]["seals"]) == 2
