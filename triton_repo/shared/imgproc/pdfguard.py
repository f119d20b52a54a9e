"""PDF bombs: streams that inflate past what one document may take, refused before pdfium
reads them.

pdfium decodes a page's content stream whole, with no cap on Flate or LZW output (its
`kMaxTotalOutSize` only clamps the size it reports): a 1 MB PDF whose content stream inflates
to 1 GiB took 2 GB of memory to render one page here. So every stream of the raw bytes is
measured first, as pdfium would decode it, and a document is refused (`ImageError`, the
gateway's 422) when one stream decodes past `max_stream_bytes` or all of them together past
`max_total_bytes`. Only the sizes are counted: nothing decoded is kept beyond one stream's
intermediate output.

Measured: Flate (zlib) and LZW, and the ASCII filters in front of them (an attacker can wrap a
bomb in ASCIIHex or ASCII85). Not measured: RunLength (pdfium stops it at 20 MiB itself) and
the image codecs (DCT, JPX, JBIG2, CCITT), which pdfium decodes to the image's size at the
scale it draws, bounded by the rendered page (a 20000x20000 image drawn on a page took 131
MB). Streams are found by their `stream` keyword, not by parsing the object graph: a stream
no page uses is measured too, which only errs on the side of refusing.
"""

from __future__ import annotations

import base64
import binascii
import re
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from .imaging import ImageError

MIB = 1024 * 1024
INFLATE_CHUNK = 4 * MIB  # output produced per zlib call while counting: the memory it costs
DICT_LOOKBACK = 4096  # bytes before `stream` searched for its dictionary's filters
STREAM_START = re.compile(rb"(?<![A-Za-z])stream(\r\n|\n|\r)")
FILTER = re.compile(rb"/Filter\s*(\[[^\]]*\]|/[A-Za-z0-9]+)")
NAME = re.compile(rb"/([A-Za-z0-9]+)")
LENGTH = re.compile(rb"/Length\s+(\d+)(?!\s+\d+\s+R)")
EARLY_CHANGE_OFF = re.compile(rb"/EarlyChange\s+0")
# pdfium's LZW: 9- to 12-bit codes, 256 clears, 257 ends, the table full at 4094 entries.
LZW_CLEAR, LZW_END, LZW_FIRST, LZW_TABLE = 256, 257, 258, 4094


@dataclass(frozen=True)
class StreamCaps:
    """How much the streams of one PDF may decode to."""

    max_stream_bytes: int = 256 * MIB  # one stream: a 600 dpi A4 RGB scan is ~100 MB raw
    max_total_bytes: int = 2048 * MIB  # every stream together


class _Budget:
    """Bytes decoded so far, against the caps; raises ImageError once past one."""

    def __init__(self, caps: StreamCaps) -> None:
        self.caps, self.total = caps, 0

    def charge(self, stream_bytes: int, added: int) -> None:
        self.total += added
        if stream_bytes > self.caps.max_stream_bytes:
            raise ImageError(
                f"a stream of the PDF decodes to more than {self.caps.max_stream_bytes // MIB} MiB"
            )
        if self.total > self.caps.max_total_bytes:
            raise ImageError(f"the PDF's streams decode to more than {self.caps.max_total_bytes // MIB} MiB")


def _filters(dictionary: bytes) -> list[str]:
    match = FILTER.search(dictionary)
    return [name.decode() for name in NAME.findall(match[1])] if match else []


def _stream_body(data: bytes, start: int, dictionary: bytes) -> bytes:
    """A stream's encoded bytes: /Length where it is a direct number and fits, else up to
    `endstream`."""
    length = LENGTH.search(dictionary)
    if length and start + int(length[1]) <= len(data):
        return data[start : start + int(length[1])]
    end = data.find(b"endstream", start)
    return data[start : end if end >= 0 else len(data)]


def _inflated(body: bytes, budget: _Budget, keep: bool) -> bytes:
    """The stream inflated in chunks, each charged to the budget; kept only if `keep` (a
    further filter needs it). Damaged data ends the count where zlib stops, as pdfium does."""
    inflater, out, size, pending = zlib.decompressobj(), bytearray(), 0, body
    while pending and not inflater.eof:
        try:
            chunk = inflater.decompress(pending, INFLATE_CHUNK)
        except zlib.error:
            break
        pending = inflater.unconsumed_tail
        size += len(chunk)
        budget.charge(size, len(chunk))
        if keep:
            out += chunk
        if not chunk and not pending:
            break
    return bytes(out)


def _width(entries: int, early: int) -> int:
    """The code width once the table holds `entries` entries (pdfium's AddCode)."""
    return 9 + sum(entries + early >= limit - LZW_FIRST for limit in (512, 1024, 2048))


def _codes(body: bytes, early: int) -> Iterator[int]:
    """LZW codes, most significant bit first, the width growing with the table as pdfium's
    does (the first code after a clear adds no entry)."""
    acc = bits = entries = 0
    width, fresh = 9, True
    for byte in body:
        acc, bits = ((acc << 8) | byte) & 0xFFFFFF, bits + 8
        while bits >= width:
            bits -= width
            code = (acc >> bits) & ((1 << width) - 1)
            yield code
            if code == LZW_CLEAR:
                width, entries, fresh = 9, 0, True
            elif fresh:
                fresh = False
            elif entries + early < LZW_TABLE:
                entries += 1
                width = _width(entries, early)


def _lzw_size(body: bytes, budget: _Budget, early: int) -> None:
    """Charges the length LZW output would have, walking the codes' string lengths only: a
    bomb reaches the cap after some ten thousand codes."""
    lengths: list[int] = []
    previous, size = 0, 0
    for code in _codes(body, early):
        if code == LZW_CLEAR:
            lengths, previous = [], 0
            continue
        if code == LZW_END:
            break
        index = code - LZW_FIRST
        length = 1 if code < LZW_CLEAR else lengths[index] if index < len(lengths) else previous + 1
        if previous and len(lengths) + early < LZW_TABLE:
            lengths.append(previous + 1)
        previous, size = length, size + length
        budget.charge(size, length)


def _ascii_hex(body: bytes) -> bytes:
    digits = re.sub(rb"\s", b"", body.split(b">", 1)[0])
    return binascii.unhexlify(digits + b"0" * (len(digits) % 2))


def _ascii85(body: bytes) -> bytes:
    return base64.a85decode(body.split(b"~>", 1)[0].strip(), adobe=False, ignorechars=b" \t\n\r\x0c")


ASCII_FILTERS: dict[str, Callable[[bytes], bytes]] = {
    "ASCIIHexDecode": _ascii_hex,
    "ASCII85Decode": _ascii85,
}


def _measure(body: bytes, filters: list[str], dictionary: bytes, budget: _Budget) -> None:
    """Decodes the stream's leading ASCII, Flate and LZW filters as far as they go, charging
    what they produce; stops at the first other filter (pdfium bounds those itself)."""
    for position, name in enumerate(filters):
        last = position == len(filters) - 1
        if name in ASCII_FILTERS:
            try:
                body = ASCII_FILTERS[name](body)
            except (ValueError, binascii.Error):
                return  # pdfium stops at the damage too
        elif name == "FlateDecode":
            body = _inflated(body, budget, keep=not last)
        elif name == "LZWDecode":
            _lzw_size(body, budget, early=0 if EARLY_CHANGE_OFF.search(dictionary) else 1)
            return  # what follows an LZW stage is not measured: decoding it would cost its size
        else:
            return


def check_streams(data: bytes, caps: StreamCaps) -> None:
    """Raises ImageError where a stream of the PDF decodes past the caps."""
    budget = _Budget(caps)
    for match in STREAM_START.finditer(data):
        dictionary = data[max(0, match.start() - DICT_LOOKBACK) : match.start()]
        dictionary = dictionary[dictionary.rfind(b"obj") + 1 :]  # this object's, not the one before
        filters = _filters(dictionary)
        if filters:
            _measure(_stream_body(data, match.end(), dictionary), filters, dictionary, budget)
