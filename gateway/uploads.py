"""Reading an image upload: byte cap, streaming multipart parse, format sniffing, pixel guard.

The body is consumed chunk by chunk and never spooled to disk; only the `image` field and the
small text fields a route reads (`TEXT_FIELDS`) are kept, and reading stops as soon as a cap is
passed (of bytes, or of the form's parts), so an oversized upload costs at most the cap in
memory and time. The byte cap is the image cap, or the PDF cap for an upload that starts as a
PDF does on a route that reads documents (`ByteCaps`). Raw `application/octet-stream` (or
`image/*`) bodies are accepted too. Pixels are never decoded here: the format comes from the
magic bytes and the size from the header.

Raises (gateway.errors): EmptyUpload, MissingField, PayloadTooLarge, UnsupportedMediaType,
InvalidImage, InvalidField (text fields, a form of too many parts), ClientError (malformed
multipart).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass, field

from python_multipart.exceptions import MultipartParseError
from python_multipart.multipart import MultipartParser, parse_options_header

from gateway.errors import (
    ClientError,
    EmptyUpload,
    InvalidField,
    InvalidImage,
    MissingField,
    PayloadTooLarge,
    UnsupportedMediaType,
)
from gateway.headers import SUPPORTED_FORMATS, header_size

FIELD = "image"
# The text fields kept beside the image (each may repeat), for the routes that read them:
# `expect`, the names /v1/seal checks the seals against, and `check` (`document`: the seals
# checked against the page's own parties).
TEXT_FIELDS = frozenset({"expect", "check"})
# Their bytes together: 20 names of 64 characters are at most 5 KiB of UTF-8.
TEXT_FIELD_BYTES = 16 * 1024
# The parts of a form, of every kind, counted as the parser meets them: the image and up to 20
# expected names, with room for a client's own extra fields. The byte caps alone let a body of
# 150,000 empty parts cost 1.3 s of the gateway's CPU before the count of names was checked.
MAX_FORM_PARTS = 64
# Room for multipart boundaries, part headers and small extra fields around the image.
MULTIPART_OVERHEAD_BYTES = 64 * 1024
RAW_TYPES = ("application/octet-stream", "image/", "application/pdf")
# A PDF document, on the routes that read documents: rendered and read page by page inside
# Triton (its page count and pixels are capped there: the gateway never parses it).
PDF, PDF_MAGIC = "pdf", b"%PDF-"
_MAGIC: tuple[tuple[bytes, str], ...] = (
    (b"\x89PNG\r\n\x1a\n", "png"),
    (b"\xff\xd8\xff", "jpeg"),
    (b"GIF87a", "gif"),
    (b"GIF89a", "gif"),
    (b"BM", "bmp"),
    (b"II*\x00", "tiff"),
    (b"MM\x00*", "tiff"),
)


@dataclass(frozen=True)
class ByteCaps:
    """An upload's byte cap by what it is: an image's, or a PDF's where PDFs are read (None:
    not on this route, so a PDF is held to the image cap and then refused as 415)."""

    image: int
    pdf: int | None = None

    @property
    def largest(self) -> int:
        return max(self.image, self.pdf or 0)

    def check(self, data: bytes | bytearray) -> None:
        """Raises PayloadTooLarge once `data`, the upload so far, is over its cap."""
        if len(data) <= self.image and (self.pdf is None or len(data) <= self.pdf):
            return
        if self.pdf is not None and data[: len(PDF_MAGIC)] == PDF_MAGIC:
            if len(data) > self.pdf:
                raise PayloadTooLarge(f"the PDF exceeds the PDF upload cap of {self.pdf} bytes")
            return
        raise PayloadTooLarge(f"image exceeds the upload cap of {self.image} bytes")


Texts = Mapping[str, tuple[str, ...]]  # a text field's values, in the order sent


@dataclass(frozen=True)
class ImageUpload:
    """An accepted upload: its bytes, the sniffed format and the header's dimensions (0 for a
    PDF, whose pages are sized where they are rendered), and the text fields sent beside it."""

    data: bytes
    format: str
    width: int
    height: int
    texts: Texts = field(default_factory=dict)


def sniff_format(data: bytes) -> str | None:
    """The image format named by the leading magic bytes, or None."""
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "webp"
    return next((name for magic, name in _MAGIC if data.startswith(magic)), None)


def header_dimensions(data: bytes, image_format: str) -> tuple[int, int]:
    """Width and height from the image header alone (gateway.headers); raises InvalidImage."""
    if (size := header_size(data, image_format)) is None:
        raise InvalidImage(f"the {image_format} header is truncated or corrupt")
    return size


def validate_image(
    data: bytes, max_pixels: int, documents: bool = False, texts: Texts | None = None
) -> ImageUpload:
    """Check that bytes look like a supported image within the pixel cap, or, where
    `documents` are read, a PDF; `texts` (the form's text fields) travel with it."""
    if not data:
        raise EmptyUpload("the uploaded image is empty")
    if data.startswith(PDF_MAGIC):
        if not documents:
            raise UnsupportedMediaType("this endpoint reads images, not PDF documents")
        return ImageUpload(data, PDF, 0, 0, texts or {})
    image_format = sniff_format(data)
    if image_format is None:
        raise UnsupportedMediaType(f"unsupported image format; send one of: {', '.join(SUPPORTED_FORMATS)}")
    width, height = header_dimensions(data, image_format)
    if width * height > max_pixels:
        raise InvalidImage(f"image is {width}x{height} pixels, more than the cap of {max_pixels}")
    return ImageUpload(data, image_format, width, height, texts or {})


def check_declared_length(content_length: str | None, limit: int) -> None:
    """Refuse before reading when Content-Length already says the body is too big."""
    if content_length is not None and content_length.isdigit() and int(content_length) > limit:
        raise PayloadTooLarge(f"request body of {content_length} bytes exceeds {limit} bytes")


async def read_raw(chunks: AsyncIterator[bytes], caps: ByteCaps) -> bytes:
    """Collect a raw body, stopping as soon as it passes its cap."""
    body = bytearray()
    async for chunk in chunks:
        body += chunk
        caps.check(body)
    return bytes(body)


class _FieldCollector:
    """python-multipart callbacks that keep the bytes of one named field and of the text
    fields in TEXT_FIELDS.

    Header names and values may arrive split across chunks, so they are accumulated and
    judged once each header ends.
    """

    CALLBACKS = (
        "on_part_begin",
        "on_header_field",
        "on_header_value",
        "on_header_end",
        "on_part_data",
        "on_part_end",
        "on_end",
    )

    def __init__(self, field: str, caps: ByteCaps) -> None:
        self._field, self._caps = field.encode(), caps
        self._header_name = bytearray()
        self._header_value = bytearray()
        self._in_field = False
        self._text: str | None = None  # the text field the current part belongs to
        self._text_bytes = 0
        self._parts = 0
        self.found = False
        self.ended = False  # the closing boundary was seen
        self.data = bytearray()
        self.texts: dict[str, list[bytearray]] = {}

    def on_part_begin(self) -> None:
        self._parts += 1
        if self._parts > MAX_FORM_PARTS:
            raise InvalidField(f"the form has more than {MAX_FORM_PARTS} parts")
        self._in_field, self._text = False, None

    def on_header_field(self, data: bytes, start: int, end: int) -> None:
        self._header_name += data[start:end]

    def on_header_value(self, data: bytes, start: int, end: int) -> None:
        self._header_value += data[start:end]

    def on_header_end(self) -> None:
        if bytes(self._header_name).lower() == b"content-disposition":
            _, options = parse_options_header(bytes(self._header_value))
            name = options.get(b"name", b"")
            self._in_field = name == self._field and not self.found
            self.found = self.found or self._in_field
            if (text := name.decode("latin-1")) in TEXT_FIELDS:
                self._text = text
                self.texts.setdefault(text, []).append(bytearray())
        self._header_name.clear()
        self._header_value.clear()

    def on_part_data(self, data: bytes, start: int, end: int) -> None:
        if self._in_field:
            self.data += data[start:end]
            self._caps.check(self.data)
        elif self._text is not None:
            self._text_bytes += end - start
            if self._text_bytes > TEXT_FIELD_BYTES:
                raise InvalidField(f"the text fields beside the image exceed {TEXT_FIELD_BYTES} bytes")
            self.texts[self._text][-1] += data[start:end]

    def on_part_end(self) -> None:
        self._in_field, self._text = False, None

    def on_end(self) -> None:
        self.ended = True

    def text_values(self) -> Texts:
        """The text fields' values as sent; raises InvalidField for one that is not UTF-8."""
        try:
            return {
                name: tuple(bytes(v).decode("utf-8") for v in values) for name, values in self.texts.items()
            }
        except UnicodeDecodeError as exc:
            raise InvalidField(f"a text field is not UTF-8: {exc.reason}") from exc


@dataclass(frozen=True)
class RawUpload:
    """A request's upload as read, before its bytes are checked: the image (or PDF) and the
    text fields sent beside it (none for a raw body)."""

    data: bytes
    texts: Texts


async def read_multipart_field(chunks: AsyncIterator[bytes], boundary: bytes, caps: ByteCaps) -> RawUpload:
    """Stream a multipart body and return the `image` field's bytes and the text fields."""
    collector = _FieldCollector(FIELD, caps)
    callbacks = {name: getattr(collector, name) for name in _FieldCollector.CALLBACKS}
    max_size = caps.largest + MULTIPART_OVERHEAD_BYTES
    parser = MultipartParser(boundary, callbacks, max_size=max_size)  # type: ignore[arg-type]
    try:
        async for chunk in chunks:
            parser.write(chunk)
        parser.finalize()
    except MultipartParseError as exc:
        raise ClientError(f"malformed multipart body: {exc}") from exc
    # python-multipart's finalize() does not check that the body was complete: a body cut
    # short (a client that died, a proxy that gave up) would otherwise pass a truncated image.
    if not collector.ended:
        raise ClientError("truncated multipart body: it ends without its closing boundary")
    if not collector.found:
        raise MissingField(f"the multipart body has no {FIELD!r} field")
    return RawUpload(bytes(collector.data), collector.text_values())


def boundary_of(content_type: str) -> bytes:
    """The multipart boundary from a Content-Type header; raises ClientError."""
    _, options = parse_options_header(content_type)
    boundary = options.get(b"boundary")
    if not boundary:
        raise ClientError("multipart/form-data without a boundary")
    return boundary


async def read_upload_bytes(content_type: str, chunks: AsyncIterator[bytes], caps: ByteCaps) -> RawUpload:
    """The upload of a request: multipart field `image` (and its text fields) or a raw body."""
    media_type = content_type.split(";", 1)[0].strip().lower()
    if media_type == "multipart/form-data":
        return await read_multipart_field(chunks, boundary_of(content_type), caps)
    if media_type.startswith(RAW_TYPES):
        return RawUpload(await read_raw(chunks, caps), {})
    raise UnsupportedMediaType(
        f"send the image as multipart/form-data field {FIELD!r} or as application/octet-stream, "
        f"not {media_type or 'no content type'}"
    )
