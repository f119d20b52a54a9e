"""The document models (`seal_document`, `ocr_document`): a PDF in, one response per page out,
each sent as soon as its page is read (Triton's decoupled mode).

The responses of one request, in this order:

- the document: `PAGE_COUNT` (INT32 [1]), once the PDF is open and its pages counted;
- one per page, in the order the pages are read: `PAGE` (INT32 [1], from 1), `PAGE_SIZE`
  (INT32 [2]: the rendered height and width, the pixels the page model's geometry is in),
  `PAGE_ERROR` (BYTES: empty, or [status, message] for a page that failed, its status named
  as gRPC names it: INVALID_ARGUMENT, DEADLINE_EXCEEDED, UNAVAILABLE, INTERNAL) and the
  page model's outputs (none where the page failed): a failed page does not stop the others;
- then the final flag, with no response.

The model's inputs other than the PDF (`IMAGE`), where a request sends them, are passed to
each page's call as they came (seal_document's optional `EXPECTED`: the names the seal model
checks every page's seals against, and `CHECK`: every page's seals checked against its
parties). Every input is checked before the first response (`check_inputs`, `page_timeout_s`):
a bad one is the document's error, never a page's.

A document that cannot be read at all (not a PDF, encrypted, over the caps) is one response
of `PAGE` 0 with its `PAGE_ERROR`, then the final flag. Errors travel as outputs rather than
as error responses because a stream's error response reaches the client as a bare message,
without its code or the page it belongs to.

Pages are rendered when a slot is free (`pages_in_flight`, shared by every document this
instance reads, so memory holds that many pages whatever the page counts and the number of
documents), on one thread of their own (pdfium is not thread-safe; the event loop stays free
to relay answers), and sent to the page model named by `page_model` through BLS. A request's
`page_timeout_s` parameter (the gateway sends its own) bounds each page from when it takes
its slot, its wait in the page model's queue included: a page past it is answered
DEADLINE_EXCEEDED and the stream goes on, while the page model finishes that page in its slot
(BLS calls cannot be cancelled in Triton 2.51), so the page queued behind a late one may miss
its deadline too. A request whose client has gone stops before its next page
(`pymodel.check_cancelled`) and is sent nothing more but the final flag.
"""

from __future__ import annotations

import asyncio
import json
import math
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, TypeVar

import numpy as np
import triton_python_backend_utils as pb_utils
from imgproc.arrays import AnyArray
from imgproc.document import PdfPages, RenderParams, encoded_page
from imgproc.imaging import ImageError
from imgproc.pdfguard import MIB, StreamCaps
from pymodel import (
    Failure,
    InvalidInput,
    ModelCallError,
    RequestCancelled,
    answering,
    call_model_outputs,
    check_cancelled,
    failure,
    model_config,
    optional_input,
    parameter,
    parameters,
    request_bytes,
    response,
    strings,
)

PAGE_COUNT, PAGE, PAGE_SIZE, PAGE_ERROR = "PAGE_COUNT", "PAGE", "PAGE_SIZE", "PAGE_ERROR"
PAGE_TABLE = (PAGE_COUNT, PAGE, PAGE_SIZE, PAGE_ERROR)
PAGE_INPUT = "IMAGE"
PAGE_TIMEOUT = "page_timeout_s"  # the request parameter bounding each page
DEADLINE_EXCEEDED = "DEADLINE_EXCEEDED"
# pb_utils.TritonError's names as gRPC (and the gateway's error map) spells them.
STATUS_NAMES = {"INVALID_ARG": "INVALID_ARGUMENT"}
T = TypeVar("T")


def render_params(config: dict[str, Any]) -> RenderParams:
    """The config's rendering parameters, defaults for the ones it leaves out."""
    values, defaults = parameters(config), RenderParams()
    streams = StreamCaps(
        max_stream_bytes=int(values.get("max_stream_mib", defaults.streams.max_stream_bytes // MIB)) * MIB,
        max_total_bytes=int(values.get("max_inflated_mib", defaults.streams.max_total_bytes // MIB)) * MIB,
    )
    return RenderParams(
        dpi=float(values.get("dpi", defaults.dpi)),
        max_side=int(values.get("max_side", defaults.max_side)),
        max_pages=int(values.get("max_pages", defaults.max_pages)),
        streams=streams,
    )


def page_outputs(config: dict[str, Any]) -> tuple[str, ...]:
    """The page model's outputs this model passes on: its own outputs but the page table."""
    return tuple(o["name"] for o in config["output"] if o["name"] not in PAGE_TABLE)


def passed_inputs(config: dict[str, Any]) -> tuple[str, ...]:
    """The inputs passed on to each page's call: this model's own but the PDF."""
    return tuple(i["name"] for i in config["input"] if i["name"] != PAGE_INPUT)


def request_inputs(request: Any, names: Sequence[str]) -> dict[str, AnyArray]:
    """Those of `names` the request sends, by name."""
    tensors = {name: optional_input(request, name) for name in names}
    return {name: tensor for name, tensor in tensors.items() if tensor is not None}


def page_timeout_s(request: Any) -> float | None:
    """The request's per-page deadline in seconds, None where it sets none; raises
    InvalidInput for one that is not a positive number of seconds."""
    value = json.loads(request.parameters() or "{}").get(PAGE_TIMEOUT)
    if value is None:
        return None
    if not 0 < (seconds := _number(value)) < math.inf:  # NaN fails too
        raise InvalidInput(f"{PAGE_TIMEOUT} must be a positive number of seconds, not {value!r}")
    return seconds


def _number(value: Any) -> float:
    """A JSON number, or its text, as a float; NaN for anything else (true, a list, words)."""
    try:
        return math.nan if isinstance(value, bool) else float(value)
    except (TypeError, ValueError):
        return math.nan


def _int32(*values: int) -> AnyArray:
    return np.array(values, np.int32)


def page_response(number: int, size: Sequence[int], outputs: dict[str, AnyArray]) -> Any:
    """A page read: its number, rendered size and the page model's outputs."""
    return response(**outputs, **{PAGE: _int32(number), PAGE_SIZE: _int32(*size), PAGE_ERROR: strings([])})


def page_error_response(number: int, answer: Failure) -> Any:
    """A page (or, as page 0, the document) that failed, with its status and message."""
    status = strings([STATUS_NAMES.get(answer.code, answer.code), answer.message])
    return response(**{PAGE: _int32(number), PAGE_SIZE: _int32(0, 0), PAGE_ERROR: status})


def timed_out(number: int, timeout: float | None) -> Failure:
    return Failure(DEADLINE_EXCEEDED, f"page {number}: not read within {timeout:g} s")


@dataclass(frozen=True)
class Reading:
    """One request's document being read: its pages, where its answers go, its page deadline
    and the inputs each page's call gets beside the page."""

    pages: PdfPages
    request: Any
    sender: Any
    timeout: float | None
    inputs: dict[str, AnyArray]


def send_while_wanted(request: Any, sender: Any, answer: Any) -> None:
    """Sends an answer unless the request's client has gone: nobody reads it, and a response
    racing the cancellation of its gRPC stream can crash Triton 2.51 (fixed in 24.12)."""
    if not request.is_cancelled():
        sender.send(answer)


class DocumentModel:
    """A PDF's pages rendered and read by the page model, each answered as it is read."""

    def initialize(self, args: dict[str, str]) -> None:
        config = model_config(args)
        self._name = config["name"]
        self._page_model = parameter(config, "page_model")
        self._params = render_params(config)
        self._outputs = page_outputs(config)
        self._inputs = passed_inputs(config)
        self._slots = asyncio.Semaphore(int(parameter(config, "pages_in_flight")))
        self._pdfium = ThreadPoolExecutor(max_workers=1, thread_name_prefix="pdfium")

    def finalize(self) -> None:
        self._pdfium.shutdown(wait=True)

    def check_inputs(self, inputs: dict[str, AnyArray]) -> None:
        """Where a document model knows what its page model accepts of the inputs passed on,
        it checks them here, before anything is answered; raises ImageError. None here."""

    async def execute(self, requests: list[Any]) -> None:
        """Decoupled: answers go through each request's response sender; returns None."""
        await asyncio.gather(*(self._answer(request) for request in requests))

    async def _on_pdfium(self, work: Callable[..., T], *args: Any) -> T:
        return await asyncio.get_running_loop().run_in_executor(self._pdfium, work, *args)

    async def _answer(self, request: Any) -> None:
        """Every response of one request, errors included, then the final flag."""
        answering(request)  # in this request's own task: its pages' BLS calls check it
        sender = request.get_response_sender()
        try:
            await self._stream(request, sender)
        except Exception as exc:  # noqa: BLE001 - the document's error is its answer
            send_while_wanted(request, sender, page_error_response(0, failure(exc, self._name, request)))
        finally:
            sender.send(flags=pb_utils.TRITONSERVER_RESPONSE_COMPLETE_FINAL)

    async def _stream(self, request: Any, sender: Any) -> None:
        """Raises InvalidInput, ImageError (the PDF cannot be read) and RequestCancelled."""
        # Every input is checked before the page count goes: a bad one after it would be an
        # error line in the middle of the stream, as if it were a page.
        timeout, inputs = page_timeout_s(request), request_inputs(request, self._inputs)
        self.check_inputs(inputs)
        pages = await self._on_pdfium(PdfPages, request_bytes(request)[0], self._params)
        try:
            sender.send(response(**{PAGE_COUNT: _int32(pages.count)}))
            await self._pages(Reading(pages, request, sender, timeout, inputs))
        finally:
            await self._on_pdfium(pages.close)

    async def _pages(self, reading: Reading) -> None:
        """Each page in a slot of its own, answered as it is read; returns once every page
        started has been answered (the final flag must come last). Raises RequestCancelled."""
        started = []
        try:
            for number in range(1, reading.pages.count + 1):
                await self._slots.acquire()
                try:
                    check_cancelled(reading.request)
                except RequestCancelled:
                    self._slots.release()
                    raise
                started.append(asyncio.ensure_future(self._page(number, reading)))
        finally:
            await asyncio.gather(*started)

    async def _page(self, number: int, reading: Reading) -> None:
        """Reads one page in its slot and sends its answer (or its error); the slot is given
        back once the page model is done with the page, even one answered as timed out."""
        work = asyncio.ensure_future(self._read(number, reading))
        try:
            answer = page_response(number, *await asyncio.wait_for(asyncio.shield(work), reading.timeout))
        except asyncio.TimeoutError:
            answer = page_error_response(number, timed_out(number, reading.timeout))
        except RequestCancelled:
            answer = None  # the document says so, once
        except Exception as exc:  # noqa: BLE001 - a page's error is that page's answer
            answer = page_error_response(number, failure(exc, self._name, reading.request))
        try:
            if answer is not None:
                send_while_wanted(reading.request, reading.sender, answer)
        finally:
            await asyncio.wait({work})
            if not work.cancelled():
                work.exception()  # retrieved: a late page's error was answered as its timeout
            self._slots.release()

    async def _read(self, number: int, reading: Reading) -> tuple[tuple[int, int], dict[str, AnyArray]]:
        """A page's rendered size and the page model's outputs; raises ImageError (the page
        cannot be rendered, or the page model refuses it), ModelCallError, RequestCancelled."""
        rendered = await self._on_pdfium(reading.pages.render, number)
        size = (int(rendered.shape[0]), int(rendered.shape[1]))
        image = np.frombuffer(await self._on_pdfium(encoded_page, rendered), np.uint8)[None]
        del rendered  # only the encoded page is held while the page model reads it
        try:
            inputs = {PAGE_INPUT: image, **reading.inputs}
            return size, await call_model_outputs(self._page_model, inputs, self._outputs)
        except ModelCallError as exc:
            if exc.invalid:  # the page's content is refused (too many seals): not the model down
                raise ImageError(f"page {number}: {exc.message}") from exc
            raise
