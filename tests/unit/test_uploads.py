"""Upload parsing and validation: pure functions, fed hostile and malformed bodies."""

from __future__ import annotations

import asyncio
import io
import time
from collections.abc import AsyncIterator

import pytest
from PIL import Image

from gateway.errors import (
    ClientError,
    EmptyUpload,
    InvalidField,
    InvalidImage,
    MissingField,
    PayloadTooLarge,
    UnsupportedMediaType,
)
from gateway.uploads import (
    MAX_FORM_PARTS,
    TEXT_FIELD_BYTES,
    ByteCaps,
    check_declared_length,
    read_upload_bytes,
    sniff_format,
    validate_image,
)

BOUNDARY = "testboundary123"
MULTIPART = f"multipart/form-data; boundary={BOUNDARY}"


def encode(image: Image.Image, fmt: str) -> bytes:
    buffer = io.BytesIO()
    image.save(buffer, fmt)
    return buffer.getvalue()


def multipart(fields: dict[str, bytes] | list[tuple[str, bytes]]) -> bytes:
    pairs = fields.items() if isinstance(fields, dict) else fields
    parts = [
        f'--{BOUNDARY}\r\nContent-Disposition: form-data; name="{name}"; filename="f"\r\n'
        f"Content-Type: application/octet-stream\r\n\r\n".encode()
        + data
        + b"\r\n"
        for name, data in pairs
    ]
    return b"".join(parts) + f"--{BOUNDARY}--\r\n".encode()


async def chunked(body: bytes, size: int = 7) -> AsyncIterator[bytes]:
    for start in range(0, len(body), size):
        yield body[start : start + size]


def read(content_type: str, body: bytes, cap: int = 1 << 20, pdf_cap: int | None = None) -> bytes:
    return asyncio.run(read_upload_bytes(content_type, chunked(body), ByteCaps(cap, pdf_cap))).data


@pytest.mark.parametrize("fmt", ["PNG", "JPEG", "GIF", "BMP", "TIFF", "WEBP"])
def test_every_supported_format_is_sniffed_and_sized(fmt: str) -> None:
    data = encode(Image.new("RGB", (31, 17), "white"), fmt)
    upload = validate_image(data, max_pixels=10_000)
    assert upload.format == fmt.lower()
    assert (upload.width, upload.height) == (31, 17)


def test_non_images_are_unsupported_media() -> None:
    assert sniff_format(b"%PDF-1.7 ...") is None
    with pytest.raises(UnsupportedMediaType):
        validate_image(b"<svg xmlns='http://www.w3.org/2000/svg'/>", max_pixels=10)


def test_empty_upload_is_its_own_error() -> None:
    with pytest.raises(EmptyUpload):
        validate_image(b"", max_pixels=10)


def test_truncated_header_is_invalid_image() -> None:
    with pytest.raises(InvalidImage):
        validate_image(b"\x89PNG\r\n\x1a\n\x00\x00", max_pixels=10)


def test_pixel_cap_is_checked_from_the_header() -> None:
    data = encode(Image.new("L", (200, 100)), "PNG")
    with pytest.raises(InvalidImage, match="200x100"):
        validate_image(data, max_pixels=19_999)


def test_multipart_keeps_only_the_image_field() -> None:
    body = multipart({"note": b"x" * 100, "image": b"\x89PNG-payload", "other": b"y"})
    assert read(MULTIPART, body) == b"\x89PNG-payload"


def test_multipart_without_image_field_is_missing_field() -> None:
    with pytest.raises(MissingField):
        read(MULTIPART, multipart({"file": b"abc"}))


def test_multipart_over_the_cap_stops_reading() -> None:
    consumed = 0

    async def endless() -> AsyncIterator[bytes]:
        nonlocal consumed
        yield multipart({"image": b""})[: -len(f"\r\n--{BOUNDARY}--\r\n")]
        while True:
            consumed += 4096
            yield b"z" * 4096

    with pytest.raises(PayloadTooLarge):
        asyncio.run(read_upload_bytes(MULTIPART, endless(), ByteCaps(64 * 1024)))
    assert consumed <= 64 * 1024 + 4096


def read_texts(body: bytes) -> dict[str, tuple[str, ...]]:
    return dict(asyncio.run(read_upload_bytes(MULTIPART, chunked(body), ByteCaps(1 << 20))).texts)


def test_text_fields_are_kept_in_order_and_others_dropped() -> None:
    body = multipart([("expect", "河南森源".encode()), ("note", b"x"), ("image", b"i"), ("expect", b"B")])
    assert read_texts(body) == {"expect": ("河南森源", "B")}
    assert read_texts(multipart({"image": b"i"})) == {}


def test_text_fields_past_their_cap_or_not_utf8_are_refused() -> None:
    names = [("expect", b"n" * 1000)] * (TEXT_FIELD_BYTES // 1000 + 1)
    with pytest.raises(InvalidField, match=f"exceed {TEXT_FIELD_BYTES} bytes"):
        read_texts(multipart([("image", b"i"), *names]))
    with pytest.raises(InvalidField, match="not UTF-8"):
        read_texts(multipart([("image", b"i"), ("expect", b"\xff\xfe")]))


def test_a_form_of_too_many_parts_is_refused_as_the_parser_meets_them() -> None:
    consumed = 0
    empty = f'--{BOUNDARY}\r\nContent-Disposition: form-data; name="expect"\r\n\r\n\r\n'.encode()

    async def many() -> AsyncIterator[bytes]:
        nonlocal consumed
        yield multipart({"image": b"i"})[: -len(f"--{BOUNDARY}--\r\n")]
        for _ in range(10 * MAX_FORM_PARTS):
            consumed += 1
            yield empty
        yield f"--{BOUNDARY}--\r\n".encode()

    with pytest.raises(InvalidField, match=f"more than {MAX_FORM_PARTS} parts"):
        asyncio.run(read_upload_bytes(MULTIPART, many(), ByteCaps(1 << 20)))
    assert consumed == MAX_FORM_PARTS  # the image was the first part: the next one over stops it


def test_raw_body_over_the_cap_is_too_large() -> None:
    with pytest.raises(PayloadTooLarge):
        read("application/octet-stream", b"a" * 101, cap=100)
    assert read("image/png", b"a" * 100, cap=100) == b"a" * 100


PDF = b"%PDF-1.7\n" + b"p" * 200


@pytest.mark.parametrize("content_type", ["application/pdf", MULTIPART])
def test_a_pdf_has_its_own_cap_where_pdfs_are_read(content_type: str) -> None:
    body = PDF if content_type == "application/pdf" else multipart({"image": PDF})
    assert read(content_type, body, cap=100, pdf_cap=len(PDF)) == PDF
    with pytest.raises(PayloadTooLarge, match=f"PDF upload cap of {len(PDF) - 1} bytes"):
        read(content_type, body, cap=10_000, pdf_cap=len(PDF) - 1)
    with pytest.raises(PayloadTooLarge, match="image exceeds the upload cap of 100"):
        read(content_type, body, cap=100)  # a route that reads no PDFs holds it to the image cap


def test_an_image_keeps_the_image_cap_beside_a_larger_pdf_cap() -> None:
    with pytest.raises(PayloadTooLarge, match="image exceeds the upload cap of 100"):
        read("image/png", b"\x89PNG" + b"a" * 100, cap=100, pdf_cap=10_000)


@pytest.mark.parametrize(
    "content_type, body",
    [
        ("multipart/form-data", b"--x\r\n"),  # no boundary
        (MULTIPART, b"garbage that is not multipart at all"),
    ],
)
def test_malformed_multipart_is_a_client_error(content_type: str, body: bytes) -> None:
    with pytest.raises(ClientError):
        read(content_type, body)


@pytest.mark.parametrize("content_type", ["text/plain", "application/json", ""])
def test_other_content_types_are_unsupported(content_type: str) -> None:
    with pytest.raises(UnsupportedMediaType):
        read(content_type, b"{}")


def test_declared_length_over_limit_is_refused_before_reading() -> None:
    check_declared_length("100", 100)
    check_declared_length(None, 100)
    with pytest.raises(PayloadTooLarge):
        check_declared_length("101", 100)


@pytest.mark.parametrize(
    "mode, size, options",
    [
        ("RGB", (640, 480), {}),
        ("L", (1, 1), {}),
        ("RGB", (4000, 3), {"progressive": True}),
        ("CMYK", (17, 1234), {}),
        ("RGB", (333, 222), {"exif": Image.Exif(), "quality": 40}),
    ],
)
def test_hand_read_jpeg_header_agrees_with_pillow(
    mode: str, size: tuple[int, int], options: dict[str, object]
) -> None:
    buffer = io.BytesIO()
    Image.new(mode, size).save(buffer, "JPEG", **options)
    data = buffer.getvalue()
    with Image.open(io.BytesIO(data)) as image:
        assert validate_image(data, max_pixels=1 << 30).width == image.size[0] == size[0]
        assert validate_image(data, max_pixels=1 << 30).height == image.size[1] == size[1]


@pytest.mark.parametrize("mode, size", [("RGBA", (1, 65535)), ("P", (300, 2)), ("I;16", (5, 7))])
def test_hand_read_png_header_agrees_with_pillow(mode: str, size: tuple[int, int]) -> None:
    upload = validate_image(encode(Image.new(mode, size), "PNG"), max_pixels=1 << 30)
    assert (upload.width, upload.height) == size


@pytest.mark.parametrize("cut", [3, 10, 20, 60, 150])
def test_jpeg_cut_before_its_frame_header_is_invalid(cut: int) -> None:
    data = encode(Image.new("RGB", (64, 64)), "JPEG")
    with pytest.raises(InvalidImage):
        validate_image(data[:cut], max_pixels=1 << 30)


@pytest.mark.parametrize(
    "data",
    [
        b"\x89PNG\r\n\x1a\n\x00\x00\x00\x0dIHDR\x00\x00\x00\x00\x00\x00\x00\x05",  # zero width
        b"\x89PNG\r\n\x1a\n\x00\x00\x00\x0dIDAT\x00\x00\x00\x05\x00\x00\x00\x05",  # no IHDR first
        b"\xff\xd8\xff\xe0\x00\x02" + b"\x00" * 8,  # a segment followed by garbage, no frame
        b"\xff\xd8\xff\xc0\x00\x11\x08\x00\x00\x00\x10",  # zero height
        b"\xff\xd8" + b"\xff" * 5000,  # fill bytes only
    ],
)
def test_hostile_png_and_jpeg_headers_are_invalid(data: bytes) -> None:
    with pytest.raises(InvalidImage):
        validate_image(data, max_pixels=1 << 30)


def test_a_hostile_run_of_jpeg_markers_is_refused_quickly() -> None:
    data = b"\xff\xd8" + b"\xff\xd0" * 5_000_000  # 10 MB of restart markers, no frame
    start = time.perf_counter()
    with pytest.raises(InvalidImage):
        validate_image(data, max_pixels=1 << 30)
    assert time.perf_counter() - start < 0.1


def test_a_phone_s_multi_picture_jpeg_is_taken_as_the_jpeg_it_is() -> None:
    photo, preview = Image.new("RGB", (64, 48), (200, 30, 30)), Image.new("RGB", (32, 24))
    encoded = io.BytesIO()
    photo.save(encoded, "MPO", save_all=True, append_images=[preview])
    upload = validate_image(encoded.getvalue(), max_pixels=10_000)
    assert (upload.format, upload.width, upload.height) == ("jpeg", 64, 48)
