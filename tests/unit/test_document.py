"""imgproc.document: PDFs opened, capped and rendered as the document models do it."""

from __future__ import annotations

import io

import numpy as np
import pytest
from imgproc.document import RenderParams, encoded_page, page_count, page_scale, rendered_pages
from imgproc.imaging import ImageError, decode_rgb
from PIL import Image

from tests.support.hostile import A4_POINTS as A4
from tests.support.hostile import blank_pdf, encrypted_pdf


def picture_pdf() -> bytes:
    """One page holding a red square on white, as a scanner's PDF holds its image."""
    image = Image.new("RGB", (300, 200), "white")
    image.paste((200, 20, 20), (100, 50, 200, 150))
    buffer = io.BytesIO()
    image.save(buffer, "PDF", resolution=100)
    return buffer.getvalue()


def test_pages_are_rendered_in_order_at_the_dpi() -> None:
    pages = list(rendered_pages(blank_pdf(A4, A4[::-1]), RenderParams(dpi=144)))
    assert [page.shape for page in pages] == [(1684, 1190, 3), (1190, 1684, 3)]
    assert all(page.dtype == np.uint8 and page.min() == 255 for page in pages)  # blank: white


def test_a_picture_keeps_its_colours_and_place() -> None:
    (page,) = rendered_pages(picture_pdf(), RenderParams(dpi=100))
    assert page.shape == (200, 300, 3)
    assert tuple(page[100, 150]) == pytest.approx((200, 20, 20), abs=8)  # RGB, not BGR
    assert tuple(page[10, 10]) == (255, 255, 255)


def test_a_large_page_is_held_to_the_long_side_cap() -> None:
    params = RenderParams(dpi=200, max_side=1000)
    assert page_scale(*A4, params) == pytest.approx(1000 / 842)
    assert page_scale(100, 100, params) == pytest.approx(200 / 72)
    (page,) = rendered_pages(blank_pdf((5000, 3000)), params)
    assert max(page.shape[:2]) <= 1000


def test_too_many_pages_are_refused_before_any_is_rendered() -> None:
    with pytest.raises(ImageError, match="3 pages; at most 2"):
        page_count(blank_pdf(A4, A4, A4), RenderParams(max_pages=2))


@pytest.mark.parametrize(
    "data",
    [b"", b"%PDF-1.7\n garbage", blank_pdf(A4)[:200], b"\x89PNG\r\n\x1a\n", blank_pdf()],
    ids=["empty", "garbage", "truncated", "not-a-pdf", "no-pages"],
)
def test_what_is_not_a_readable_pdf_is_an_image_error(data: bytes) -> None:
    with pytest.raises(ImageError):
        list(rendered_pages(data, RenderParams()))


def test_an_encrypted_pdf_is_an_image_error() -> None:
    with pytest.raises(ImageError, match="cannot be opened"):
        list(rendered_pages(encrypted_pdf(), RenderParams()))


def test_an_encoded_page_decodes_to_the_same_pixels() -> None:
    (page,) = rendered_pages(picture_pdf(), RenderParams(dpi=100))
    assert np.array_equal(decode_rgb(encoded_page(page)), page)
