"""A PDF's answer, streamed or gathered, with a FAKE Triton stream standing in for the document
models (the real app otherwise): the NDJSON lines and their order, the JSON answer built from
the same stream, a page's error, a stream cut short, and the JSON answer's deadline growing
with the page count."""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import AsyncGenerator, Iterator
from typing import Any

import numpy as np
import pytest
from fastapi.testclient import TestClient

from gateway.deps import get_triton
from gateway.documents import wants_stream
from gateway.errors import GatewayError, TritonUnavailable
from gateway.main import create_app
from gateway.settings import Settings
from gateway.triton import Inference, Parameters, TextInputs

PDF = b"%PDF-1.7\n% a document the fake reads\n"
NDJSON = {"Accept": "application/x-ndjson"}
Step = tuple[float, Inference | GatewayError]  # after this many seconds, an answer (or an error)


def answer(**outputs: Any) -> Inference:
    return Inference("seal_document", "1", {name: np.asarray(value) for name, value in outputs.items()})


def count(pages: int) -> Inference:
    return answer(PAGE_COUNT=[pages])


Verdict = tuple[bool, float, int]  # an expected name's: found, score, seal (-1: none)


def unchecked() -> dict[str, Any]:
    """The document check's outputs of a page read without it: all empty."""
    strings = ("PARTY_ROLES", "PARTY_TEXTS", "PARTY_SOURCES", "PARTY_TAX_IDS")
    strings += ("DOCUMENT_KIND", "VERDICT", "VERDICT_REASONS")
    return {
        **{name: np.array([], np.object_) for name in strings},
        "PARTY_BOXES": np.zeros((0, 4), np.int32),
        "SEAL_PARTIES": np.zeros(0, np.int32),
        "SEAL_PARTY_SCORES": np.zeros(0, np.float32),
    }


def page(
    number: int, seals: int = 1, verdicts: list[Verdict] | None = None, check: dict[str, Any] | None = None
) -> Inference:
    """A page as seal_document answers it; `verdicts` are those of the expected names sent,
    `check` the document check's outputs (none: unchecked)."""
    boxes = np.tile(np.array([[10.0, 20.0, 30.0, 40.0]], np.float32), (seals, 1))
    texts = np.array([b"rim"] * seals, np.object_)
    verdicts = verdicts or []
    return answer(
        **(check or unchecked()),
        PAGE=[number],
        PAGE_SIZE=[300, 200],
        PAGE_ERROR=np.array([], np.object_),
        BOXES=boxes,
        SHAPES=np.array([b"round"] * seals, np.object_),
        RIM_TEXTS=texts,
        RIM_SCORES=np.ones(seals, np.float32),
        SEAL_SCORES=np.full(seals, 0.97, np.float32),
        INNER_TEXTS=np.array([], np.object_),
        INNER_SCORES=np.zeros(0, np.float32),
        INNER_SEALS=np.zeros(0, np.int32),
        CODES=np.array([], np.object_),
        CODE_SCORES=np.zeros(0, np.float32),
        CODE_SEALS=np.zeros(0, np.int32),
        MATCH_TEXTS=np.array([b"name" if verdicts else b""] * seals, np.object_),
        MATCH_SCORES=np.full(seals, 0.5 if verdicts else 0.0, np.float32),
        EXPECTED_FOUND=np.array([found for found, _, _ in verdicts], np.bool_),
        EXPECTED_SCORES=np.array([score for _, score, _ in verdicts], np.float32),
        EXPECTED_SEALS=np.array([seal for _, _, seal in verdicts], np.int32),
    )


def failed(number: int, status: str, message: str) -> Inference:
    return answer(
        PAGE=[number], PAGE_SIZE=[0, 0], PAGE_ERROR=np.array([status.encode(), message.encode()], np.object_)
    )


class FakeDocumentTriton:
    """Streams its script; records what it was asked and whether the stream was left early."""

    def __init__(self) -> None:
        self.script: list[Step] = []
        self.asked: list[tuple[Parameters, float]] = []
        self.texts: list[TextInputs | None] = []
        self.left_early = self.finished = False

    async def stream(
        self, model: str, image: bytes, parameters: Parameters, gap_s: float, texts: TextInputs | None = None
    ) -> AsyncGenerator[Inference, None]:
        self.asked.append((parameters, gap_s))
        self.texts.append(texts)
        try:
            for delay_s, step in self.script:
                await asyncio.sleep(delay_s)
                if isinstance(step, GatewayError):
                    raise step
                yield step
            self.finished = True
        except (GeneratorExit, asyncio.CancelledError):  # closed, or cancelled mid-wait
            self.left_early = True
            raise


@pytest.fixture
def fake() -> FakeDocumentTriton:
    return FakeDocumentTriton()


def client_for(fake: FakeDocumentTriton, **settings: Any) -> Iterator[TestClient]:
    app = create_app(Settings(**settings))
    app.dependency_overrides[get_triton] = lambda: fake
    with TestClient(app) as client:
        yield client


@pytest.fixture
def client(fake: FakeDocumentTriton) -> Iterator[TestClient]:
    yield from client_for(fake, page_timeout_s=7.0, request_timeout_s=11.0)


def post(client: TestClient, headers: dict[str, str] | None = None) -> Any:
    return client.post("/v1/seal", files={"image": ("a.pdf", PDF, "application/pdf")}, headers=headers or {})


def lines(response: Any) -> list[dict[str, Any]]:
    return [json.loads(line) for line in response.text.splitlines()]


def test_pages_are_lines_as_they_come_between_the_count_and_the_closing_line(
    client: TestClient, fake: FakeDocumentTriton
) -> None:
    fake.script = [
        (0, count(3)),
        (0, page(2)),
        (0, failed(3, "INVALID_ARGUMENT", "page 3: refused")),
        (0, page(1)),
    ]
    response = post(client, NDJSON)
    assert response.status_code == 200 and response.headers["content-type"] == "application/x-ndjson"
    model = {"name": "seal_document", "version": "1"}
    first, *pages, last = lines(response)
    assert first == {"pages": 3, "model": model}
    assert [p["page"] for p in pages] == [2, 3, 1]  # as read, not in page order
    assert (
        pages[0]["width"] == 200 and pages[0]["height"] == 300 and pages[0]["seals"][0]["rim_text"] == "rim"
    )
    assert pages[1] == {
        "page": 3,
        "error": {"status": 422, "code": "invalid_image", "message": "page 3: refused"},
    }
    assert last == {"done": True, "pages": 3, "failed": 1, "expected": [], "model": model}
    assert fake.asked == [({"page_timeout_s": 7.0}, 18.0)]  # the page deadline, and the gap it may take
    assert fake.finished and not fake.left_early
    metrics = client.get("/metrics").text
    assert 'gateway_document_pages_total{model="seal_document",outcome="ok"} 2.0' in metrics
    assert 'gateway_document_pages_total{model="seal_document",outcome="invalid_image"} 1.0' in metrics


def test_the_json_answer_is_built_from_the_same_stream_in_page_order(
    client: TestClient, fake: FakeDocumentTriton
) -> None:
    fake.script = [(0, count(2)), (0, page(2, seals=2)), (0, page(1))]
    streamed = {line["page"]: line for line in lines(post(client, NDJSON)) if "page" in line}
    response = post(client)
    assert response.status_code == 200
    assert response.json()["pages"] == [streamed[1], streamed[2]]


def test_a_failed_page_is_the_json_answer_and_the_pages_left_are_cancelled(
    client: TestClient, fake: FakeDocumentTriton
) -> None:
    fake.script = [
        (0, count(3)),
        (0, page(1)),
        (0, failed(2, "DEADLINE_EXCEEDED", "page 2: not read within 7 s")),
    ]
    fake.script.append((0, page(3)))
    response = post(client)
    assert response.status_code == 504
    assert response.json()["error"]["message"] == "page 2: not read within 7 s"
    assert fake.left_early and not fake.finished


def test_a_page_s_internal_failure_tells_the_client_nothing_of_it(
    client: TestClient, fake: FakeDocumentTriton
) -> None:
    fake.script = [(0, count(1)), (0, failed(1, "INTERNAL", "seal: internal error (Traceback ...)"))]
    (_, line, _) = lines(post(client, NDJSON))
    assert line["error"] == {
        "status": 502,
        "code": "upstream_error",
        "message": "the model failed on this request",
    }


def test_a_stream_cut_short_ends_with_an_error_line_and_no_closing_line(
    client: TestClient, fake: FakeDocumentTriton
) -> None:
    fake.script = [(0, count(3)), (0, page(1)), (0, TritonUnavailable("gone", retry_after_s=1))]
    *_, last = lines(post(client, NDJSON))
    assert last == {"error": {"status": 503, "code": "triton_unavailable", "message": "gone"}}
    assert post(client).status_code == 503


def requests_counted(client: TestClient, status_class: str) -> float:
    """How many /v1/seal requests the latency histogram holds with `status_class`."""
    sample = f'{REQUESTS}{{method="POST",route="/v1/seal",status_class="{status_class}"}} '
    found = [line for line in client.get("/metrics").text.splitlines() if line.startswith(sample)]
    return float(found[0].split()[-1]) if found else 0.0


REQUESTS = "gateway_http_request_duration_seconds_count"
CUT_SHORT = {
    "unavailable": ([TritonUnavailable("gone", retry_after_s=1)], 503, "triton_unavailable"),
    "stopped": ([], 502, "upstream_error"),
    "unexpected": ([answer(PAGE=[2])], 500, "internal_error"),  # no PAGE_ERROR: a bug of ours
}


@pytest.mark.parametrize("why", list(CUT_SHORT))
def test_a_stream_cut_short_is_recorded_as_its_error_and_ends_with_its_line(
    client: TestClient, fake: FakeDocumentTriton, caplog: pytest.LogCaptureFixture, why: str
) -> None:
    end, status, code = CUT_SHORT[why]
    fake.script = [(0, count(3)), (0, page(1)), *((0, step) for step in end)]
    with caplog.at_level(logging.INFO):
        response = post(client, NDJSON)
    assert response.status_code == 200  # sent before the first page, so the last line tells
    assert lines(response)[-1]["error"]["code"] == code
    if code == "internal_error":
        assert lines(response)[-1]["error"]["message"] == "internal server error"
        assert any(r.levelno == logging.ERROR and r.exc_info for r in caplog.records)
    (access,) = [r for r in caplog.records if r.name == "gateway.access"]
    assert access.fields["status"] == status  # type: ignore[attr-defined]
    assert requests_counted(client, f"{status // 100}xx") == 1 and requests_counted(client, "2xx") == 0


def test_a_stream_that_ends_before_its_pages_is_an_error(
    client: TestClient, fake: FakeDocumentTriton
) -> None:
    fake.script = [(0, count(3)), (0, page(1))]
    *_, last = lines(post(client, NDJSON))
    assert last["error"]["status"] == 502 and "stopped after 1 of 3 pages" in last["error"]["message"]


@pytest.mark.parametrize("headers", [{}, NDJSON], ids=["json", "ndjson"])
def test_a_pdf_refused_whole_is_the_request_s_error_either_way(
    client: TestClient, fake: FakeDocumentTriton, headers: dict[str, str]
) -> None:
    fake.script = [(0, failed(0, "INVALID_ARGUMENT", "the PDF has 1001 pages; at most 1000 are read"))]
    response = post(client, headers)
    assert response.status_code == 422 and response.headers["content-type"] == "application/json"
    assert response.json()["error"]["message"] == "the PDF has 1001 pages; at most 1000 are read"
    assert fake.finished  # read to its end: cancelling it at its final flag crashed Triton 2.51


def test_the_json_answer_s_deadline_grows_with_the_page_count_up_to_its_cap(fake: FakeDocumentTriton) -> None:
    fake.script = [(0, count(4)), *[(0.15, page(n)) for n in range(1, 5)]]  # 0.6 s, past the 0.3 s
    settings = {"request_timeout_s": 0.3, "document_page_s": 0.2}
    for client in client_for(fake, **settings):  # 0.3 + 4 x 0.2 = 1.1 s
        assert post(client).status_code == 200
    for client in client_for(fake, **settings, max_document_timeout_s=0.4):
        response = post(client)
        assert response.status_code == 504
        assert response.json()["error"]["message"] == "the 4 pages were not read within 0.4 s"
        assert fake.left_early


@pytest.mark.parametrize(
    ("accept", "stream"),
    [
        ("application/x-ndjson", True),
        ("application/json, application/x-ndjson;q=0.9", True),
        ("application/json", False),
        ("*/*", False),
        (None, False),
        ("application/x-ndjsonx", False),
    ],
)
def test_only_an_accept_naming_ndjson_asks_for_the_stream(accept: str | None, stream: bool) -> None:
    assert wants_stream(accept) is stream


def test_settings_deadline_is_the_request_s_plus_each_page_s_up_to_the_cap() -> None:
    settings = Settings(request_timeout_s=30, document_page_s=15, max_document_timeout_s=3600)
    assert [settings.document_timeout_s(pages) for pages in (1, 20, 1000)] == [45, 330, 3600]
