"""The document check on /v1/seal (`check=document`) with a FAKE Triton (the real app otherwise):
where the check comes from (a form field or the query), what reaches the model (its CHECK
input, on an image and on a PDF), the 422 for any other value, and the answer's parties, each
seal's party and the verdict, present only where the check was asked for."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from fastapi.testclient import TestClient

from gateway.triton import Inference, Parameters, TextInputs
from tests.app import test_seal_expected_with_fake_triton as expected_names
from tests.app.test_app_with_fake_triton import png
from tests.app.test_documents_with_fake_triton import NDJSON, PDF, count, lines, page

SELLER, BUYER = "河南森源重工有限公司", "北京某某科技有限公司"
TAX_ID = "91410000123456789X"


def checked(seals: int = 2) -> dict[str, Any]:
    """Two parties (buyer, seller); the page's first seal is the seller's, its second nobody's
    (of `seals`, 0 to 2)."""
    return {
        "PARTY_ROLES": np.array([b"buyer", b"seller"], np.object_),
        "PARTY_TEXTS": np.array([BUYER.encode(), SELLER.encode()], np.object_),
        "PARTY_BOXES": np.array([[1, 2, 3, 4], [5, 6, 7, 8]], np.int32),
        "PARTY_SOURCES": np.array([b"label", b"label"], np.object_),
        "PARTY_TAX_IDS": np.array([b"", TAX_ID.encode()], np.object_),
        "SEAL_PARTIES": np.array([1, -1][:seals], np.int32),
        "SEAL_PARTY_SCORES": np.array([0.97654, 0.0][:seals], np.float32),
        "DOCUMENT_KIND": np.array([b"invoice"], np.object_),
        "VERDICT": np.array([b"seller_sealed"], np.object_),
        "VERDICT_REASONS": np.array([b"the seller's seal says its name"], np.object_),
    }


class FakeCheckingTriton(expected_names.FakeSealTriton):
    """Answers an image as the seal model does, checked where the CHECK input was sent."""

    async def infer_image(
        self,
        model: str,
        image: bytes,
        outputs: Any,
        parameters: Parameters | None = None,
        texts: TextInputs | None = None,
    ) -> Inference:
        self.texts.append(texts)
        read = page(1, seals=2, check=checked() if texts and "CHECK" in texts else None)
        return Inference(model, "1", {name: read.outputs[name] for name in outputs})


@pytest.fixture
def fake() -> FakeCheckingTriton:
    return FakeCheckingTriton()


client = expected_names.client  # the app over this module's `fake`


def post(client: TestClient, upload: bytes, form: dict[str, str] | None = None, **kw: Any) -> Any:
    files = [("image", ("a", upload, "application/octet-stream"))]
    return client.post("/v1/seal", files=files, data=form or {}, **kw)


@pytest.mark.parametrize("where", ["form", "query"])
def test_checked_the_answer_has_the_parties_each_seal_s_party_and_the_verdict(
    client: TestClient, fake: FakeCheckingTriton, where: str
) -> None:
    asked = {"check": "document"}
    response = post(client, png(), **({"form": asked} if where == "form" else {"params": asked}))
    assert response.status_code == 200, response.text
    body = response.json()
    assert fake.texts == [{"CHECK": ["document"]}]
    assert body["parties"] == [
        {"role": "buyer", "text": BUYER, "box": [1, 2, 3, 4], "source": "label", "tax_id": None},
        {"role": "seller", "text": SELLER, "box": [5, 6, 7, 8], "source": "label", "tax_id": TAX_ID},
    ]
    parties = [seal["party"] for seal in body["seals"]]
    assert parties == [{"index": 1, "role": "seller", "score": 0.9765}, None]
    assert body["verdict"] == {
        "kind": "invoice",
        "verdict": "seller_sealed",
        "reasons": ["the seller's seal says its name"],
    }


def test_unchecked_the_answer_is_as_before(client: TestClient, fake: FakeCheckingTriton) -> None:
    body = post(client, png()).json()
    assert fake.texts == [{}]
    assert "parties" not in body and "verdict" not in body
    assert all("party" not in seal for seal in body["seals"])


@pytest.mark.parametrize("value", ["", "Document", "parties", "document,expected"])
@pytest.mark.parametrize("where", ["form", "query"])
def test_any_other_check_is_a_422_before_the_model(
    client: TestClient, fake: FakeCheckingTriton, value: str, where: str
) -> None:
    asked = {"check": value}
    response = post(client, png(), **({"form": asked} if where == "form" else {"params": asked}))
    assert response.status_code == 422, response.text
    error = response.json()["error"]
    assert error["code"] == "invalid_field" and "check must be 'document'" in error["message"]
    assert fake.texts == []


def test_a_pdf_s_pages_are_each_checked_as_json_and_as_a_stream(
    client: TestClient, fake: FakeCheckingTriton
) -> None:
    second, first = page(2, seals=2, check=checked()), page(1, seals=0, check=checked(0))
    script = [(0.0, count(2)), (0.0, second), (0.0, first)]
    fake.script = script
    streamed = lines(post(client, PDF, form={"check": "document"}, headers=NDJSON))
    assert fake.texts == [{"CHECK": ["document"]}]
    assert streamed[1]["page"] == 2 and streamed[1]["verdict"]["verdict"] == "seller_sealed"
    assert [seal["party"] for seal in streamed[1]["seals"]][0]["role"] == "seller"
    fake.script = script
    body = post(client, PDF, params={"check": "document"}).json()
    assert [p["page"] for p in body["pages"]] == [1, 2]
    assert all(p["parties"][1]["role"] == "seller" for p in body["pages"])


def test_the_openapi_documents_the_check_and_its_answer(client: TestClient) -> None:
    spec = client.get("/openapi.json").json()
    operation = spec["paths"]["/v1/seal"]["post"]
    form = operation["requestBody"]["content"]["multipart/form-data"]["schema"]["properties"]
    assert form["check"]["enum"] == ["document"]
    assert "check" in {parameter["name"] for parameter in operation["parameters"]}
    schemas = spec["components"]["schemas"]
    assert {"parties", "verdict"} <= set(schemas["SealResult"]["properties"])
    assert {"parties", "verdict"} <= set(schemas["SealPage"]["properties"])
    assert "party" in schemas["Seal"]["properties"]
    assert {"role", "text", "box", "source", "tax_id"} <= set(schemas["DocumentParty"]["properties"])
