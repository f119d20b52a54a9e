"""A corpus of hostile and malformed uploads, generated at test time (nothing binary committed).

Each entry is an upload a careless or malicious client might send: headers that lie about the
size (the decompression-bomb shape of every accepted format), bodies cut short at any point,
garbage behind a valid signature, degenerate but valid images. The gateway must answer each
with a 4xx JSON error, or 200 where the image is valid, and never a 5xx.
"""

from __future__ import annotations

import io
import struct
import zlib
from collections.abc import Callable

import pypdfium2 as pdfium
from PIL import Image

HUGE = 65_535


def encoded(mode: str, size: tuple[int, int], fmt: str, **options: object) -> bytes:
    buffer = io.BytesIO()
    Image.new(mode, size, "white").save(buffer, fmt, **options)
    return buffer.getvalue()


def _png_chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def png_claiming(width: int, height: int, idat: bytes = b"") -> bytes:
    """A PNG whose IHDR says width x height (8-bit grey), followed by `idat` as its pixels."""
    header = _png_chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0))
    return b"\x89PNG\r\n\x1a\n" + header + _png_chunk(b"IDAT", idat) + _png_chunk(b"IEND", b"")


def png_bomb(side: int) -> bytes:
    """A true side x side PNG of zeros: tiny on the wire, side**2 bytes once decoded."""
    return png_claiming(side, side, zlib.compress(b"\x00" * ((side + 1) * side), 9))


def gif_claiming(width: int, height: int) -> bytes:
    """The issue's 30-byte GIF: a screen and one frame of width x height, a one-pixel body."""
    screen = b"GIF89a" + struct.pack("<HHBBB", width, height, 0, 0, 0)
    frame = b"\x2c" + struct.pack("<HHHHB", 0, 0, width, height, 0)
    return screen + frame + b"\x02\x02\x44\x01\x00\x3b"


def bmp_claiming(width: int, height: int) -> bytes:
    """A BITMAPINFOHEADER BMP of width x height, 24-bit, with no pixel data."""
    info = struct.pack("<IiiHHIIiiII", 40, width, height, 1, 24, 0, 0, 2835, 2835, 0, 0)
    return b"BM" + struct.pack("<IHHI", 14 + len(info), 0, 0, 14 + len(info)) + info


def tiff_claiming(width: int, height: int) -> bytes:
    """A little-endian TIFF whose first IFD says width x height, 8-bit grey, one empty strip."""
    entries = [(256, 4, 1, width), (257, 4, 1, height), (258, 3, 1, 8), (262, 3, 1, 1), (273, 4, 1, 8)]
    ifd = struct.pack("<H", len(entries)) + b"".join(struct.pack("<HHII", *e) for e in entries)
    return b"II*\x00" + struct.pack("<I", 8) + ifd + b"\x00\x00\x00\x00"


def webp_claiming(width: int, height: int) -> bytes:
    """An extended-format WebP whose canvas is width x height, with no image chunk."""
    vp8x = b"VP8X" + struct.pack("<I", 10) + b"\x00\x00\x00\x00"
    vp8x += (width - 1).to_bytes(3, "little") + (height - 1).to_bytes(3, "little")
    return b"RIFF" + struct.pack("<I", 4 + len(vp8x)) + b"WEBP" + vp8x


def jpeg_claiming(width: int, height: int) -> bytes:
    """A JPEG start-of-frame that says width x height, then the end of the file."""
    frame = b"\xff\xc0" + struct.pack(">HBHHB", 11, 8, height, width, 1) + b"\x01\x11\x00"
    return b"\xff\xd8" + frame + b"\xff\xd9"


def _cut(data: bytes, fraction: float) -> bytes:
    return data[: max(1, int(len(data) * fraction))]


def _garbage_after_signature(data: bytes, keep: int) -> bytes:
    return data[:keep] + bytes((i * 37 + 11) % 256 for i in range(len(data) - keep))


def corpus(max_pixels: int) -> dict[str, bytes]:
    """Name -> upload. `max_pixels` is the cap the bombs are built to exceed."""
    side = int(max_pixels**0.5) + 1
    jpeg = encoded("RGB", (64, 48), "JPEG")
    png = encoded("RGB", (64, 48), "PNG")
    makers: dict[str, Callable[[], bytes]] = {
        "one byte": lambda: b"\x89",
        "text": lambda: b"hello, this is not an image",
        "svg": lambda: b"<svg xmlns='http://www.w3.org/2000/svg' width='1e9' height='1e9'/>",
        "pdf": lambda: b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n",
        "pdf of 1001 blank pages": lambda: blank_pdf(*[A4_POINTS] * 1001),
        "pdf cut in half": lambda: _cut(blank_pdf(A4_POINTS, A4_POINTS), 0.5),
        "encrypted pdf": encrypted_pdf,
        "png signature only": lambda: b"\x89PNG\r\n\x1a\n",
        "png claiming 65535 squared": lambda: png_claiming(HUGE, HUGE),
        "png bomb over the cap": lambda: png_bomb(side),
        "png cut in half": lambda: _cut(png, 0.5),
        "png garbage pixels": lambda: _garbage_after_signature(png, 33),
        "png zero width": lambda: png_claiming(0, 10),
        "jpeg claiming 65535 squared": lambda: jpeg_claiming(HUGE, HUGE),
        "jpeg frame only": lambda: jpeg_claiming(64, 48),
        "jpeg cut in half": lambda: _cut(jpeg, 0.5),
        "jpeg garbage after the header": lambda: _garbage_after_signature(jpeg, 200),
        "jpeg markers only": lambda: b"\xff\xd8" + b"\xff\xd0" * 50_000,
        "gif claiming 65535 squared (30 bytes)": lambda: gif_claiming(HUGE, HUGE),
        "gif screen only": lambda: gif_claiming(HUGE, HUGE)[:13],
        "bmp claiming 100000 squared": lambda: bmp_claiming(100_000, 100_000),
        "bmp claiming a negative width": lambda: bmp_claiming(-5, 5),
        "bmp header only": lambda: b"BM" + b"\x00" * 12,
        "tiff claiming 100000 squared": lambda: tiff_claiming(100_000, 100_000),
        "tiff ifd past the end": lambda: b"II*\x00" + struct.pack("<I", 1 << 30),
        "webp canvas 16M squared": lambda: webp_claiming(1 << 24, 1 << 24),
        "webp chunk cut short": lambda: webp_claiming(100, 100)[:22],
        "riff that is not webp": lambda: b"RIFF\x04\x00\x00\x00WAVE",
        "tiny valid png": lambda: encoded("RGB", (1, 1), "PNG"),
        "tiny valid gif": lambda: encoded("P", (1, 1), "GIF"),
        "tiny valid webp": lambda: encoded("RGB", (1, 1), "WEBP"),
        "thin valid png": lambda: encoded("L", (4000, 1), "PNG"),
        "tall valid bmp": lambda: encoded("RGB", (1, 3000), "BMP"),
        "valid tiff": lambda: encoded("RGB", (40, 30), "TIFF"),
        "truncated tiff": lambda: _cut(encoded("RGB", (40, 30), "TIFF"), 0.3),
    }
    return {name: make() for name, make in makers.items()}


# What each kind of entry must get: these are checked exactly, the rest only "4xx JSON or 200".
EXPECTED_STATUS = {
    "png claiming 65535 squared": 422,
    "png bomb over the cap": 422,
    "jpeg claiming 65535 squared": 422,
    "gif claiming 65535 squared (30 bytes)": 422,
    "bmp claiming 100000 squared": 422,
    "tiff claiming 100000 squared": 422,
    "webp canvas 16M squared": 422,
    "text": 415,
    "svg": 415,
}
# PDFs: read on the document routes (where these are 422: unreadable, encrypted, over the
# page cap), refused as 415 on the others.
DOCUMENT_ROUTES = frozenset({"/v1/ocr", "/v1/seal"})
PDF_ENTRIES = frozenset({"pdf", "pdf of 1001 blank pages", "pdf cut in half", "encrypted pdf"})


def expected_status(name: str, route: str) -> int | None:
    """The status an entry must get on a route, or None where any 4xx JSON (or 200) will do."""
    if name in PDF_ENTRIES:
        return 422 if route.split("?")[0] in DOCUMENT_ROUTES else 415
    return EXPECTED_STATUS.get(name)


A4_POINTS = (595.0, 842.0)


def blank_pdf(*sizes: tuple[float, float]) -> bytes:
    """A PDF of blank pages of these sizes (points)."""
    document = pdfium.PdfDocument.new()
    for width, height in sizes:
        document.new_page(width, height)
    buffer = io.BytesIO()
    document.save(buffer)
    return buffer.getvalue()


def encrypted_pdf() -> bytes:
    """A one-page PDF whose trailer names a standard-security encryption dictionary: pdfium
    cannot open it without the password, as with a user's protected PDF."""
    plain = blank_pdf(A4_POINTS).decode("latin-1")
    encrypt = (
        f"/Encrypt << /Filter /Standard /V 2 /R 3 /Length 128 /O <{'ab' * 32}> /U <{'cd' * 32}> /P -4 >>"
    )
    return plain.replace("trailer\r\n<<", "trailer\r\n<<" + encrypt, 1).encode("latin-1")


# PDF bombs and oddities, written object by object (pdfium writes only sane documents).
CATALOG = b"<< /Type /Catalog /Pages 2 0 R >>"
MIB = 1024 * 1024


def raw_pdf(*objects: bytes) -> bytes:
    """A PDF whose object i (from 1) is `objects[i - 1]`, object 1 the catalog."""
    out = bytearray(b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for number, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n%s\nendobj\n" % (number, body)
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
    return bytes(out)


def stream_object(data: bytes, entries: bytes = b"") -> bytes:
    return b"<< /Length %d %s >>\nstream\n%s\nendstream" % (len(data), entries, data)


def one_page_pdf(page_entries: bytes, *more: bytes, box: bytes = b"[0 0 595 842]") -> bytes:
    """One page (object 3) with these entries; `more` are objects 4, 5, ..."""
    pages = b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>"
    page = b"<< /Type /Page /Parent 2 0 R /MediaBox %s %s >>" % (box, page_entries)
    return raw_pdf(CATALOG, pages, page, *more)


def content_pdf(content: bytes, filters: bytes = b"") -> bytes:
    """One page drawn by this content stream, encoded by `filters` (a /Filter value)."""
    entries = b"/Filter %s" % filters if filters else b""
    return one_page_pdf(b"/Contents 4 0 R", stream_object(content, entries))


def flate_run(mib: int, byte: bytes = b" ") -> bytes:
    """`mib` MiB of one byte, deflated (about a thousandth of its size)."""
    deflater = zlib.compressobj(9)
    chunk = byte * MIB
    return b"".join(deflater.compress(chunk) for _ in range(mib)) + deflater.flush()


def flate_bomb_pdf(mib: int) -> bytes:
    """A page whose content stream inflates to `mib` MiB of spaces."""
    return content_pdf(flate_run(mib), b"/FlateDecode")


def lzw_encode(data: bytes, clear_every: int = 3000) -> bytes:
    """PDF LZW (EarlyChange 1, 9- to 12-bit codes), cleared before the table fills."""
    bits, nbits, out = 0, 0, bytearray()

    def emit(code: int, width: int) -> None:
        nonlocal bits, nbits
        bits, nbits = (bits << width) | code, nbits + width
        while nbits >= 8:
            nbits -= 8
            out.append((bits >> nbits) & 0xFF)
            bits &= (1 << nbits) - 1

    def width(emitted: int) -> int:  # the decoder's table lags the encoder's by one entry
        entries = max(emitted - 1, 0)
        return 9 + sum(entries + 1 >= limit - 258 for limit in (512, 1024, 2048))

    table: dict[bytes, int] = {bytes([i]): i for i in range(256)}
    emit(256, 9)
    word, emitted = b"", 0
    for value in data:
        grown = word + bytes([value])
        if grown in table:
            word = grown
            continue
        emit(table[word], width(emitted))
        emitted += 1
        table[grown] = 258 + len(table) - 256
        word = bytes([value])
        if len(table) - 256 >= clear_every:
            emit(table[word], width(emitted))
            emit(256, width(emitted + 1))
            table, word, emitted = {bytes([i]): i for i in range(256)}, b"", 0
    if word:
        emit(table[word], width(emitted))
        emitted += 1
    emit(257, width(emitted))
    if nbits:
        out.append((bits << (8 - nbits)) & 0xFF)
    return bytes(out)


def nested_pdf(depth: int) -> bytes:
    """A page whose dictionary holds arrays nested `depth` deep."""
    return one_page_pdf(b"/Junk " + b"[" * depth + b"]" * depth)


def deep_page_tree_pdf(depth: int) -> bytes:
    """One page under `depth` levels of page-tree nodes."""
    nodes = [b"<< /Type /Pages /Kids [%d 0 R] /Count 1 >>" % (3 + level) for level in range(depth)]
    return raw_pdf(CATALOG, *nodes, b"<< /Type /Page /MediaBox [0 0 595 842] >>")
