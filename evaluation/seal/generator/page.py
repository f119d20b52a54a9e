"""Deterministic synthetic document pages with red seals, and their ground truth.

`generate_page(rng, n_seals)` draws a page style (`styles`): most pages are plain scanned
documents (black and blue print, company seals stamped with a multiply blend so the print
shows through, some faint, some cut by the page edge, a red letterhead sometimes); the rest
are invoice forms in red-brown print with the printed 监制章 and the seller's 发票专用章,
e-invoice renders with flat e-seals, phone photos (colour cast, uneven light, perspective),
grey photocopies, pages with signatures across the seals, low-resolution scans with small
seals, and cut-outs of one big seal; official documents (红头文件: a large bold red title,
the issuer's seal over the date) are drawn by name only (`style="official"`), and so are
the hard cases: joint notices whose seals overlap (`joint`), photocopied business licences
(`licence`) and black-and-white scans (`bwscan`) with grey seals, and invoice ovals over
dense print at any angle (`dense`). The page is then captured (`capture`) and encoded, and
each seal's truth follows the capture's geometry (`truth`). Everything is drawn from the
`rng` passed in, so the same seed gives the same page; `style="plain"` draws exactly what the
first version of this generator drew from the same `rng` (the same image bytes: nothing is
drawn for a style that has one layout, one scale and no signatures), so old seeds can still
be compared. Needs the Debian packages fonts-noto-cjk, fonts-wqy-zenhei and fonts-dejavu-core.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial

import numpy as np
from imgproc.arrays import Pixels

from . import crop, dense, document, invoice, joint, licence, official
from .capture import capture, encode
from .designs import random_spec
from .document import Request
from .handwriting import sign_across
from .placement import Stamp, extent
from .styles import SMALL_DIAMETER, STYLE_NAMES, Layout, Style, choose, named
from .texture import Finish
from .truth import SealTruth, seal_truth

__all__ = ["STYLE_NAMES", "Page", "SealTruth", "generate_page", "random_spec"]

Drawer = Callable[[np.random.Generator, tuple[int, int] | None, Request], tuple[Pixels, list[Stamp]]]
LAYOUTS: dict[Layout, Drawer] = {
    Layout.DOCUMENT: document.draw,
    Layout.INVOICE: partial(invoice.draw, electronic=False),
    Layout.EINVOICE: partial(invoice.draw, electronic=True),
    Layout.CROP: crop.draw,
    Layout.OFFICIAL: official.draw,
    Layout.JOINT: joint.draw,
    Layout.ROW: partial(joint.draw, spacing=joint.ROW),
    Layout.LICENCE: licence.draw,
    Layout.DENSE: dense.draw,
}


@dataclass(frozen=True)
class Page:
    """One encoded page and the seals on it."""

    image_bytes: bytes
    width: int
    height: int
    seals: list[SealTruth]


def _sizes(
    rng: np.random.Generator, style: Style, size: tuple[int, int] | None
) -> tuple[float, tuple[int, int] | None]:
    """The capture's scale, and the sheet size that gives `size` at that scale (None: any)."""
    scale = float(rng.uniform(*style.scale)) if style.scale[0] != style.scale[1] else style.scale[0]
    if size is None:
        return scale, None
    return scale, (round(size[0] / scale), round(size[1] / scale))


def _layout(rng: np.random.Generator, style: Style) -> Layout:
    """One of the style's layouts; a style with one layout draws nothing (see the module doc)."""
    if len(style.layouts) == 1:
        return style.layouts[0]
    return style.layouts[int(rng.integers(len(style.layouts)))]


def _request(
    rng: np.random.Generator, style: Style, scale: float, n_seals: int, shape: str | None
) -> Request:
    diameter = rng.uniform(*SMALL_DIAMETER) / scale if style.small else None
    return Request(n_seals, shape, diameter, style.cut_probability)


def _sign(rng: np.random.Generator, page: Pixels, stamps: list[Stamp], probability: float) -> None:
    """Signatures across some stamped seals (not printed or digital ones), written after stamping."""
    if probability == 0.0:
        return
    for stamp in stamps:
        if stamp.finish is Finish.STAMPED and rng.random() < probability:
            half = np.array(extent(stamp.spec, stamp.angle_deg))
            low, high = np.array(stamp.centre) - half, np.array(stamp.centre) + half
            sign_across(rng, page, (int(low[0]), int(low[1]), int(high[0]), int(high[1])))


def generate_page(
    rng: np.random.Generator,
    n_seals: int,
    *,
    size: tuple[int, int] | None = None,
    shape: str | None = None,
    style: str | None = None,
) -> Page:
    """A page with up to `n_seals` seals (fewer only if they do not fit), `size` (width,
    height) if given, every seal of `shape` if given, in the named `style` (one of
    `STYLE_NAMES`) or one drawn by weight; raises ValueError for an unknown style."""
    chosen = named(style) if style else choose(rng, n_seals)
    scale, sheet_size = _sizes(rng, chosen, size)
    layout = _layout(rng, chosen)
    page, stamps = LAYOUTS[layout](rng, sheet_size, _request(rng, chosen, scale, n_seals, shape))
    _sign(rng, page, stamps, chosen.signatures)
    sheet = (page.shape[1], page.shape[0])
    image_size = size or (max(1, round(sheet[0] * scale)), max(1, round(sheet[1] * scale)))
    captured = capture(rng, chosen.capture, page, image_size)
    truths = [seal_truth(stamp, captured.matrix, sheet, image_size) for stamp in stamps]
    seals = [truth for truth in truths if truth is not None]
    return Page(encode(captured), image_size[0], image_size[1], seals)
