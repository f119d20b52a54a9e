"""PDF documents as page images: the one place a PDF is opened and rendered.

A page is rendered at `RenderParams.dpi` (enough for the text and seal models: a 4 cm seal is
about 300 px at 200 dpi), shrunk where that would make its long side over `max_side`, so that
a poster-sized page costs no more than a large scan. A document of more than `max_pages`
pages, an encrypted one (pdfium needs its password) or bytes pdfium cannot parse are the
upload's fault: `ImageError`, the gateway's 422. Pages come out as RGB arrays and, for the
models that take encoded bytes, as uncompressed BMP (`encoded_page`): a page crosses to the
page model through shared memory, where compressing it would only cost CPU.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import cv2
import numpy as np
import pypdfium2 as pdfium

from .arrays import Pixels
from .imaging import ImageError

POINTS_PER_INCH = 72.0
PDF_MAGIC = b"%PDF-"


@dataclass(frozen=True)
class RenderParams:
    """How pages are rendered, and the caps that keep a document's cost bounded."""

    dpi: float = 200.0
    max_side: int = 3000  # px: a page whose long side would be longer is rendered smaller
    max_pages: int = 20  # a longer document is refused rather than read in part


def _open(data: bytes) -> pdfium.PdfDocument:
    if not data.startswith(PDF_MAGIC):
        raise ImageError("not a PDF document")
    try:
        return pdfium.PdfDocument(data)
    except pdfium.PdfiumError as exc:  # malformed, truncated, or encrypted
        raise ImageError(f"the PDF cannot be opened: {exc}") from exc


def page_scale(width_pt: float, height_pt: float, params: RenderParams) -> float:
    """Pixels per point for a page of this size: the dpi's, less where the page is large."""
    scale = params.dpi / POINTS_PER_INCH
    longest = max(width_pt, height_pt, 1.0)
    return min(scale, params.max_side / longest)


def _checked_count(document: pdfium.PdfDocument, params: RenderParams) -> int:
    """The open document's page count; raises ImageError (none, or over the cap)."""
    count = len(document)
    if count == 0:
        raise ImageError("the PDF has no pages")
    if count > params.max_pages:
        raise ImageError(f"the PDF has {count} pages; at most {params.max_pages} are read")
    return count


def page_count(data: bytes, params: RenderParams) -> int:
    """How many pages the document has; raises ImageError (unreadable, or over the cap)."""
    document = _open(data)
    try:
        return _checked_count(document, params)
    finally:
        document.close()


def rendered_pages(data: bytes, params: RenderParams) -> Iterator[Pixels]:
    """Every page as an HxWx3 uint8 RGB array, in order; raises ImageError (before any page
    is rendered where the document is unreadable or too long)."""
    document = _open(data)  # parsed once: the count is checked on the open document
    try:
        _checked_count(document, params)
        for page in document:
            width_pt, height_pt = page.get_size()
            scale = page_scale(width_pt, height_pt, params)
            try:
                bitmap = page.render(scale=scale, rev_byteorder=True, may_draw_forms=True)
                rgb = np.ascontiguousarray(bitmap.to_numpy()[..., :3])
            except pdfium.PdfiumError as exc:
                raise ImageError(f"a page of the PDF cannot be rendered: {exc}") from exc
            finally:
                page.close()
            yield rgb
    finally:
        document.close()


def encoded_page(rgb: Pixels) -> bytes:
    """A rendered page as BMP bytes, as the page models take an upload."""
    ok, encoded = cv2.imencode(".bmp", np.ascontiguousarray(rgb[..., ::-1]))
    if not ok:  # pragma: no cover - OpenCV encodes any uint8 BGR array
        raise ImageError("a rendered page could not be encoded")
    return encoded.tobytes()
