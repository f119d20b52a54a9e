"""The kinds of page the generator draws, and how often, modelled on what real uploads are.

A style pairs a layout (what is on the sheet) with a capture (how the sheet became an
image). The plain scanned document stays the most common; the others are the cases real
documents add: invoice forms with their printed supervision seal and the seller's seal,
e-invoice renders with flat e-seals, phone photos, grey photocopies, signatures across
seals, low-resolution scans with small seals, and cut-outs of one big seal.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

import numpy as np

from .capture import Capture
from .placement import CUT_PROBABILITY

MORE_CUTS = 0.15  # of seals stamped anywhere, off the edge: photos and crops cut more than scans


class Layout(Enum):
    """What is printed and stamped on the sheet."""

    DOCUMENT = "document"  # print, rules, a letterhead, company seals anywhere
    INVOICE = "invoice"  # a paper VAT invoice: 监制章 in the header, seller seal at the bottom
    EINVOICE = "einvoice"  # the same form rendered, with e-seals
    CROP = "crop"  # one big seal filling the image
    OFFICIAL = "official"  # 红头文件: a large red title and rule, the issuer's seal over the date
    JOINT = "joint"  # a notice of two or three bodies, their seals stamped over each other
    ROW = "row"  # the same, the seals side by side, rims touching or nearly
    LICENCE = "licence"  # 营业执照: a certificate, the authority's seal over the date
    DENSE = "dense"  # dense print and table rules, invoice ovals stamped across at any angle


@dataclass(frozen=True)
class Style:
    """One kind of page: its layouts (one drawn at random), capture and extras."""

    name: str
    weight: float
    layouts: tuple[Layout, ...]
    capture: Capture
    scale: tuple[float, float] = (1.0, 1.0)  # image pixels per page pixel
    signatures: float = 0.0  # probability that a seal gets a signature across it
    small: bool = False  # seals come out SMALL_DIAMETER across in the image
    cut_probability: float = MORE_CUTS  # of a seal stamped anywhere, running off the page


DOC, INV = Layout.DOCUMENT, Layout.INVOICE
STYLES = (
    Style("plain", 0.42, (DOC,), Capture.SCAN, cut_probability=CUT_PROBABILITY),
    Style("signed", 0.07, (DOC,), Capture.SCAN, signatures=1.0),
    Style("invoice", 0.14, (INV,), Capture.SCAN, signatures=0.2),
    Style("einvoice", 0.07, (Layout.EINVOICE,), Capture.DIGITAL),
    Style("photo", 0.12, (DOC, INV), Capture.PHOTO, scale=(0.5, 1.0), signatures=0.2),
    Style("copy", 0.04, (DOC, INV), Capture.COPY),
    Style("small", 0.08, (DOC, INV), Capture.SCAN, scale=(0.4, 0.65), small=True),
    Style("crop", 0.06, (Layout.CROP,), Capture.SCAN),
    # Drawn by name only (`--style official`), weight 0 in the mix: appended last with no
    # weight, it leaves every seed's pages as they were, so figures stay comparable.
    Style("official", 0.0, (Layout.OFFICIAL,), Capture.SCAN),
    # The hard cases of issue 43, drawn by name only for the same reason: joint notices with
    # overlapping seals, photocopied licences and black-and-white scans (grey seals), invoice
    # ovals over dense print at any angle.
    Style("joint", 0.0, (Layout.JOINT,), Capture.SCAN),
    Style("licence", 0.0, (Layout.LICENCE,), Capture.COPY),
    Style("bwscan", 0.0, (Layout.LICENCE, DOC), Capture.GREY_SCAN),
    Style("dense", 0.0, (Layout.DENSE,), Capture.SCAN),
    # Seals side by side in a row, rims touching (the corpus's award certificates), by name only.
    Style("row", 0.0, (Layout.ROW,), Capture.SCAN),
)
STYLE_NAMES = tuple(style.name for style in STYLES)
SMALL_DIAMETER = (100.0, 140.0)  # px across a small seal in the image: a low-resolution scan


def _fits(style: Style, n_seals: int) -> bool:
    """A cut-out holds exactly one seal."""
    return n_seals == 1 or Layout.CROP not in style.layouts


def choose(rng: np.random.Generator, n_seals: int) -> Style:
    """A style drawn by weight from those that can hold `n_seals` seals."""
    styles = [style for style in STYLES if _fits(style, n_seals)]
    weights = np.array([style.weight for style in styles])
    return styles[int(rng.choice(len(styles), p=weights / weights.sum()))]


def named(name: str) -> Style:
    """The style called `name`; raises ValueError for an unknown name."""
    for style in STYLES:
        if style.name == name:
            return style
    raise ValueError(f"unknown page style {name!r}; known: {', '.join(STYLE_NAMES)}")
