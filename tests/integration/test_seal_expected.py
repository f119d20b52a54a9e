"""The seal model checks expected names on the real Triton (the `EXPECTED` input): a seal's
true name is found on it, the same name with a character changed and another organisation's
name are not, and a request without names answers as before. Through the real gateway: the
names sent as form fields and in the query, and a PDF's verdicts saying on which page."""

from __future__ import annotations

import io
import json

import httpx
import numpy as np
import pytest
import tritonclient.grpc as grpcclient
from PIL import Image
from tritonclient.utils import InferenceServerException

from evaluation.seal.dataset import generated_pages
from evaluation.support.pdf import as_pdf
from gateway.local_triton import LocalTriton

pytestmark = pytest.mark.integration
SEED = 20261127  # a generated page no tuning run used: one plain seal, read exactly


def _infer(triton: LocalTriton, image: bytes, names: list[str] | None) -> grpcclient.InferResult:
    client = grpcclient.InferenceServerClient(triton.grpc_url)
    inputs = [grpcclient.InferInput("IMAGE", [1, len(image)], "UINT8")]
    inputs[0].set_data_from_numpy(np.frombuffer(image, np.uint8)[None])
    if names is not None:
        inputs.append(grpcclient.InferInput("EXPECTED", [len(names)], "BYTES"))
        inputs[1].set_data_from_numpy(np.array([name.encode() for name in names], np.object_))
    return client.infer("seal", inputs)


def _page() -> tuple[bytes, str]:
    page = next(p for p in generated_pages(SEED, 8, 0, style="plain") if len(p.seals) == 1)
    (seal,) = page.seals
    assert seal.rim_text
    return page.image, seal.rim_text


def test_a_seals_true_name_is_found_and_a_changed_one_is_not(triton: LocalTriton) -> None:
    image, name = _page()
    changed = name[:2] + ("龙" if name[2] != "龙" else "虎") + name[3:]
    result = _infer(triton, image, [name, changed, "北京市朝阳区教育委员会"])
    assert result.as_numpy("EXPECTED_FOUND").tolist() == [True, False, False]
    assert result.as_numpy("EXPECTED_SEALS").tolist() == [0, -1, -1]
    scores = result.as_numpy("EXPECTED_SCORES")
    assert scores[0] > 0.9 > 0.5 > scores[1] and scores[2] < 0.5
    assert [t.decode() for t in result.as_numpy("MATCH_TEXTS")] == [name]
    others = _infer(triton, image, [changed, "北京市朝阳区教育委员会"])  # names the seal does not carry
    assert [t.decode() for t in others.as_numpy("MATCH_TEXTS")] == [""]
    assert others.as_numpy("MATCH_SCORES").tolist() == [0.0]


def test_without_names_the_answer_is_as_before(triton: LocalTriton) -> None:
    image, _ = _page()
    result = _infer(triton, image, None)
    assert result.as_numpy("EXPECTED_FOUND").tolist() == []
    assert [t.decode() for t in result.as_numpy("MATCH_TEXTS")] == [""]
    assert 0.0 <= float(result.as_numpy("RIM_SCORES")[0]) <= 1.0


def test_too_many_or_empty_names_are_refused(triton: LocalTriton) -> None:
    image, name = _page()
    for names in ([name] * 21, [""], ["字" * 65]):
        with pytest.raises(InferenceServerException, match="expected name"):
            _infer(triton, image, names)


def _pdf(first: bytes, second: bytes) -> bytes:
    """Two pages at 200 dpi, the document models' rendering (so the pixels come back as drawn)."""
    return as_pdf([Image.open(io.BytesIO(image)) for image in (first, second)], dpi=200)


def _blank_like(image: bytes) -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", Image.open(io.BytesIO(image)).size, "white").save(buffer, "PNG")
    return buffer.getvalue()


def test_over_http_the_verdicts_come_per_name_and_per_seal(http: httpx.Client) -> None:
    image, name = _page()
    other = "北京市朝阳区教育委员会"
    files = [("image", ("page.png", image)), ("expect", (None, name))]
    response = http.post("/v1/seal", files=files, params={"expect": other}, timeout=300)
    assert response.status_code == 200, response.text
    body = response.json()
    assert [(v["text"], v["found"], v["seal"]) for v in body["expected"]] == [
        (name, True, 0),
        (other, False, None),
    ]
    assert body["seals"][0]["match"]["text"] == name and body["seals"][0]["match"]["score"] > 0.9
    refused = http.post("/v1/seal", files=[("image", ("page.png", image)), ("expect", (None, " "))])
    assert refused.status_code == 422 and refused.json()["error"]["code"] == "invalid_field"


def test_a_pdf_says_on_which_page_each_name_is_found_as_json_and_as_a_stream(http: httpx.Client) -> None:
    image, name = _page()
    other = "北京市朝阳区教育委员会"
    files = [("image", ("doc.pdf", _pdf(_blank_like(image), image), "application/pdf"))]
    data = {"expect": [name, other]}
    verdicts = [(name, True, 2, 0), (other, False, None, None)]
    body = http.post("/v1/seal", files=files, data=data, timeout=300).json()
    assert [(v["text"], v["found"], v["page"], v["seal"]) for v in body["expected"]] == verdicts
    assert [page["expected"][0]["found"] for page in body["pages"]] == [False, True]
    streamed = http.post(
        "/v1/seal", files=files, data=data, headers={"Accept": "application/x-ndjson"}, timeout=300
    )
    last = json.loads(streamed.text.splitlines()[-1])
    assert last["done"] and last["expected"] == body["expected"]
