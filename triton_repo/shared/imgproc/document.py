"""PDF documents as page images: the one place a PDF is opened and rendered.

A document is opened once (`PdfPages`) and its pages are rendered one at a time, when the
caller asks for them, so a long document costs the memory of the pages being read, not of
all its pages. A page is rendered at `RenderParams.dpi` (enough for the text and seal models:
a 4 cm seal is about 300 px at 200 dpi), shrunk where that would make its long side over
`max_side`, so that a poster-sized page (or a page of absurd size: pdfium holds a page to
14400 points) costs no more than a large scan.

What is the upload's fault is `ImageError`, the gateway's 422: bytes pdfium cannot parse, an
encrypted document (pdfium needs its password), more than `max_pages` pages (refused before
any is rendered), a stream that decodes past the caps (`pdfguard`: a PDF bomb), and a page
pdfium cannot load or render (that page only). Pages come out as RGB arrays and, for the
models that take encoded bytes, as uncompressed BMP (`encoded_page`): a page crosses to the
page model through shared memory, where compressing it would only cost CPU.

pdfium is not thread-safe: one `PdfPages` (and every other pdfium call in the process) must
be used from one thread at a time.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from types import TracebackType

import cv2
import numpy as np
import pypdfium2 as pdfium

from .arrays import Pixels
from .imaging import ImageError
from .pdfguard import StreamCaps, check_streams

POINTS_PER_INCH = 72.0
PDF_MAGIC = b"%PDF-"


@dataclass(frozen=True)
class RenderParams:
    """How pages are rendered, and the caps that keep a document's cost bounded."""

    dpi: float = 200.0
    max_side: int = 3000  # px: a page whose long side would be longer is rendered smaller
    # A longer document is refused rather than read in part. Memory does not grow with the
    # page count (pages are rendered as they are read); this bounds one request's time.
    max_pages: int = 1000
    streams: StreamCaps = field(default_factory=StreamCaps)


def page_scale(width_pt: float, height_pt: float, params: RenderParams) -> float:
    """Pixels per point for a page of this size: the dpi's, less where the page is large."""
    scale = params.dpi / POINTS_PER_INCH
    longest = max(width_pt, height_pt, 1.0)
    return min(scale, params.max_side / longest)


def _parsed(data: bytes) -> pdfium.PdfDocument:
    if not data.startswith(PDF_MAGIC):
        raise ImageError("not a PDF document")
    try:
        return pdfium.PdfDocument(data)
    except pdfium.PdfiumError as exc:  # malformed, truncated, or encrypted
        raise ImageError(f"the PDF cannot be opened: {exc}") from exc


def _checked_count(document: pdfium.PdfDocument, params: RenderParams) -> int:
    """The open document's page count; raises ImageError (none, or over the cap)."""
    count = len(document)
    if count == 0:
        raise ImageError("the PDF has no pages")
    if count > params.max_pages:
        raise ImageError(f"the PDF has {count} pages; at most {params.max_pages} are read")
    return count


class PdfPages:
    """An open PDF whose pages are rendered on demand; raises ImageError on opening."""

    def __init__(self, data: bytes, params: RenderParams) -> None:
        self._params = params
        self._document = _parsed(data)
        try:
            self.count = _checked_count(self._document, params)
            check_streams(data, params.streams)  # after the cheap checks: it reads every stream
        except BaseException:
            self._document.close()
            raise

    def render(self, number: int) -> Pixels:
        """Page `number` (from 1) as an HxWx3 uint8 RGB array; raises ImageError."""
        try:
            page = self._document[number - 1]
        except pdfium.PdfiumError as exc:  # a broken page tree: this page only
            raise ImageError(f"page {number} cannot be loaded: {exc}") from exc
        try:
            width_pt, height_pt = page.get_size()
            scale = page_scale(width_pt, height_pt, self._params)
            bitmap = page.render(scale=scale, rev_byteorder=True, may_draw_forms=True)
            return np.ascontiguousarray(bitmap.to_numpy()[..., :3])
        except pdfium.PdfiumError as exc:
            raise ImageError(f"page {number} cannot be rendered: {exc}") from exc
        finally:
            page.close()

    def close(self) -> None:
        self._document.close()

    def __enter__(self) -> PdfPages:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, trace: TracebackType | None
    ) -> None:
        self.close()


def encoded_page(rgb: Pixels) -> bytes:
    """A rendered page as BMP bytes, as the page models take an upload."""
    ok, encoded = cv2.imencode(".bmp", np.ascontiguousarray(rgb[..., ::-1]))
    if not ok:  # pragma: no cover - OpenCV encodes any uint8 BGR array
        raise ImageError("a rendered page could not be encoded")
    return encoded.tobytes()
