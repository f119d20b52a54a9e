"""The folder client's pure parts and its retry loop, against a fake HTTP server
(httpx.MockTransport): which files it sends, what a resumed run skips, what it retries and how
long it waits. The real stack is exercised in tests/integration/test_client.py."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest

from gateway.client import __main__ as cli
from gateway.client.files import discover, settled
from gateway.client.progress import Tally
from gateway.client.runner import NO_ANSWER, FileOutcome, PageOutcome, RetryPolicy, retry_delay, run, send

Handler = Callable[[httpx.Request], httpx.Response]


def fake_server(answers: list[httpx.Response | Exception]) -> tuple[httpx.AsyncClient, list[httpx.Request]]:
    """A client whose fake server gives `answers` in turn and records the requests."""
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        answer = answers.pop(0)
        if isinstance(answer, Exception):
            raise answer
        return answer

    return httpx.AsyncClient(transport=httpx.MockTransport(handler), base_url="http://gw"), seen


def send_with_fake_sleep(
    client: httpx.AsyncClient, path: Path, attempts: int = 4
) -> tuple[FileOutcome, list[float]]:
    waits: list[float] = []

    async def sleep(seconds: float) -> None:
        waits.append(seconds)

    async def go() -> FileOutcome:
        async with client:
            return await send(client, "/v1/mnist", path, RetryPolicy(attempts=attempts, base_s=0.5), sleep)

    return asyncio.run(go()), waits


@pytest.fixture
def image(tmp_path: Path) -> Path:
    path = tmp_path / "a.png"
    path.write_bytes(b"\x89PNG fake")
    return path


def test_discover_walks_folders_for_images_and_pdfs_and_keeps_named_files(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    for name in ("b.JPG", "sub/c.pdf", "sub/notes.txt", "a.png"):
        (tmp_path / name).write_bytes(b"x")
    named = tmp_path / "sub" / "notes.txt"
    assert discover([tmp_path, named, tmp_path / "a.png"]) == [
        tmp_path / "a.png",
        tmp_path / "b.JPG",
        tmp_path / "sub" / "c.pdf",
        named,
    ]


def test_discover_refuses_a_missing_path(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        discover([tmp_path / "nope"])


def test_settled_skips_final_answers_only_and_survives_a_cut_line(tmp_path: Path) -> None:
    output = tmp_path / "out.jsonl"
    lines = [
        {"file": "ok.png", "status": 200, "result": {}},
        {"file": "bad.png", "status": 415, "error": {}},
        {"file": "busy.png", "status": 429, "error": {}},
        {"file": "down.png", "status": 503, "error": {}},
        {"file": "lost.png", "status": NO_ANSWER, "error": {}},
    ]
    output.write_text("".join(json.dumps(line) + "\n" for line in lines) + '{"file": "cut.png", "sta')
    assert settled(output) == {"ok.png", "bad.png"}
    assert settled(tmp_path / "absent.jsonl") == set()


def test_429_is_retried_after_the_retry_after_it_carries(image: Path) -> None:
    client, seen = fake_server(
        [httpx.Response(429, headers={"Retry-After": "3"}, json={}), httpx.Response(200, json={"label": 7})]
    )
    outcome, waits = send_with_fake_sleep(client, image)
    assert (outcome.status, outcome.body, waits, len(seen)) == (200, {"label": 7}, [3.0], 2)
    assert seen[0].headers["content-type"].startswith("multipart/form-data")


def test_503_and_lost_connections_are_retried_with_growing_back_off(image: Path) -> None:
    client, _ = fake_server(
        [
            httpx.ConnectError("refused"),
            httpx.Response(503, json={}),
            httpx.Response(504, json={}),
            httpx.Response(200, json={}),
        ]
    )
    outcome, waits = send_with_fake_sleep(client, image)
    assert outcome.ok and len(waits) == 3
    assert 0.25 <= waits[0] <= 0.5 and 0.5 <= waits[1] <= 1.0 and 1.0 <= waits[2] <= 2.0


def test_client_errors_and_model_failures_are_final(image: Path) -> None:
    for status in (400, 413, 415, 422, 502):
        client, seen = fake_server([httpx.Response(status, json={"error": {"status": status, "code": "x"}})])
        outcome, waits = send_with_fake_sleep(client, image)
        assert (outcome.status, outcome.body, waits, len(seen)) == (
            status,
            {"status": status, "code": "x"},
            [],
            1,
        )
        assert outcome.record() == {"file": str(image), "status": status, "error": outcome.body}


def test_the_last_answer_stands_after_the_last_attempt(image: Path) -> None:
    client, _ = fake_server([httpx.ConnectError("refused")] * 2)
    outcome, waits = send_with_fake_sleep(client, image, attempts=2)
    assert outcome.status == NO_ANSWER and outcome.body["code"] == "no_answer" and len(waits) == 1


def test_retry_after_as_an_http_date_and_capped() -> None:
    policy = RetryPolicy(cap_s=10.0)
    far = httpx.Response(503, headers={"Retry-After": "Wed, 21 Oct 2099 07:28:00 GMT"})
    assert retry_delay(far, 0, policy) == 10.0
    assert retry_delay(httpx.Response(503, headers={"Retry-After": "0"}), 0, policy) == 0.0


def test_pages_count_a_pdf_answer_by_its_pages() -> None:
    assert FileOutcome("a.pdf", 200, {"pages": [{}, {}, {}]}).pages == 3
    assert FileOutcome("a.png", 200, {"seals": []}).pages == 1
    assert FileOutcome("a.png", 422, {}).pages == 0
    assert FileOutcome("a.pdf", 200, {"done": True, "pages": 3}).pages == 0  # its pages came one by one


def test_run_sends_each_file_once_with_bounded_concurrency(tmp_path: Path) -> None:
    files = [tmp_path / f"{i}.png" for i in range(9)]
    for path in files:
        path.write_bytes(b"x")
    in_flight, most = 0, 0

    async def handler(request: httpx.Request) -> httpx.Response:
        nonlocal in_flight, most
        in_flight += 1
        most = max(most, in_flight)
        await asyncio.sleep(0.01)
        in_flight -= 1
        return httpx.Response(
            200, json={"name": request.content.split(b'filename="')[1].split(b'"')[0].decode()}
        )

    async def go() -> list[FileOutcome]:
        done: list[FileOutcome] = []
        async with httpx.AsyncClient(transport=httpx.MockTransport(handler), base_url="http://gw") as client:
            await run(client, "/v1/ocr", files, 3, done.append)
        return done

    outcomes = asyncio.run(go())
    assert sorted(o.file for o in outcomes) == sorted(str(f) for f in files)
    assert {o.body["name"] for o in outcomes} == {f.name for f in files}
    assert most == 3


def ndjson(*lines: dict[str, Any]) -> httpx.Response:
    body = "".join(json.dumps(line) + "\n" for line in lines)
    return httpx.Response(200, text=body, headers={"content-type": "application/x-ndjson"})


START = {"pages": 3, "model": {"name": "seal_document", "version": "1"}}
DONE = {"done": True, "pages": 3, "failed": 1, "model": START["model"]}
PAGE_ERROR = {"status": 422, "code": "invalid_image", "message": "page 2: refused"}


def send_pdf(
    answers: list[httpx.Response | Exception], pdf: Path
) -> tuple[FileOutcome, list[PageOutcome], Any]:
    client, seen = fake_server(answers)
    pages: list[PageOutcome] = []

    async def no_wait(seconds: float) -> None:
        return None

    async def go() -> FileOutcome:
        async with client:
            return await send(client, "/v1/seal", pdf, RetryPolicy(attempts=3), no_wait, emit=pages.append)

    return asyncio.run(go()), pages, seen


@pytest.fixture
def pdf(tmp_path: Path) -> Path:
    path = tmp_path / "contract.pdf"
    path.write_bytes(b"%PDF-1.7 fake")
    return path


def test_a_pdf_s_pages_are_handed_on_as_they_come_then_its_closing_line(pdf: Path) -> None:
    answer = ndjson(
        START, {"page": 3, "seals": []}, {"page": 2, "error": PAGE_ERROR}, {"page": 1, "seals": []}, DONE
    )
    outcome, pages, requests = send_pdf([answer], pdf)
    assert requests[0].headers["accept"] == "application/x-ndjson"
    assert [(p.page, p.status) for p in pages] == [(3, 200), (2, 422), (1, 200)]
    assert pages[1].record() == {"file": str(pdf), "page": 2, "status": 422, "error": PAGE_ERROR}
    assert outcome.status == 200 and outcome.body == DONE and outcome.pages == 0  # counted page by page


def test_a_stream_cut_short_is_sent_again_and_its_pages_are_not_handed_on_twice(pdf: Path) -> None:
    cut = ndjson(START, {"page": 1, "seals": []}, {"error": {"status": 503, "code": "triton_unavailable"}})
    whole = ndjson(
        START, {"page": 1, "seals": []}, {"page": 2, "error": PAGE_ERROR}, {"page": 3, "seals": []}, DONE
    )
    outcome, pages, requests = send_pdf([cut, whole], pdf)
    assert len(requests) == 2 and [p.page for p in pages] == [1, 2, 3]
    assert outcome.status == 200


def test_a_stream_without_its_closing_line_is_no_answer(pdf: Path) -> None:
    outcome, pages, _ = send_pdf([ndjson(START, {"page": 1, "seals": []})], pdf)
    assert outcome.status == NO_ANSWER and [p.page for p in pages] == [1]


def test_a_resumed_run_sends_again_a_pdf_whose_own_line_never_came(tmp_path: Path) -> None:
    output = tmp_path / "out.jsonl"
    lines = [
        {"file": "a.pdf", "page": 1, "status": 200, "result": {}},
        {"file": "b.pdf", "page": 1, "status": 200, "result": {}},
        {"file": "b.pdf", "status": 200, "result": DONE},
    ]
    output.write_text("".join(json.dumps(line) + "\n" for line in lines))
    assert settled(output) == {"b.pdf"}


def test_the_expected_names_go_with_every_file_as_repeated_form_fields(image: Path) -> None:
    client, seen = fake_server([httpx.Response(200, json={"seals": [], "expected": []})])

    async def go() -> FileOutcome:
        async with client:
            form = {"expect": ["河南森源重工有限公司", "B"]}
            return await send(client, "/v1/seal", image, RetryPolicy(attempts=1), form=form)

    assert asyncio.run(go()).ok
    body = seen[0].read()
    assert body.count(b'name="expect"') == 2 and "河南森源重工有限公司".encode() in body
    assert b'name="image"; filename="a.png"' in body


def test_expect_and_expect_file_are_read_together_and_only_for_seals(tmp_path: Path) -> None:
    names = tmp_path / "names.txt"
    names.write_text("甲公司\n\n  乙公司  \n", encoding="utf-8")
    args = cli._parser().parse_args(["seal", str(tmp_path), "--expect", "丙", "--expect-file", str(names)])
    assert cli.names_to_expect(args) == ["丙", "甲公司", "乙公司"]
    for argv in (["ocr", str(tmp_path), "--expect", "丙"], ["seal", str(tmp_path), "--expect-file", "nope"]):
        with pytest.raises(SystemExit) as exited:
            cli.main(argv)
        assert exited.value.code == 2


def test_check_document_goes_with_every_seal_file_and_only_for_seals(tmp_path: Path) -> None:
    parser = cli._parser()
    args = parser.parse_args(["seal", str(tmp_path), "--check", "document", "--expect", "丙"])
    assert cli.form_of(args, parser) == {"expect": ["丙"], "check": ["document"]}
    for task, value in (("ocr", "document"), ("seal", "parties")):
        argv = [task, str(tmp_path), "--check", value]
        with pytest.raises(SystemExit) as exited:
            cli.main(argv)
        assert exited.value.code == 2


def test_the_summary_counts_the_pages_of_each_verdict() -> None:
    tally = Tally(3)
    verdict = {"kind": "invoice", "verdict": "seller_sealed", "reasons": ["r"]}
    unsealed = {**verdict, "verdict": "seller_unsealed"}
    tally.add(FileOutcome("a.png", 200, {"seals": [], "verdict": verdict}))
    tally.add(FileOutcome("b.pdf", 200, {"pages": [{"verdict": verdict}, {"verdict": unsealed}]}))
    tally.add(PageOutcome("c.pdf", 1, 200, {"page": 1, "verdict": unsealed}))
    tally.add(FileOutcome("d.png", 200, {"seals": []}))  # checked not
    assert tally.line().endswith("; verdicts: seller_sealed 2, seller_unsealed 2")
    assert "verdicts" not in Tally(1).line()
