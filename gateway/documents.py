"""A PDF's pages as the document models stream them: relayed as NDJSON lines as they come, or
gathered into one JSON answer.

A document model (triton_repo/shared/pydocument.py) answers a PDF with its page count
(`PAGE_COUNT`), then one response per page in the order the pages are read (`PAGE`,
`PAGE_SIZE`, `PAGE_ERROR` and the page model's outputs), then ends the stream; a PDF it
cannot read is one response of page 0 with its error. Both answers are built from that one
stream, so a PDF is read one way whatever the caller asks for:

- `application/x-ndjson` (`ndjson_lines`): a line with the page count, one line per page as
  soon as it is read (or its error, the usual error object: the other pages still come), and
  a closing line; a stream cut short, whatever cut it, ends with an error line instead (an
  error the gateway did not expect is logged and told as an internal error), and the request
  is recorded as that error (`failed_with`), not as the 200 it started with. Each page has its
  own deadline (`page_timeout_s`, kept inside Triton).
- JSON (`document_json`): every page in page order, or the first page's error as the answer
  (its HTTP status), the pages left cancelled. Its deadline grows with the page count
  (`Settings.document_timeout_s`), known from the stream's first response.

Errors before the first response (a PDF that cannot be read, Triton unavailable) are the
request's HTTP error either way. Raises GatewayError.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncGenerator, AsyncIterator, Callable
from contextlib import aclosing
from dataclasses import dataclass
from typing import Any

import numpy.typing as npt
import orjson

from gateway.errors import INTERNAL_MESSAGE, GatewayError, UpstreamError, UpstreamTimeout, error_body
from gateway.metrics import GatewayMetrics
from gateway.settings import Settings
from gateway.triton import Inference, TextInputs, TritonClient, error_for

logger = logging.getLogger(__name__)
NDJSON = "application/x-ndjson"
# The document models' tensors and request parameter (triton_repo/shared/pydocument.py).
PAGE_COUNT, PAGE, PAGE_SIZE, PAGE_ERROR = "PAGE_COUNT", "PAGE", "PAGE_SIZE", "PAGE_ERROR"
PAGE_TABLE = frozenset({PAGE_COUNT, PAGE, PAGE_SIZE, PAGE_ERROR})
PAGE_TIMEOUT = "page_timeout_s"
PAGE_DEADLINE = "DEADLINE_EXCEEDED"
OK = "ok"

Outputs = dict[str, npt.NDArray[Any]]
PageBody = Callable[[Outputs], dict[str, Any]]  # a page model's outputs as a page's JSON
Summary = Callable[[list[dict[str, Any]]], dict[str, Any]]  # the pages read, as the document's JSON


@dataclass(frozen=True)
class DocumentBody:
    """How a route writes a document: each page's JSON, and, where the document says something
    as a whole (the seal route's expected names: on which page each was found), its summary of
    the pages read, in the JSON answer and in the stream's closing line. A stream keeps its
    pages' JSON only where there is a summary to write."""

    page: PageBody
    summary: Summary | None = None

    def summarise(self, pages: list[dict[str, Any]]) -> dict[str, Any]:
        return {} if self.summary is None else self.summary(_in_order(pages))


@dataclass(frozen=True)
class PageRead:
    number: int
    height: int
    width: int
    outputs: Outputs


@dataclass(frozen=True)
class PageFailed:
    number: int
    error: GatewayError


@dataclass(frozen=True)
class Document:
    """A document being read: its page count, which model reads it, and its pages to come."""

    pages: int
    model: dict[str, str]
    responses: AsyncGenerator[Inference, None]


def wants_stream(accept: str | None) -> bool:
    """Whether an Accept header asks for NDJSON."""
    return any(part.split(";", 1)[0].strip() == NDJSON for part in (accept or "").split(","))


def page_answer(result: Inference, retry_after_s: int) -> PageRead | PageFailed:
    """One page's response, read or failed with our error for it."""
    number = int(result.outputs[PAGE][0])
    if len(error := result.outputs[PAGE_ERROR]):
        status, message = (value.decode() for value in error)
        if status == PAGE_DEADLINE:  # our own document model's words, naming the page and deadline
            return PageFailed(number, UpstreamTimeout(message))
        return PageFailed(number, error_for(status, message, retry_after_s))
    height, width = (int(side) for side in result.outputs[PAGE_SIZE])
    outputs = {name: value for name, value in result.outputs.items() if name not in PAGE_TABLE}
    return PageRead(number, height, width, outputs)


async def open_document(
    triton: TritonClient, model: str, data: bytes, settings: Settings, texts: TextInputs | None = None
) -> Document:
    """Sends the PDF (and `texts`, which the model passes to each page's) and waits for its page
    count; raises GatewayError (a PDF the model refuses is its InvalidImage)."""
    parameters = {PAGE_TIMEOUT: settings.page_timeout_s}
    responses = triton.stream(model, data, parameters, settings.stream_gap_s, texts)
    try:
        first = await anext(responses)
    except StopAsyncIteration:
        raise UpstreamError("the document model ended without an answer") from None
    if PAGE_COUNT in first.outputs:
        return Document(int(first.outputs[PAGE_COUNT][0]), first.model_ref(), responses)
    answer = page_answer(first, settings.retry_after_s)
    async for _ in responses:  # the final flag follows: cancelling now can crash Triton 2.51
        pass
    raise answer.error if isinstance(answer, PageFailed) else UpstreamError("no page count came first")


async def page_answers(
    document: Document, metrics: GatewayMetrics, retry_after_s: int
) -> AsyncGenerator[PageRead | PageFailed, None]:
    """Each page's answer as it comes, counted; raises GatewayError (the stream cut short)."""
    seen = 0
    async with aclosing(document.responses) as responses:
        async for result in responses:
            answer = page_answer(result, retry_after_s)
            outcome = answer.error.code if isinstance(answer, PageFailed) else OK
            metrics.document_pages.labels(document.model["name"], outcome).inc()
            seen += 1
            yield answer
    if seen < document.pages:
        raise UpstreamError(f"the document model stopped after {seen} of {document.pages} pages")


def document_page_json(answer: PageRead | PageFailed, body: DocumentBody) -> dict[str, Any]:
    """A page's JSON: its number and size and what was read, or its error."""
    if isinstance(answer, PageFailed):
        error = answer.error
        return {"page": answer.number, "error": error_body(error.status, error.code, error.message)}
    return {
        "page": answer.number,
        "width": answer.width,
        "height": answer.height,
        **body.page(answer.outputs),
    }


def _line(value: dict[str, Any]) -> bytes:
    return orjson.dumps(value, option=orjson.OPT_SERIALIZE_NUMPY | orjson.OPT_APPEND_NEWLINE)


def stream_error(exc: Exception, model: str) -> GatewayError:
    """What ends a stream cut short by `exc`: ours as it is; anything else logged, and told
    as an internal error."""
    if isinstance(exc, GatewayError):
        return exc
    logger.error("the stream of %s failed", model, exc_info=exc)
    return GatewayError(INTERNAL_MESSAGE)


async def ndjson_lines(
    document: Document,
    body: DocumentBody,
    metrics: GatewayMetrics,
    retry_after_s: int,
    failed_with: Callable[[int], None],
) -> AsyncIterator[bytes]:
    """The stream's lines: the page count, each page as it is read, the closing line with the
    document's summary (or, for a stream cut short, an error line instead, its status told to
    `failed_with`)."""
    yield _line({"pages": document.pages, "model": document.model})
    failed, pages = 0, list[dict[str, Any]]()
    try:
        async with aclosing(page_answers(document, metrics, retry_after_s)) as answers:
            async for answer in answers:
                failed += isinstance(answer, PageFailed)
                line = document_page_json(answer, body)
                if body.summary is not None:
                    pages.append(line)
                yield _line(line)
    except Exception as exc:  # noqa: BLE001 - every stream ends with its closing or its error line
        error = stream_error(exc, document.model["name"])
        metrics.rejections.labels(error.code).inc()
        failed_with(error.status)
        yield _line({"error": error_body(error.status, error.code, error.message)})
        return
    closing = {"done": True, "pages": document.pages, "failed": failed}
    yield _line({**closing, **body.summarise(pages), "model": document.model})


async def document_json(
    document: Document, body: DocumentBody, metrics: GatewayMetrics, settings: Settings
) -> Any:
    """Every page in page order; raises the first failed page's error, or UpstreamTimeout past
    the document's deadline."""
    deadline_s = settings.document_timeout_s(document.pages)
    pages = []
    try:
        async with asyncio.timeout(deadline_s):
            async with aclosing(page_answers(document, metrics, settings.retry_after_s)) as answers:
                async for answer in answers:
                    if isinstance(answer, PageFailed):
                        raise answer.error
                    pages.append(document_page_json(answer, body))
    except TimeoutError:
        raise UpstreamTimeout(f"the {document.pages} pages were not read within {deadline_s:g} s") from None
    return {"pages": _in_order(pages), **body.summarise(pages), "model": document.model}


def _in_order(pages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return sorted(pages, key=lambda page: int(page["page"]))
