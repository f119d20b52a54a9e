"""The document models (`seal_document`, `ocr_document`): a PDF in, a page model's answer for
every page out, as one response.

Each page is rendered here (`imgproc.document`) and sent to the page model named by the
config's `page_model` parameter (`seal`, `ocr`) through BLS; the pages of a document are in
flight together, so a page model with several instances (or a GPU) reads them at once. The
answer stacks every page's output tensors along their first axis, in page order, and says
how many rows of each output belong to each page (`PAGE_ROWS`, INT32 [pages, outputs], in
the order of the config's outputs) and each page's rendered size (`PAGE_SIZES`, INT32
[pages, 2]: height, width), so a client splits it back into per-page answers of the page
model's own shape. Row indices inside a page's answer (a line's seal, `INNER_SEALS`) stay
relative to that page.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

import numpy as np
from imgproc.arrays import AnyArray, Pixels
from imgproc.document import RenderParams, encoded_page, rendered_pages
from imgproc.imaging import ImageError
from pymodel import (
    AsyncPerRequestModel,
    ModelCallError,
    call_model_outputs,
    model_config,
    parameter,
    parameters,
    request_bytes,
    response,
)

PAGE_ROWS, PAGE_SIZES = "PAGE_ROWS", "PAGE_SIZES"
PAGE_INPUT = "IMAGE"


def render_params(config: dict[str, Any]) -> RenderParams:
    """The config's rendering parameters (`dpi`, `max_side`, `max_pages`), defaults for the rest."""
    values = parameters(config)
    defaults = RenderParams()
    return RenderParams(
        dpi=float(values.get("dpi", defaults.dpi)),
        max_side=int(values.get("max_side", defaults.max_side)),
        max_pages=int(values.get("max_pages", defaults.max_pages)),
    )


def page_outputs(config: dict[str, Any]) -> tuple[str, ...]:
    """The page model's outputs this model passes on: its own outputs but the page table."""
    return tuple(o["name"] for o in config["output"] if o["name"] not in (PAGE_ROWS, PAGE_SIZES))


def stacked(pages: Sequence[dict[str, AnyArray]], names: Sequence[str]) -> dict[str, AnyArray]:
    """Every page's outputs stacked along their first axis, with the rows each page holds."""
    rows = np.array([[len(page[name]) for name in names] for page in pages], np.int32)
    tensors = {name: np.concatenate([page[name] for page in pages]) for name in names}
    return {**tensors, PAGE_ROWS: rows.reshape(len(pages), len(names))}


class DocumentModel(AsyncPerRequestModel):
    """A PDF's pages rendered and read by the page model, answered as one response."""

    def initialize(self, args: dict[str, str]) -> None:
        config = model_config(args)
        self._page_model = parameter(config, "page_model")
        self._params = render_params(config)
        self._outputs = page_outputs(config)

    async def _read(self, number: int, page: Pixels) -> dict[str, AnyArray]:
        image = np.frombuffer(encoded_page(page), np.uint8)[None]
        try:
            return await call_model_outputs(self._page_model, {PAGE_INPUT: image}, self._outputs)
        except ModelCallError as exc:
            if exc.invalid:  # the page's content is refused (too many seals): not the model down
                raise ImageError(f"page {number}: {exc.message}") from exc
            raise

    async def respond(self, request: Any) -> Any:
        """Raises ImageError (an unreadable PDF, or a page the page model refuses),
        RequestCancelled and ModelCallError, which `pymodel.failed` answers as INVALID_ARG,
        CANCELLED and UNAVAILABLE."""
        pages = list(rendered_pages(request_bytes(request)[0], self._params))
        answers = await asyncio.gather(*(self._read(number, page) for number, page in enumerate(pages, 1)))
        sizes = np.array([page.shape[:2] for page in pages], np.int32)
        return response(**stacked(answers, self._outputs), **{PAGE_SIZES: sizes})
