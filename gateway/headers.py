"""Image dimensions read from the header bytes alone, by hand, for every accepted format.

The gateway never decodes pixels and never imports Pillow: Pillow's decompression-bomb guard is
process-global state (`Image.MAX_IMAGE_PIXELS`, which the models' `imgproc` turns off), raises
its own exception types for a header that lies, and walks a hostile run of JPEG markers for
seconds on the event loop. Each reader here looks at a bounded number of bytes, returns
(width, height) or None when the header is truncated, corrupt or names a zero size, and never
raises: `header_size` is the one entry point.

The decoder inside Triton (imgproc.imaging) checks its own pixel cap again on what it opens,
so a format whose frames may outgrow the header (an animated GIF) is still held to the cap.
"""

from __future__ import annotations

import struct
from collections.abc import Callable

Size = tuple[int, int]

PNG_IHDR_END = 24  # signature 8, chunk length 4, "IHDR" 4, width 4, height 4
JPEG_STANDALONE_MARKERS = frozenset({0x01, *range(0xD0, 0xD8)})  # TEM, RSTn: no length field
JPEG_START_OF_FRAME = frozenset(range(0xC0, 0xD0)) - {0xC4, 0xC8, 0xCC}  # not DHT, JPG, DAC
JPEG_MAX_MARKERS = 256  # real files reach their frame header within a few dozen
GIF_SCREEN_END = 13  # signature 6, screen width 2, height 2, flags 1, background 1, aspect 1
GIF_MAX_BLOCKS = 4096  # extension sub-blocks walked before the first image descriptor
BMP_CORE_HEADER = 12  # OS/2 BITMAPCOREHEADER: 16-bit sizes; every later header: 32-bit
TIFF_WIDTH, TIFF_HEIGHT = 256, 257
TIFF_SHORT, TIFF_LONG = 3, 4
TIFF_MAX_ENTRIES = 1024  # real first IFDs hold a few dozen tags


def _positive(width: int, height: int) -> Size | None:
    return (width, height) if width > 0 and height > 0 else None


def png_size(data: bytes) -> Size | None:
    """From the IHDR chunk, which must come first."""
    if len(data) < PNG_IHDR_END or data[12:16] != b"IHDR":
        return None
    return _positive(*struct.unpack(">II", data[16:PNG_IHDR_END]))


def jpeg_size(data: bytes) -> Size | None:
    """From the first start-of-frame segment, within JPEG_MAX_MARKERS markers."""
    position = 2
    for _ in range(JPEG_MAX_MARKERS):
        if position + 4 > len(data) or data[position] != 0xFF:
            return None
        marker = data[position + 1]
        if marker == 0xFF:  # fill byte before a marker
            position += 1
        elif marker in JPEG_STANDALONE_MARKERS:
            position += 2
        elif marker in JPEG_START_OF_FRAME:
            if position + 9 > len(data):
                return None
            height, width = struct.unpack(">HH", data[position + 5 : position + 9])
            return _positive(width, height)
        else:
            position += 2 + int.from_bytes(data[position + 2 : position + 4], "big")
    return None


def _gif_first_frame(data: bytes, position: int) -> tuple[int, int, int, int] | None:
    """(left, top, width, height) of the first image descriptor, skipping extensions."""
    for _ in range(GIF_MAX_BLOCKS):
        if position >= len(data):
            return None
        if data[position] == 0x2C:  # image descriptor
            if position + 9 > len(data):
                return None
            return struct.unpack("<HHHH", data[position + 1 : position + 9])
        if data[position] != 0x21 or position + 2 >= len(data):  # not an extension
            return None
        position += 2  # introducer and label, then sub-blocks until an empty one
        while position < len(data) and data[position]:
            position += 1 + data[position]
        position += 1
    return None


def gif_size(data: bytes) -> Size | None:
    """The logical screen, grown to hold the first frame (as the decoder grows it)."""
    if len(data) < GIF_SCREEN_END:
        return None
    width, height, flags = struct.unpack("<HHB", data[6:11])
    palette = 3 * (2 << (flags & 0x07)) if flags & 0x80 else 0
    frame = _gif_first_frame(data, GIF_SCREEN_END + palette)
    if frame is None:
        return None
    left, top, frame_width, frame_height = frame
    return _positive(max(width, left + frame_width), max(height, top + frame_height))


def bmp_size(data: bytes) -> Size | None:
    """From the DIB header; a negative height only means the rows run top-down."""
    if len(data) < 26:
        return None
    header_size = int.from_bytes(data[14:18], "little")
    if header_size == BMP_CORE_HEADER:
        return _positive(*struct.unpack("<HH", data[18:22]))
    width, height = struct.unpack("<ii", data[18:26])
    return _positive(width, abs(height))


def webp_size(data: bytes) -> Size | None:
    """From the first chunk: lossy VP8, lossless VP8L, or the extended format's canvas."""
    chunk = data[12:16]
    if chunk == b"VP8 " and len(data) >= 30 and data[23:26] == b"\x9d\x01\x2a":
        width, height = struct.unpack("<HH", data[26:30])
        return _positive(width & 0x3FFF, height & 0x3FFF)
    if chunk == b"VP8L" and len(data) >= 25 and data[20] == 0x2F:
        bits = int.from_bytes(data[21:25], "little")
        return _positive((bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1)
    if chunk == b"VP8X" and len(data) >= 30:
        width = int.from_bytes(data[24:27], "little") + 1
        return _positive(width, int.from_bytes(data[27:30], "little") + 1)
    return None


def tiff_size(data: bytes) -> Size | None:
    """From the ImageWidth and ImageLength tags of the first IFD."""
    order = "<" if data[:2] == b"II" else ">"
    if len(data) < 8:
        return None
    (offset,) = struct.unpack(order + "I", data[4:8])
    if offset + 2 > len(data):
        return None
    (count,) = struct.unpack(order + "H", data[offset : offset + 2])
    found: dict[int, int] = {}
    for entry in range(offset + 2, offset + 2 + 12 * min(count, TIFF_MAX_ENTRIES), 12):
        if entry + 12 > len(data):
            return None
        tag, kind = struct.unpack(order + "HH", data[entry : entry + 4])
        if tag in (TIFF_WIDTH, TIFF_HEIGHT) and kind in (TIFF_SHORT, TIFF_LONG):
            value = data[entry + 8 : entry + 10] if kind == TIFF_SHORT else data[entry + 8 : entry + 12]
            found[tag] = int.from_bytes(value, "little" if order == "<" else "big")
    if TIFF_WIDTH not in found or TIFF_HEIGHT not in found:
        return None
    return _positive(found[TIFF_WIDTH], found[TIFF_HEIGHT])


_READERS: dict[str, Callable[[bytes], Size | None]] = {
    "png": png_size,
    "jpeg": jpeg_size,
    "gif": gif_size,
    "bmp": bmp_size,
    "webp": webp_size,
    "tiff": tiff_size,
}
SUPPORTED_FORMATS = tuple(_READERS)


def header_size(data: bytes, image_format: str) -> Size | None:
    """(width, height) from the header of `data` in a format of SUPPORTED_FORMATS, or None."""
    return _READERS[image_format](data)
