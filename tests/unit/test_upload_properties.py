"""Property tests (Hypothesis) of the upload code: any header, any chunking, any multipart shape.

The properties: reading a header never raises anything but the gateway's own client errors and
agrees with Pillow on real images of every format; a multipart body parses to the same image
however the network splits it, its text fields (`expect`) kept in the order sent; a body cut
anywhere before its closing boundary is a client error, never an accepted (truncated) image.
Also: the gateway's modules do not import the models' `imgproc` (which changes Pillow's
settings for the whole process) nor Pillow itself.
"""

from __future__ import annotations

import asyncio
import io
import subprocess
import sys
from collections.abc import AsyncIterator

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from PIL import Image

from gateway.errors import ClientError, GatewayError
from gateway.headers import SUPPORTED_FORMATS, header_size
from gateway.uploads import ByteCaps, RawUpload, read_upload_bytes, sniff_format, validate_image
from tests.support.hostile import (
    bmp_claiming,
    gif_claiming,
    jpeg_claiming,
    png_claiming,
    tiff_claiming,
    webp_claiming,
)

BOUNDARY = "propertyboundary"
MULTIPART = f"multipart/form-data; boundary={BOUNDARY}"
CAP = 1 << 16
FAST = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
SIGNATURES = [
    b"\x89PNG\r\n\x1a\n",
    b"\xff\xd8\xff",
    b"GIF89a",
    b"BM",
    b"II*\x00",
    b"MM\x00*",
    b"RIFF\0\0\0\0WEBP",
]
PILLOW_FORMATS = {"png": "PNG", "jpeg": "JPEG", "gif": "GIF", "bmp": "BMP", "tiff": "TIFF", "webp": "WEBP"}
CLAIMING = [png_claiming, jpeg_claiming, gif_claiming, bmp_claiming, tiff_claiming, webp_claiming]


@FAST
@given(signature=st.sampled_from(SIGNATURES), rest=st.binary(max_size=600))
def test_any_bytes_behind_a_signature_are_accepted_or_a_client_error(signature: bytes, rest: bytes) -> None:
    data = signature + rest
    try:
        upload = validate_image(data, max_pixels=1 << 20)
    except ClientError:
        return
    assert upload.width * upload.height <= 1 << 20 and upload.width > 0 and upload.height > 0


@FAST
@given(
    fmt=st.sampled_from(sorted(PILLOW_FORMATS)),
    width=st.integers(1, 300),
    height=st.integers(1, 300),
    mode=st.sampled_from(["RGB", "L"]),
)
def test_every_format_header_agrees_with_pillow(fmt: str, width: int, height: int, mode: str) -> None:
    buffer = io.BytesIO()
    Image.new(mode, (width, height)).save(buffer, PILLOW_FORMATS[fmt])
    data = buffer.getvalue()
    assert sniff_format(data) == fmt
    assert header_size(data, fmt) == (width, height)


@FAST
@given(make=st.sampled_from(CLAIMING), width=st.integers(1, 65_535), height=st.integers(1, 65_535))
def test_a_header_that_claims_too_many_pixels_is_refused_before_decoding(
    make: object, width: int, height: int
) -> None:
    assert callable(make)
    data = make(width, height)
    cap = 1 << 22
    try:
        upload = validate_image(data, max_pixels=cap)
    except GatewayError as exc:
        assert exc.status == 422
        assert width * height > cap or "truncated" in exc.message
        return
    assert (upload.width, upload.height) == (width, height) and width * height <= cap


@FAST
@given(fmt=st.sampled_from(SUPPORTED_FORMATS), data=st.binary(max_size=64))
def test_header_readers_never_raise(fmt: str, data: bytes) -> None:
    size = header_size(data, fmt)
    assert size is None or (size[0] > 0 and size[1] > 0)


def multipart(parts: list[tuple[str, bytes]]) -> bytes:
    body = b"".join(
        f'--{BOUNDARY}\r\nContent-Disposition: form-data; name="{name}"; filename="f"\r\n\r\n'.encode()
        + data
        + b"\r\n"
        for name, data in parts
    )
    return body + f"--{BOUNDARY}--\r\n".encode()


async def split(body: bytes, cuts: list[int]) -> AsyncIterator[bytes]:
    edges = [0, *sorted({cut % (len(body) + 1) for cut in cuts}), len(body)]
    for start, end in zip(edges, edges[1:], strict=False):
        yield body[start:end]


def read_all(body: bytes, cuts: list[int]) -> RawUpload:
    return asyncio.run(read_upload_bytes(MULTIPART, split(body, cuts), ByteCaps(CAP)))


def read(body: bytes, cuts: list[int]) -> bytes:
    return read_all(body, cuts).data


field_names = st.sampled_from(["note", "other", "file", "x"])
payloads = st.binary(max_size=300).filter(lambda data: BOUNDARY.encode() not in data)


@FAST
@given(
    image=payloads,
    before=st.lists(st.tuples(field_names, payloads), max_size=3),
    after=st.lists(st.tuples(field_names, payloads), max_size=3),
    cuts=st.lists(st.integers(0, 10_000), max_size=12),
)
def test_the_image_field_survives_any_chunking_and_neighbours(
    image: bytes, before: list[tuple[str, bytes]], after: list[tuple[str, bytes]], cuts: list[int]
) -> None:
    body = multipart([*before, ("image", image), *after])
    assert read(body, cuts) == image


names = st.text(max_size=40).filter(lambda text: BOUNDARY not in text)


@FAST
@given(
    image=payloads,
    expected=st.lists(names, max_size=5),
    others=st.lists(st.tuples(field_names, payloads), max_size=3),
    cuts=st.lists(st.integers(0, 10_000), max_size=12),
)
def test_text_fields_survive_any_chunking_in_the_order_sent(
    image: bytes, expected: list[str], others: list[tuple[str, bytes]], cuts: list[int]
) -> None:
    texts = [("expect", name.encode()) for name in expected]
    upload = read_all(multipart([*texts[:2], *others, ("image", image), *texts[2:]]), cuts)
    assert upload.data == image
    assert upload.texts.get("expect", ()) == tuple(expected)


@FAST
@given(image=payloads, cut=st.integers(1, 10_000), cuts=st.lists(st.integers(0, 10_000), max_size=6))
def test_a_body_cut_before_its_closing_boundary_is_a_client_error(
    image: bytes, cut: int, cuts: list[int]
) -> None:
    body = multipart([("image", image)])
    closing = len(body) - len(b"-\r\n") + 1  # up to the first of the two closing hyphens
    truncated = body[: cut % closing]
    with pytest.raises(ClientError):
        read(truncated, cuts)


def test_the_gateway_imports_neither_imgproc_nor_pillow() -> None:
    """`imgproc` sets Image.MAX_IMAGE_PIXELS = None for its whole process, and the deployed
    gateway image does not contain it; the gateway reads headers by hand instead."""
    probe = (
        "import sys, gateway.__main__, gateway.main, gateway.server, gateway.supervisor;"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('imgproc', 'PIL')))"
    )
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "[]", result.stdout
