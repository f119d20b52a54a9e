"""Expected names on /v1/seal with a FAKE Triton (the real app otherwise): where the names come
from (repeated form fields, then the query), what reaches the model (its EXPECTED input, on an
image and on a PDF), the 422s for too many, empty or too long names, each page's and the
document's verdicts, in the JSON answer and in the stream's closing line."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

import pytest
from fastapi.testclient import TestClient

from gateway.deps import get_triton
from gateway.main import create_app
from gateway.routers.seal import MAX_EXPECTED, MAX_NAME_CHARS
from gateway.settings import Settings
from gateway.triton import Inference, Parameters, TextInputs
from gateway.uploads import MAX_FORM_PARTS
from tests.app.test_app_with_fake_triton import png
from tests.app.test_documents_with_fake_triton import (
    NDJSON,
    PDF,
    FakeDocumentTriton,
    Verdict,
    count,
    failed,
    lines,
    page,
)

HENAN, OTHER = "河南森源重工有限公司", "北京某某科技有限公司"


class FakeSealTriton(FakeDocumentTriton):
    """Answers an image with one page's outputs (`verdicts` for the names sent); streams its
    script for a PDF; records the string inputs of each call."""

    def __init__(self) -> None:
        super().__init__()
        self.verdicts: list[Verdict] = []

    async def infer_image(
        self,
        model: str,
        image: bytes,
        outputs: Sequence[str],
        parameters: Parameters | None = None,
        texts: TextInputs | None = None,
    ) -> Inference:
        self.texts.append(texts)
        read = page(1, seals=2, verdicts=self.verdicts)
        return Inference(model, "1", {name: read.outputs[name] for name in outputs})

    async def ready(self, models: Sequence[str]) -> list[str]:
        return []


@pytest.fixture
def fake() -> FakeSealTriton:
    return FakeSealTriton()


@pytest.fixture
def client(fake: FakeSealTriton) -> Iterator[TestClient]:
    app = create_app(Settings())
    app.dependency_overrides[get_triton] = lambda: fake
    with TestClient(app) as test_client:
        yield test_client


def post(
    client: TestClient, upload: bytes, form: Sequence[str] = (), query: Sequence[str] = (), **kw: Any
) -> Any:
    files = [("image", ("a", upload, "application/octet-stream")), *(("expect", (None, n)) for n in form)]
    return client.post("/v1/seal", files=files, params=[("expect", name) for name in query], **kw)


def test_an_image_s_answer_has_each_name_s_verdict_and_each_seal_s_best_name(
    client: TestClient, fake: FakeSealTriton
) -> None:
    fake.verdicts = [(True, 0.97, 1), (False, 0.01, -1)]
    response = post(client, png(), form=[f" {HENAN} "], query=[OTHER])
    assert response.status_code == 200, response.text
    body = response.json()
    assert fake.texts == [{"EXPECTED": [HENAN, OTHER]}]  # form fields first, stripped
    assert body["expected"] == [
        {"text": HENAN, "found": True, "score": 0.97, "seal": 1},
        {"text": OTHER, "found": False, "score": 0.01, "seal": None},
    ]
    assert [seal["match"] for seal in body["seals"]] == [{"text": "name", "score": 0.5}] * 2


def test_without_names_the_model_gets_none_and_the_answer_says_none(
    client: TestClient, fake: FakeSealTriton
) -> None:
    body = post(client, png()).json()
    assert fake.texts == [{}]
    assert body["expected"] == [] and [seal["match"] for seal in body["seals"]] == [None, None]


@pytest.mark.parametrize(
    "names, message",
    [
        (["a"] * (MAX_EXPECTED + 1), f"{MAX_EXPECTED + 1} expected names sent; at most {MAX_EXPECTED}"),
        (["a", "  "], "an expected name is empty"),
        (["x" * (MAX_NAME_CHARS + 1)], f"{MAX_NAME_CHARS + 1} characters; at most {MAX_NAME_CHARS}"),
    ],
)
@pytest.mark.parametrize("where", ["form", "query"])
def test_too_many_empty_or_too_long_names_are_a_422_before_the_model(
    client: TestClient, fake: FakeSealTriton, names: list[str], message: str, where: str
) -> None:
    response = post(client, png(), **{where: names})
    assert response.status_code == 422
    assert response.json()["error"]["code"] == "invalid_field"
    assert message in response.json()["error"]["message"]
    assert fake.texts == []


def test_a_form_of_150_000_empty_names_is_a_422_at_the_parts_cap(
    client: TestClient, fake: FakeSealTriton
) -> None:
    response = post(client, png(), form=[""] * 150_000)
    assert response.status_code == 422
    assert response.json()["error"]["code"] == "invalid_field"
    assert f"more than {MAX_FORM_PARTS} parts" in response.json()["error"]["message"]
    assert fake.texts == []


def test_the_parts_cap_leaves_room_for_every_expected_name() -> None:
    assert MAX_FORM_PARTS > 1 + MAX_EXPECTED  # the image and the names, and a few fields more


def test_a_raw_body_takes_its_names_from_the_query(client: TestClient, fake: FakeSealTriton) -> None:
    fake.verdicts = [(True, 0.9, 0)]
    response = client.post(
        "/v1/seal", content=png(), params={"expect": HENAN}, headers={"content-type": "image/png"}
    )
    assert response.status_code == 200 and fake.texts == [{"EXPECTED": [HENAN]}]


def pdf_script(fake: FakeSealTriton) -> None:
    """Page 2 holds the first name on its seal 0; no page holds the second; page 3 fails."""
    fake.script = [
        (0, count(3)),
        (0, page(2, verdicts=[(True, 0.93, 0), (False, 0.2, -1)])),
        (0, page(1, verdicts=[(False, 0.3, -1), (False, 0.4, -1)])),
        (0, failed(3, "DEADLINE_EXCEEDED", "page 3: not read within 7 s")),
    ]


DOCUMENT_VERDICTS = [
    {"text": HENAN, "found": True, "score": 0.93, "page": 2, "seal": 0},
    {"text": OTHER, "found": False, "score": 0.4, "page": None, "seal": None},
]


def test_a_pdf_s_stream_ends_with_the_page_each_name_was_found_on(
    client: TestClient, fake: FakeSealTriton
) -> None:
    pdf_script(fake)
    response = post(client, PDF, form=[HENAN, OTHER], headers=NDJSON)
    first, *pages, last = lines(response)
    assert fake.texts == [{"EXPECTED": [HENAN, OTHER]}]
    assert pages[0]["expected"][0] == {"text": HENAN, "found": True, "score": 0.93, "seal": 0}
    assert last["expected"] == DOCUMENT_VERDICTS and last["failed"] == 1


def test_a_pdf_s_json_answer_says_it_too(client: TestClient, fake: FakeSealTriton) -> None:
    pdf_script(fake)
    fake.script = fake.script[:-1]
    fake.script[0] = (0, count(2))
    body = post(client, PDF, form=[HENAN, OTHER]).json()
    assert [p["page"] for p in body["pages"]] == [1, 2]
    assert body["pages"][1]["expected"][0]["found"] is True
    assert body["expected"] == DOCUMENT_VERDICTS


def test_the_openapi_documents_the_names_and_their_verdicts(client: TestClient) -> None:
    spec = client.get("/openapi.json").json()
    operation = spec["paths"]["/v1/seal"]["post"]
    form = operation["requestBody"]["content"]["multipart/form-data"]["schema"]["properties"]
    assert form["expect"]["maxItems"] == MAX_EXPECTED
    assert form["expect"]["items"]["maxLength"] == MAX_NAME_CHARS
    assert "expect" in {parameter["name"] for parameter in operation["parameters"]}
    schemas = spec["components"]["schemas"]
    assert {"expected", "model"} <= set(schemas["SealResult"]["required"])
    assert (
        "match" in schemas["Seal"]["properties"] and "page" in schemas["DocumentExpectedName"]["properties"]
    )
    lines = operation["responses"]["200"]["content"]["application/x-ndjson"]["schema"]["anyOf"]
    assert any("expected" in line.get("properties", {}) and "done" in line["properties"] for line in lines)
