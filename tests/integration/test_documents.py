"""PDF uploads on /v1/seal and /v1/ocr through the real stack: the bytes go to Triton, whose
document models render the pages (pypdfium2) and read each one with the page model."""

from __future__ import annotations

import io
import random
from typing import Any

import httpx
import pytest
from PIL import Image

from evaluation.seal.dataset import generated_pages
from evaluation.support.text_corpus import render_page
from evaluation.text import levenshtein
from tests.support.seal_pages import as_pdf

pytestmark = pytest.mark.integration
SEAL_SEED = 20261125


def post(http: httpx.Client, route: str, data: bytes) -> httpx.Response:
    return http.post(route, files={"image": ("scan.pdf", data, "application/pdf")}, timeout=600)


def test_a_pdf_of_seal_pages_is_read_page_by_page(http: httpx.Client) -> None:
    """Each page's seals where the page image's own answer has them (boxes scaled by the
    rendering); the texts may differ where a seal reads differently at another resolution."""
    truth = list(generated_pages(SEAL_SEED, 2, 0, style="plain"))
    pdf = as_pdf([Image.open(io.BytesIO(page.image)) for page in truth])
    response = post(http, "/v1/seal", pdf)
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["model"]["name"] == "seal_document"
    assert [page["page"] for page in body["pages"]] == [1, 2]
    for page, expected in zip(body["pages"], truth, strict=True):
        width, height = Image.open(io.BytesIO(expected.image)).size
        scale = page["width"] / width
        assert page["height"] / height == pytest.approx(scale, rel=0.01)  # scaled, not cut
        direct = http.post("/v1/seal", files={"image": ("page.png", expected.image)}, timeout=300).json()
        assert len(page["seals"]) == len(direct["seals"]) == len(expected.seals)
        for found, seen in zip(sorted_seals(page["seals"]), sorted_seals(direct["seals"]), strict=True):
            assert [v / scale for v in found["box"]] == pytest.approx(seen["box"], abs=0.03 * width)
            assert found["rim_text"]


def sorted_seals(seals: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return sorted(seals, key=lambda seal: (seal["box"][1], seal["box"][0]))


def test_a_pdf_of_text_is_read_like_its_image(http: httpx.Client) -> None:
    image, lines = render_page(random.Random(11), "en")
    response = post(http, "/v1/ocr", as_pdf([image, image.rotate(0)]))
    assert response.status_code == 200, response.text
    pages = response.json()["pages"]
    assert len(pages) == 2 and pages[0]["text"] == pages[1]["text"]
    expected = "\n".join(lines)
    assert levenshtein(pages[0]["text"], expected) <= 0.03 * len(expected)
    assert all(0 <= x <= pages[0]["width"] for line in pages[0]["lines"] for x, _ in line["polygon"])


def test_mnist_refuses_a_pdf(http: httpx.Client) -> None:
    image, _ = render_page(random.Random(3), "en")
    response = post(http, "/v1/mnist", as_pdf([image]))
    assert response.status_code == 415 and response.json()["error"]["code"] == "unsupported_media_type"


ANSWERS = (  # route, its JSON answers, its stream's page line and closing line
    ("/v1/seal", {"SealResult", "SealPages"}, "SealPage", "SealDocumentEnd"),  # with `expected`
    ("/v1/ocr", {"OcrResult", "OcrPages"}, "OcrPage", "DocumentEnd"),
)


def test_the_api_docs_show_both_answers_and_the_stream(http: httpx.Client) -> None:
    document = http.get("/openapi.json").json()
    for route, shapes, page, end in ANSWERS:
        post = document["paths"][route]["post"]
        content = post["responses"]["200"]["content"]
        assert {name(schema) for schema in content["application/json"]["schema"]["anyOf"]} == shapes
        lines = {name(schema) for schema in content["application/x-ndjson"]["schema"]["anyOf"]}
        assert lines == {"DocumentStart", page, "PageError", end, "StreamError"}
        assert "application/pdf" in post["requestBody"]["content"]
        assert any(p["name"] == "accept" and p["in"] == "header" for p in post["parameters"])
    assert all(resolves(document, ref) for ref in refs(document))


def name(schema: dict[str, Any]) -> str:
    return str(schema.get("title") or schema["$ref"].rsplit("/", 1)[1])


def refs(node: Any) -> list[str]:
    if isinstance(node, dict):
        own = [node["$ref"]] if "$ref" in node else []
        return own + [ref for value in node.values() for ref in refs(value)]
    return [ref for value in node for ref in refs(value)] if isinstance(node, list) else []


def resolves(document: dict[str, Any], ref: str) -> bool:
    node: Any = document
    for part in ref.removeprefix("#/").split("/"):
        if not isinstance(node, dict) or part not in node:
            return False
        node = node[part]
    return True
