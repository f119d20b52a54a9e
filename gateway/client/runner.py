"""Sending files: bounded concurrency, retries the service asks for, one outcome per file.

Every file is sent asking for a stream (`Accept: application/x-ndjson`): a PDF's pages then
come one line at a time as the service reads them, and each is handed on at once
(`PageOutcome`) before the file's own outcome, its stream's closing line; an image is
answered with JSON as ever.

Retried: 429 (overloaded) and 503 (Triton unavailable), after the `Retry-After` they carry;
504 (Triton did not answer in time), a lost connection and a stream cut short, after an
exponential back-off with jitter (a retried PDF's pages already handed on are not handed on
again). Everything else is final: a 4xx will fail the same way again, and a 502 is a model
failing on this file. After `RetryPolicy.attempts` tries the last answer stands.
"""

from __future__ import annotations

import asyncio
import email.utils
import json
import mimetypes
import random
import time
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

RETRY_STATUSES = frozenset({429, 503, 504})
NDJSON = "application/x-ndjson"
NO_ANSWER = 0  # the status of a file that got no HTTP answer at all
REQUEST_TIMEOUT_S = 300.0  # a many-page PDF on a busy CPU server takes minutes
CONNECT_TIMEOUT_S = 10.0
ERROR_TEXT_CHARS = 300  # of a non-JSON error body kept in the output

Sleep = Callable[[float], Awaitable[None]]


@dataclass(frozen=True)
class RetryPolicy:
    """How often and how long to wait before sending a file again."""

    attempts: int = 6
    base_s: float = 0.5  # back-off of the first retry without Retry-After, doubled each time
    cap_s: float = 30.0  # no wait is longer, whatever Retry-After says


@dataclass(frozen=True)
class FileOutcome:
    """A file's final answer: the HTTP status (NO_ANSWER if none) and the JSON body."""

    file: str
    status: int
    body: Any

    @property
    def ok(self) -> bool:
        return 200 <= self.status < 300

    @property
    def pages(self) -> int:
        """Pages read not counted already: 1 for an image, a PDF answered as JSON its page
        count, a streamed PDF none (each was a PageOutcome), a failure none."""
        if not self.ok or not isinstance(self.body, dict) or self.body.get("done"):
            return 0
        pages = self.body.get("pages")
        return len(pages) if isinstance(pages, list) else 1

    def record(self) -> dict[str, Any]:
        """The output line: `{"file", "status", "result"}` or `{"file", "status", "error"}`."""
        return {"file": self.file, "status": self.status, ("result" if self.ok else "error"): self.body}


@dataclass(frozen=True)
class PageOutcome:
    """One page of a streamed PDF as it came: 200 and the page, or its error's status and error."""

    file: str
    page: int
    status: int
    body: Any

    @property
    def ok(self) -> bool:
        return 200 <= self.status < 300

    def record(self) -> dict[str, Any]:
        """The output line: `{"file", "page", "status", "result" | "error"}`."""
        answer = ("result" if self.ok else "error"), self.body
        return {"file": self.file, "page": self.page, "status": self.status, answer[0]: answer[1]}


Emit = Callable[[PageOutcome], None]
Form = Mapping[str, Sequence[str]]  # text fields sent beside every file, e.g. seal's `expect`
EMPTY_FORM: Form = {}


@dataclass
class PageRelay:
    """A file's stream read line by line: each page handed on once, over every try."""

    file: str
    emit: Emit
    seen: set[int] = field(default_factory=set)

    async def relay(self, response: httpx.Response) -> FileOutcome:
        """The file's outcome: the closing line (200), or the error a stream cut short ends with."""
        async for line in response.aiter_lines():
            if not line.strip():
                continue
            item = json.loads(line)
            if "page" in item:
                self._page(item)
            elif item.get("done"):
                return FileOutcome(self.file, response.status_code, item)
            elif "error" in item:
                return FileOutcome(self.file, int(item["error"]["status"]), item["error"])
        message = "the stream ended without its closing line"
        return FileOutcome(self.file, NO_ANSWER, {"code": "no_answer", "message": message})

    def _page(self, item: dict[str, Any]) -> None:
        number = int(item["page"])
        if number in self.seen:
            return
        self.seen.add(number)
        if "error" in item:
            self.emit(PageOutcome(self.file, number, int(item["error"]["status"]), item["error"]))
        else:
            self.emit(PageOutcome(self.file, number, 200, item))


def _retry_after(value: str | None) -> float | None:
    """Seconds a `Retry-After` header asks for (delta-seconds or an HTTP date), or None."""
    if not value:
        return None
    if value.strip().isdigit():
        return float(value.strip())
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


def retry_delay(response: httpx.Response | None, attempt: int, policy: RetryPolicy) -> float:
    """How long to wait before try `attempt + 1`: what the service asked, else back-off."""
    asked = _retry_after(response.headers.get("Retry-After")) if response is not None else None
    if asked is not None:
        return min(policy.cap_s, asked)
    return min(policy.cap_s, policy.base_s * 2.0**attempt) * random.uniform(0.5, 1.0)


def _error_body(response: httpx.Response) -> Any:
    try:
        body = response.json()
    except ValueError:
        return {"message": response.text[:ERROR_TEXT_CHARS]}
    return body.get("error", body) if isinstance(body, dict) else body


def outcome_of(path: Path, response: httpx.Response) -> FileOutcome:
    """The outcome a response gives a file."""
    if response.is_success:
        return FileOutcome(str(path), response.status_code, response.json())
    return FileOutcome(str(path), response.status_code, _error_body(response))


def _content_type(path: Path) -> str:
    return mimetypes.guess_type(path.name)[0] or "application/octet-stream"


async def _try(
    client: httpx.AsyncClient, endpoint: str, path: Path, data: bytes, pages: PageRelay, form: Form
) -> tuple[httpx.Response, FileOutcome]:
    """One try: the response (its body read) and the outcome it gives; raises
    httpx.TransportError."""
    files = {"image": (path.name, data, _content_type(path))}
    fields = {name: list(values) for name, values in form.items()}
    request = client.stream("POST", endpoint, files=files, data=fields, headers={"Accept": NDJSON})
    async with request as response:
        if response.is_success and response.headers.get("content-type", "").startswith(NDJSON):
            return response, await pages.relay(response)
        await response.aread()
    return response, outcome_of(path, response)


async def send(
    client: httpx.AsyncClient,
    endpoint: str,
    path: Path,
    policy: RetryPolicy,
    sleep: Sleep = asyncio.sleep,
    emit: Emit = lambda page: None,
    form: Form = EMPTY_FORM,
) -> FileOutcome:
    """Post one file as the multipart field `image` (beside the text fields of `form`),
    retrying as the module says; a PDF's pages are handed to `emit` as they come."""
    data, pages = path.read_bytes(), PageRelay(str(path), emit)
    for attempt in range(policy.attempts):
        last = attempt == policy.attempts - 1
        try:
            response, outcome = await _try(client, endpoint, path, data, pages, form)
        except httpx.TransportError as exc:
            if last:
                message = f"{type(exc).__name__}: {exc}"
                return FileOutcome(str(path), NO_ANSWER, {"code": "no_answer", "message": message})
            await sleep(retry_delay(None, attempt, policy))
            continue
        if outcome.status not in RETRY_STATUSES or last:
            return outcome
        await sleep(retry_delay(response, attempt, policy))
    raise AssertionError("unreachable: the last attempt returns")  # pragma: no cover


def headers(api_key: str | None) -> dict[str, str]:
    """Request headers: the API key as a bearer token, when there is one."""
    return {"Authorization": f"Bearer {api_key}"} if api_key else {}


async def run(
    client: httpx.AsyncClient,
    endpoint: str,
    files: Iterable[Path],
    concurrency: int,
    done: Callable[[FileOutcome | PageOutcome], None],
    policy: RetryPolicy = RetryPolicy(),
    form: Form = EMPTY_FORM,
) -> None:
    """Send every file (with the text fields of `form`) with at most `concurrency` in flight,
    calling `done` with each page of a PDF as it comes and with each file as it is settled."""
    queue = iter(files)

    async def worker() -> None:
        for path in queue:  # one iterator shared by all workers: each file is taken once
            done(await send(client, endpoint, path, policy, emit=done, form=form))

    await asyncio.gather(*(worker() for _ in range(max(1, concurrency))))


def client_for(base_url: str, api_key: str | None, concurrency: int) -> httpx.AsyncClient:
    """An HTTP client for the gateway at `base_url`, one connection per request in flight."""
    return httpx.AsyncClient(
        base_url=base_url,
        headers=headers(api_key),
        timeout=httpx.Timeout(REQUEST_TIMEOUT_S, connect=CONNECT_TIMEOUT_S),
        limits=httpx.Limits(max_connections=max(1, concurrency)),
    )
