"""The document check (`check=document`) on the real Triton and gateway: an invoice the generator
prints with its seller's name and stamps with the seller's seal is found to be the seller's
sealed invoice (the seller printed, its seal linked to it); the same invoice with its seals
painted over is the seller's unsealed one; a PDF of both says so page by page, as JSON and as
a stream; any other `check` is refused, at the gateway and by the model itself.

The page is drawn with a seed no tuning run used; what is asserted follows from how it was
drawn (the seller's name printed on it is its seal's rim, `generator.invoice`), not from a
recorded answer."""

from __future__ import annotations

import io
import json
from typing import Any

import httpx
import numpy as np
import pytest
import tritonclient.grpc as grpcclient
from PIL import Image
from tritonclient.utils import InferenceServerException

from evaluation.seal.dataset import TruthPage, box_iou, generated_pages, without_seals
from evaluation.support.pdf import as_pdf
from gateway.local_triton import LocalTriton

pytestmark = pytest.mark.integration
SEED, INDEX = 20261129, 5  # an invoice: the 监制章 printed in its header, the seller's seal stamped
SUPERVISION = "全国统一发票监制章"  # printed by the tax office on every invoice: no party's seal
ROLES = {"seller", "buyer", "party_a", "party_b", "party_c", "issuer", "named"}
CHECKED = {"check": "document"}


def invoice() -> tuple[TruthPage, str]:
    """The invoice page and its seller's name (printed on it, and its seal's rim)."""
    page = list(generated_pages(SEED, INDEX + 1, 0, style="invoice"))[INDEX]
    seller = [seal.rim_text for seal in page.seals if seal.rim_text and seal.rim_text != SUPERVISION]
    assert len(seller) == 1 and seller[0]
    return page, seller[0]


def _size(image: bytes) -> tuple[int, int]:
    return Image.open(io.BytesIO(image)).size


def _well_formed(answer: dict[str, Any], width: int, height: int) -> None:
    """A checked page's answer: parties with boxes on the page, each seal's party one of them."""
    parties, verdict = answer["parties"], answer["verdict"]
    for party in parties:
        x0, y0, x1, y1 = party["box"]
        assert party["role"] in ROLES and party["text"] and party["source"]
        assert 0 <= x0 <= x1 <= width and 0 <= y0 <= y1 <= height, party
    for seal in answer["seals"]:
        link = seal["party"]
        if link is not None:
            assert parties[link["index"]]["role"] == link["role"] and 0 <= link["score"] <= 1
    assert set(verdict) == {"kind", "verdict", "reasons"} and all(verdict["reasons"])


def _sellers_seal(answer: dict[str, Any], page: TruthPage, seller: str) -> dict[str, Any]:
    """The answered seal where the seller's seal was stamped."""
    (truth,) = [seal for seal in page.seals if seal.rim_text == seller]
    best = max(answer["seals"], key=lambda seal: box_iou(tuple(seal["box"]), truth.box))
    assert box_iou(tuple(best["box"]), truth.box) > 0.5, answer["seals"]
    return best


def _sealed(answer: dict[str, Any], page: TruthPage, seller: str) -> None:
    assert (answer["verdict"]["kind"], answer["verdict"]["verdict"]) == ("invoice", "seller_sealed"), answer
    link = _sellers_seal(answer, page, seller)["party"]
    assert link is not None and link["role"] == "seller" and link["score"] >= 0.5
    assert answer["parties"][link["index"]]["text"] == seller


def _unsealed(answer: dict[str, Any], seller: str) -> None:
    assert answer["seals"] == [], answer["seals"]
    assert (answer["verdict"]["kind"], answer["verdict"]["verdict"]) == ("invoice", "seller_unsealed"), answer
    assert [party["text"] for party in answer["parties"] if party["role"] == "seller"] == [seller]


def test_an_invoice_stamped_by_its_seller_is_the_seller_s_sealed_invoice(http: httpx.Client) -> None:
    page, seller = invoice()
    response = http.post("/v1/seal", files={"image": ("invoice.jpg", page.image)}, data=CHECKED, timeout=300)
    assert response.status_code == 200, response.text
    answer = response.json()
    _well_formed(answer, *_size(page.image))
    _sealed(answer, page, seller)


def test_the_same_invoice_without_its_seals_is_the_seller_s_unsealed_one(http: httpx.Client) -> None:
    page, seller = invoice()
    blank = without_seals(page)
    assert blank is not None
    headers = {"content-type": "image/png"}
    response = http.post("/v1/seal", content=blank.image, params=CHECKED, headers=headers, timeout=300)
    assert response.status_code == 200, response.text
    _well_formed(response.json(), *_size(blank.image))
    _unsealed(response.json(), seller)


def test_a_pdf_is_checked_page_by_page_as_json_and_as_a_stream(http: httpx.Client) -> None:
    page, seller = invoice()
    blank = without_seals(page)
    assert blank is not None
    images = [Image.open(io.BytesIO(image)) for image in (blank.image, page.image)]
    pdf = as_pdf(images, dpi=200)  # the document models' rendering: the pixels come back as drawn
    files = {"image": ("invoices.pdf", pdf, "application/pdf")}
    body = http.post("/v1/seal", files=files, data=CHECKED, timeout=600).json()
    first, second = body["pages"]
    _unsealed(first, seller)
    _sealed(second, page, seller)
    streamed = http.post(
        "/v1/seal", files=files, data=CHECKED, headers={"Accept": "application/x-ndjson"}, timeout=600
    )
    pages = {line["page"]: line for line in map(json.loads, streamed.text.splitlines()) if "seals" in line}
    assert [pages[n]["verdict"] for n in (1, 2)] == [first["verdict"], second["verdict"]]


def test_any_other_check_is_refused_at_the_gateway_and_by_the_model(
    http: httpx.Client, triton: LocalTriton
) -> None:
    page, _ = invoice()
    for sent in ({"data": {"check": "parties"}}, {"params": {"check": "Document"}}):
        response = http.post("/v1/seal", files={"image": ("invoice.jpg", page.image)}, **sent)  # type: ignore[arg-type]
        assert response.status_code == 422, response.text
        assert response.json()["error"]["code"] == "invalid_field"
    client = grpcclient.InferenceServerClient(triton.grpc_url)
    image = grpcclient.InferInput("IMAGE", [1, len(page.image)], "UINT8")
    image.set_data_from_numpy(np.frombuffer(page.image, np.uint8)[None])
    check = grpcclient.InferInput("CHECK", [1], "BYTES")
    check.set_data_from_numpy(np.array([b"parties"], np.object_))
    with pytest.raises(InferenceServerException, match="CHECK must be"):
        client.infer("seal", [image, check])
