"""imgproc.pdfguard: PDF bombs measured as pdfium would decode them, refused before it does."""

from __future__ import annotations

import base64
import random
import zlib

import pytest
from imgproc.document import PdfPages, RenderParams
from imgproc.imaging import ImageError
from imgproc.pdfguard import MIB, StreamCaps, check_streams

from tests.support.hostile import content_pdf, flate_bomb_pdf, flate_run, lzw_encode

SMALL = StreamCaps(max_stream_bytes=4 * MIB, max_total_bytes=10 * MIB)
BLACK_SQUARE = b"0 0 0 rg 100 100 300 300 re f\n"


def drawing(size: int, seed: int = 1) -> bytes:
    """A content stream of about `size` bytes (comments of mixed text) that draws a square."""
    rng = random.Random(seed)
    lines = []
    while sum(map(len, lines)) < size:
        lines.append(b"%% " + bytes(rng.choice(b"abcdefgh ") for _ in range(rng.randint(1, 40))) + b"\n")
    return b"".join(lines)[:size] + b"\n" + BLACK_SQUARE


def draws_the_square(pdf: bytes) -> bool:
    with PdfPages(pdf, RenderParams(dpi=72)) as document:
        page = document.render(1)
    return bool(page[842 - 250, 250].max() == 0 and page[10, 10].min() == 255)


@pytest.mark.parametrize(
    ("filters", "encode"),
    [
        (b"/FlateDecode", zlib.compress),
        (b"/LZWDecode", lzw_encode),
        (b"[/ASCIIHexDecode /FlateDecode]", lambda data: zlib.compress(data).hex().encode() + b">"),
        (b"[/ASCII85Decode /LZWDecode]", lambda data: base64.a85encode(lzw_encode(data)) + b"~>"),
    ],
    ids=["flate", "lzw", "hex-flate", "a85-lzw"],
)
def test_a_stream_is_measured_to_its_size_as_pdfium_decodes_it(filters: bytes, encode: object) -> None:
    content = drawing(300_000)
    assert callable(encode)
    pdf = content_pdf(encode(content), filters)
    assert draws_the_square(pdf)  # pdfium reads the encoding as written
    check_streams(pdf, StreamCaps(max_stream_bytes=len(content), max_total_bytes=len(content)))
    with pytest.raises(ImageError, match="decodes to more than"):
        check_streams(pdf, StreamCaps(max_stream_bytes=len(content) - 1, max_total_bytes=2 * len(content)))


@pytest.mark.parametrize(
    "pdf",
    [
        flate_bomb_pdf(64),
        content_pdf(lzw_encode(b" " * 8_000_000), b"/LZWDecode"),
        content_pdf(flate_run(64).hex().encode() + b">", b"[/ASCIIHexDecode /FlateDecode]"),
        content_pdf(zlib.compress(flate_run(64)), b"[/FlateDecode /FlateDecode]"),
    ],
    ids=["flate", "lzw", "wrapped-in-hex", "flate-twice"],
)
def test_a_bomb_is_refused(pdf: bytes) -> None:
    assert len(pdf) < MIB
    with pytest.raises(ImageError, match="a stream of the PDF decodes to more than 4 MiB"):
        check_streams(pdf, SMALL)


def test_many_small_streams_are_held_to_the_total() -> None:
    stream = flate_run(3)
    objects = b"".join(
        b"%d 0 obj\n<< /Length %d /Filter /FlateDecode >>\nstream\n%s\nendstream\nendobj\n"
        % (number, len(stream), stream)
        for number in range(1, 5)
    )
    with pytest.raises(ImageError, match="streams decode to more than 10 MiB"):
        check_streams(b"%PDF-1.7\n" + objects, SMALL)


def test_image_codecs_and_damaged_streams_are_left_to_pdfium() -> None:
    image = b"<< /Length 4 /Filter /DCTDecode >>\nstream\n\xff\xd8\xff\xe0\nendstream"
    damaged = b"<< /Length 9 /Filter /FlateDecode >>\nstream\nnot zlib!\nendstream"
    check_streams(b"%PDF-1.7\n1 0 obj\n" + image + b"\nendobj\n2 0 obj\n" + damaged + b"\nendobj\n", SMALL)
