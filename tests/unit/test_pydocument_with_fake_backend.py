"""DocumentModel's stream with a FAKE triton_python_backend_utils and a FAKE page model (real
PDFs, rendered by the real pdfium): the page count first, one answer per page as it is read,
a failed or late page answered as such while the others go on, a bounded number of pages in
flight over every document, and nothing more read for a request whose client has gone."""

from __future__ import annotations

import asyncio
import importlib
import importlib.util
import json
import sys
import types
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tests.support.hostile import A4_POINTS, blank_pdf
from tests.unit.test_pymodel_with_fake_backend import FakeRequest, fake_backend

IN_FLIGHT = 2
CONFIG = {
    "name": "seal_document",
    "input": [{"name": "IMAGE"}, {"name": "EXPECTED"}, {"name": "CHECK"}],
    "output": [{"name": name} for name in ("BOXES", "PAGE_COUNT", "PAGE", "PAGE_SIZE", "PAGE_ERROR")],
    "parameters": {
        key: {"string_value": value}
        for key, value in {"page_model": "seal", "pages_in_flight": str(IN_FLIGHT), "dpi": "20"}.items()
    },
}


class Sender:
    """What a decoupled request's response sender was handed, in order."""

    def __init__(self) -> None:
        self.sent: list[Any] = []

    def send(self, response: Any = None, flags: int = 0) -> None:
        self.sent.append("FINAL" if flags else dict(response.output_tensors))


class DocumentRequest(FakeRequest):
    def __init__(
        self,
        pdf: bytes,
        name: str = "doc",
        page_timeout_s: float | None = None,
        inputs: dict[str, np.ndarray] | None = None,
    ) -> None:
        super().__init__(name)
        self.pdf, self.sender, self.inputs = pdf, Sender(), inputs or {}
        self.params = {"page_timeout_s": page_timeout_s} if page_timeout_s else {}

    def get_response_sender(self) -> Sender:
        return self.sender

    def parameters(self) -> str:
        return json.dumps(self.params)


class PageModel:
    """The page model: each page takes `seconds[page]` (0.01 by default), refuses `refused`,
    and counts how many pages it holds at once."""

    def __init__(self, pydocument: types.ModuleType, seconds: dict[int, float] | None = None) -> None:
        self.pydocument, self.seconds, self.refused = pydocument, seconds or {}, -1
        self.bls = sys.modules["pymodel.bls"]
        self.holding = self.most = self.calls = 0
        self.inputs: list[list[str]] = []  # the names of each call's inputs

    async def __call__(self, model: str, inputs: dict[str, np.ndarray], outputs: Any) -> dict[str, Any]:
        self.bls._tensor_request(model, [], outputs)  # the real check: is the request still wanted
        self.inputs.append(sorted(inputs))
        page = self.calls = self.calls + 1
        self.holding += 1
        self.most = max(self.most, self.holding)
        try:
            await asyncio.sleep(self.seconds.get(page, 0.01))
        finally:
            self.holding -= 1
        if page == self.refused:
            raise self.pydocument.ModelCallError(model, "refused: 30 seals found", invalid=True)
        return {"BOXES": np.zeros((page, 4), np.float32)}


@pytest.fixture
def pydocument() -> Iterator[types.ModuleType]:
    with fake_backend():
        yield importlib.import_module("pydocument")


def model_over(pydocument: types.ModuleType, page_model: PageModel, monkeypatch: pytest.MonkeyPatch) -> Any:
    monkeypatch.setattr(pydocument, "call_model_outputs", page_model)
    monkeypatch.setattr(pydocument, "request_bytes", lambda request: [request.pdf])
    monkeypatch.setattr(pydocument, "optional_input", lambda request, name: request.inputs.get(name))
    model = pydocument.DocumentModel()
    model.initialize({"model_config": json.dumps(CONFIG)})
    return model


def pages_of(sent: list[Any]) -> dict[int, dict[str, Any]]:
    return {
        int(answer["PAGE"][0]): answer for answer in sent if isinstance(answer, dict) and "PAGE" in answer
    }


def error_of(answer: dict[str, Any]) -> list[str]:
    return [value.decode() for value in answer["PAGE_ERROR"]]


def test_the_count_comes_first_then_each_page_then_the_final_flag(
    pydocument: types.ModuleType, monkeypatch: pytest.MonkeyPatch
) -> None:
    request = DocumentRequest(blank_pdf(*[A4_POINTS] * 5))
    asyncio.run(model_over(pydocument, PageModel(pydocument), monkeypatch).execute([request]))
    first, *pages, last = request.sender.sent
    assert first["PAGE_COUNT"].tolist() == [5] and last == "FINAL"
    assert sorted(pages_of(pages)) == [1, 2, 3, 4, 5]
    for answer in pages:
        assert answer["PAGE_SIZE"].tolist() == [234, 166] and error_of(answer) == []  # A4 at 20 dpi


def test_the_models_other_inputs_go_with_every_page_where_the_request_sends_them(
    pydocument: types.ModuleType, monkeypatch: pytest.MonkeyPatch
) -> None:
    names = np.array([b"\xe6\xb2\xb3\xe5\x8d\x97"], np.object_)
    pages = PageModel(pydocument)
    model = model_over(pydocument, pages, monkeypatch)
    asyncio.run(model.execute([DocumentRequest(blank_pdf(*[A4_POINTS] * 3), inputs={"EXPECTED": names})]))
    assert pages.inputs == [["EXPECTED", "IMAGE"]] * 3
    asyncio.run(model.execute([DocumentRequest(blank_pdf(A4_POINTS))]))
    assert pages.inputs[-1] == ["IMAGE"]


def test_a_refused_page_is_its_error_and_the_others_are_still_read(
    pydocument: types.ModuleType, monkeypatch: pytest.MonkeyPatch
) -> None:
    page_model = PageModel(pydocument)
    page_model.refused = 2
    request = DocumentRequest(blank_pdf(*[A4_POINTS] * 3))
    asyncio.run(model_over(pydocument, page_model, monkeypatch).execute([request]))
    pages = pages_of(request.sender.sent)
    assert error_of(pages[2]) == ["INVALID_ARGUMENT", "page 2: refused: 30 seals found"]
    assert "BOXES" not in pages[2] and len(pages[1]["BOXES"]) + len(pages[3]["BOXES"]) > 0


def test_a_page_past_its_deadline_is_answered_at_it_and_holds_its_slot_until_read(
    pydocument: types.ModuleType, monkeypatch: pytest.MonkeyPatch
) -> None:
    page_model = PageModel(pydocument, {1: 0.6})
    request = DocumentRequest(blank_pdf(*[A4_POINTS] * 4), page_timeout_s=0.2)
    asyncio.run(model_over(pydocument, page_model, monkeypatch).execute([request]))
    pages = pages_of(request.sender.sent)
    assert error_of(pages[1]) == ["DEADLINE_EXCEEDED", "page 1: not read within 0.2 s"]
    assert all(error_of(pages[n]) == [] for n in (2, 3, 4))
    assert page_model.most <= IN_FLIGHT  # the late page kept its slot while the model held it


def test_pages_in_flight_are_bounded_over_every_document(
    pydocument: types.ModuleType, monkeypatch: pytest.MonkeyPatch
) -> None:
    page_model = PageModel(pydocument, dict.fromkeys(range(1, 13), 0.05))
    requests = [DocumentRequest(blank_pdf(*[A4_POINTS] * 4), name=f"doc{i}") for i in range(3)]
    asyncio.run(model_over(pydocument, page_model, monkeypatch).execute(requests))
    assert page_model.calls == 12 and page_model.most == IN_FLIGHT
    assert all(len(pages_of(request.sender.sent)) == 4 for request in requests)


def test_a_document_whose_client_has_gone_stops_reading_and_says_nothing_more(
    pydocument: types.ModuleType, monkeypatch: pytest.MonkeyPatch
) -> None:
    page_model = PageModel(pydocument, {1: 0.01, **dict.fromkeys(range(2, 11), 0.2)})
    request = DocumentRequest(blank_pdf(*[A4_POINTS] * 10))
    send = request.sender.send

    def hang_up_after_a_page(response: Any = None, flags: int = 0) -> None:
        send(response, flags)
        request.cancelled = request.cancelled or bool(pages_of(request.sender.sent))

    monkeypatch.setattr(request.sender, "send", hang_up_after_a_page)
    asyncio.run(model_over(pydocument, page_model, monkeypatch).execute([request]))
    assert page_model.calls == IN_FLIGHT  # page 1 and the one beside it; no page after
    assert request.sender.sent[-1] == "FINAL" and list(pages_of(request.sender.sent)) == [1]


@pytest.mark.parametrize("timeout", ["abc", -1, 0, "nan", "inf", [5], True])
def test_a_bad_page_timeout_is_the_document_s_error_before_its_page_count(
    pydocument: types.ModuleType, monkeypatch: pytest.MonkeyPatch, timeout: Any
) -> None:
    pages = PageModel(pydocument)
    request = DocumentRequest(blank_pdf(*[A4_POINTS] * 2))
    request.params = {"page_timeout_s": timeout}
    asyncio.run(model_over(pydocument, pages, monkeypatch).execute([request]))
    (answer, last) = request.sender.sent  # no page count: the request is refused as a whole
    assert answer["PAGE"].tolist() == [0] and last == "FINAL" and pages.calls == 0
    status, message = error_of(answer)
    assert status == "INVALID_ARGUMENT" and "page_timeout_s" in message


def test_a_page_timeout_sent_as_a_number_or_its_text_is_read(pydocument: types.ModuleType) -> None:
    request = DocumentRequest(b"")
    for value, seconds in ((2.5, 2.5), ("7", 7.0), (None, None)):
        request.params = {} if value is None else {"page_timeout_s": value}
        assert pydocument.page_timeout_s(request) == seconds


def seal_document_over(
    pydocument: types.ModuleType, page_model: PageModel, monkeypatch: pytest.MonkeyPatch
) -> Any:
    """seal_document's own model.py over the fakes."""
    model_over(pydocument, page_model, monkeypatch)  # the fakes, set on the module it imports
    path = Path(__file__).resolve().parents[2] / "triton_repo" / "models" / "seal_document" / "1" / "model.py"
    spec = importlib.util.spec_from_file_location("seal_document_under_test", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    model = module.TritonPythonModel()
    model.initialize({"model_config": json.dumps(CONFIG)})
    return model


@pytest.mark.parametrize("names", [[b"a"] * 21, [b"  "], ["长" * 65]])
def test_seal_document_refuses_bad_expected_names_before_its_page_count(
    pydocument: types.ModuleType, monkeypatch: pytest.MonkeyPatch, names: list[Any]
) -> None:
    pages = PageModel(pydocument)
    encoded = np.array([n if isinstance(n, bytes) else n.encode() for n in names], np.object_)
    request = DocumentRequest(blank_pdf(*[A4_POINTS] * 2), inputs={"EXPECTED": encoded})
    asyncio.run(seal_document_over(pydocument, pages, monkeypatch).execute([request]))
    (answer, last) = request.sender.sent  # no page count, no page read
    assert answer["PAGE"].tolist() == [0] and last == "FINAL" and pages.calls == 0
    assert error_of(answer)[0] == "INVALID_ARGUMENT" and "expected name" in error_of(answer)[1]


def test_seal_document_reads_good_expected_names_on_every_page(
    pydocument: types.ModuleType, monkeypatch: pytest.MonkeyPatch
) -> None:
    pages = PageModel(pydocument)
    names = np.array(["河南森源重工有限公司".encode()], np.object_)
    request = DocumentRequest(blank_pdf(*[A4_POINTS] * 2), inputs={"EXPECTED": names})
    asyncio.run(seal_document_over(pydocument, pages, monkeypatch).execute([request]))
    assert (
        request.sender.sent[0]["PAGE_COUNT"].tolist() == [2] and pages.inputs == [["EXPECTED", "IMAGE"]] * 2
    )


@pytest.mark.parametrize("values", [[b"parties"], [b"document", b"document"], [b""]])
def test_seal_document_refuses_any_check_but_document_before_its_page_count(
    pydocument: types.ModuleType, monkeypatch: pytest.MonkeyPatch, values: list[bytes]
) -> None:
    pages = PageModel(pydocument)
    request = DocumentRequest(blank_pdf(A4_POINTS), inputs={"CHECK": np.array(values, np.object_)})
    asyncio.run(seal_document_over(pydocument, pages, monkeypatch).execute([request]))
    (answer, last) = request.sender.sent
    assert answer["PAGE"].tolist() == [0] and last == "FINAL" and pages.calls == 0
    assert error_of(answer)[0] == "INVALID_ARGUMENT" and "CHECK must be" in error_of(answer)[1]


def test_seal_document_passes_the_document_check_to_every_page(
    pydocument: types.ModuleType, monkeypatch: pytest.MonkeyPatch
) -> None:
    pages = PageModel(pydocument)
    request = DocumentRequest(
        blank_pdf(*[A4_POINTS] * 2), inputs={"CHECK": np.array([b"document"], np.object_)}
    )
    asyncio.run(seal_document_over(pydocument, pages, monkeypatch).execute([request]))
    assert request.sender.sent[0]["PAGE_COUNT"].tolist() == [2] and pages.inputs == [["CHECK", "IMAGE"]] * 2


def test_a_pdf_that_cannot_be_read_is_page_zero_with_its_error(
    pydocument: types.ModuleType, monkeypatch: pytest.MonkeyPatch
) -> None:
    request = DocumentRequest(b"%PDF-1.7 not really")
    asyncio.run(model_over(pydocument, PageModel(pydocument), monkeypatch).execute([request]))
    (answer, last) = request.sender.sent
    assert answer["PAGE"].tolist() == [0] and last == "FINAL"
    status, message = error_of(answer)
    assert status == "INVALID_ARGUMENT" and message.startswith("the PDF cannot be opened")
