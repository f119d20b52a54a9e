"""imgproc.document: PDFs opened, capped and rendered page by page as the document models do it."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path

import imgproc
import numpy as np
import pytest
from imgproc.document import PdfPages, RenderParams, encoded_page, page_scale
from imgproc.imaging import ImageError, decode_rgb
from PIL import Image

from tests.support.hostile import A4_POINTS as A4
from tests.support.hostile import (
    blank_pdf,
    deep_page_tree_pdf,
    encrypted_pdf,
    flate_bomb_pdf,
    nested_pdf,
    one_page_pdf,
)


def picture_pdf() -> bytes:
    """One page holding a red square on white, as a scanner's PDF holds its image."""
    image = Image.new("RGB", (300, 200), "white")
    image.paste((200, 20, 20), (100, 50, 200, 150))
    buffer = io.BytesIO()
    image.save(buffer, "PDF", resolution=100)
    return buffer.getvalue()


def render_all(data: bytes, params: RenderParams) -> list[np.ndarray]:
    with PdfPages(data, params) as document:
        return [document.render(number) for number in range(1, document.count + 1)]


def test_pages_are_rendered_in_order_at_the_dpi() -> None:
    pages = render_all(blank_pdf(A4, A4[::-1]), RenderParams(dpi=144))
    assert [page.shape for page in pages] == [(1684, 1190, 3), (1190, 1684, 3)]
    assert all(page.dtype == np.uint8 and page.min() == 255 for page in pages)  # blank: white


def test_a_page_is_rendered_when_asked_for_in_any_order() -> None:
    with PdfPages(blank_pdf(A4, A4[::-1], (100, 100)), RenderParams(dpi=72)) as document:
        assert document.count == 3
        assert [document.render(n).shape[:2] for n in (3, 1, 2)] == [(100, 100), (842, 595), (595, 842)]


def test_a_picture_keeps_its_colours_and_place() -> None:
    (page,) = render_all(picture_pdf(), RenderParams(dpi=100))
    assert page.shape == (200, 300, 3)
    assert tuple(page[100, 150]) == pytest.approx((200, 20, 20), abs=8)  # RGB, not BGR
    assert tuple(page[10, 10]) == (255, 255, 255)


def test_a_large_page_is_held_to_the_long_side_cap() -> None:
    params = RenderParams(dpi=200, max_side=1000)
    assert page_scale(*A4, params) == pytest.approx(1000 / 842)
    assert page_scale(100, 100, params) == pytest.approx(200 / 72)
    (page,) = render_all(blank_pdf((5000, 3000)), params)
    assert max(page.shape[:2]) <= 1000


@pytest.mark.parametrize(
    ("box", "shape"),
    [(b"[0 0 1000000 1000000]", (3000, 3000)), (b"[0 0 14400 1]", (1, 3000)), (b"[0 0 -5 -5]", (14, 14))],
    ids=["absurdly-large", "a-thread", "negative"],
)
def test_a_page_of_absurd_size_is_bounded(box: bytes, shape: tuple[int, int]) -> None:
    (page,) = render_all(one_page_pdf(b"", box=box), RenderParams())
    assert page.shape[:2] == shape


def test_thousands_of_pages_are_refused_before_any_is_rendered() -> None:
    with pytest.raises(ImageError, match="5000 pages; at most 1000"):
        PdfPages(blank_pdf(*[A4] * 5000), RenderParams())


def test_the_page_cap_is_a_parameter() -> None:
    with pytest.raises(ImageError, match="3 pages; at most 2"):
        PdfPages(blank_pdf(A4, A4, A4), RenderParams(max_pages=2))


def test_deeply_nested_objects_are_bounded_by_pdfium() -> None:
    (page,) = render_all(nested_pdf(100_000), RenderParams(dpi=72))
    assert page.shape == (842, 595, 3)
    with PdfPages(deep_page_tree_pdf(5000), RenderParams()) as document:
        with pytest.raises(ImageError, match="page 1 cannot be loaded"):
            document.render(1)  # that page's error: the document's others would still be read


BOMB_MIB = 300  # over the 256 MiB stream cap
PEAK_OF = """
import re, sys
import pypdfium2 as pdfium
from imgproc.document import PdfPages, RenderParams
from imgproc.imaging import ImageError
data = sys.stdin.buffer.read()
try:
    if sys.argv[1] == "guarded":
        PdfPages(data, RenderParams())
    else:
        pdfium.PdfDocument(data)[0].render(scale=1)
except ImageError as exc:
    print(exc, file=sys.stderr)
# VmHWM is this program's own peak: ru_maxrss keeps the forking parent's from before exec
print(int(re.search(r"VmHWM:\\s+(\\d+) kB", open("/proc/self/status").read())[1]) // 1024)
"""


def peak_mib(pdf: bytes, how: str) -> tuple[int, str]:
    """The peak memory of a fresh process that opens `pdf` (`guarded`) or renders it with
    pdfium alone, and what it said on stderr."""
    # the image's venv has imgproc on pytest's path only, not installed: the child gets it too
    shared = str(Path(imgproc.__file__).resolve().parent.parent)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, (shared, os.environ.get("PYTHONPATH"))))}
    done = subprocess.run(
        [sys.executable, "-c", PEAK_OF, how], input=pdf, capture_output=True, check=True, timeout=120, env=env
    )
    return int(done.stdout), done.stderr.decode()


def test_a_flate_bomb_is_refused_on_opening_without_its_memory() -> None:
    bomb = flate_bomb_pdf(BOMB_MIB)
    unguarded, _ = peak_mib(bomb, "pdfium")
    guarded, said = peak_mib(bomb, "guarded")
    assert unguarded > BOMB_MIB  # pdfium alone inflates it whole to draw the page
    assert guarded < unguarded - BOMB_MIB // 2 and "decodes to more than 256 MiB" in said


@pytest.mark.parametrize(
    "data",
    [b"", b"%PDF-1.7\n garbage", blank_pdf(A4)[:200], b"\x89PNG\r\n\x1a\n", blank_pdf()],
    ids=["empty", "garbage", "truncated", "not-a-pdf", "no-pages"],
)
def test_what_is_not_a_readable_pdf_is_an_image_error(data: bytes) -> None:
    with pytest.raises(ImageError):
        render_all(data, RenderParams())


def test_an_encrypted_pdf_is_an_image_error() -> None:
    with pytest.raises(ImageError, match="cannot be opened"):
        render_all(encrypted_pdf(), RenderParams())


def test_an_encoded_page_decodes_to_the_same_pixels() -> None:
    (page,) = render_all(picture_pdf(), RenderParams(dpi=100))
    assert np.array_equal(decode_rgb(encoded_page(page)), page)
