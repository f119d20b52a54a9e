"""Invoice seals (发票专用章) stamped over dense black print and table rules, at any angle.

Business paper is stamped where the signature goes, which is where the print is densest: a
contract's last clauses, a delivery note's table, a receipt's totals. The page is lines of
small black print set close, with a ruled table between them (cells of names, goods and
amounts); each seal is an invoice oval (`designs.invoice_spec`: the seller's name evenly
spaced along the ellipse, the tax ID across the middle, 发票专用章 below), stamped across
the print at the seller's turn of the hand: within 25 degrees of upright about half the
time, at any angle otherwise (a page stamped upside down or on its side, then scanned).
"""

from __future__ import annotations

import numpy as np
from imgproc.arrays import Pixels
from PIL import Image, ImageDraw, ImageFont

from . import invoice_text, vocab
from .designs import INVOICE_SEMI_MAJOR_MM, invoice_spec, random_spec
from .document import Request, fitted, page_size, paper
from .placement import Box, Spot, Stamp, stamp_seal
from .render import CJK_FONTS, SealSpec, available_fonts, truetype

A4_WIDTH_MM = 210.0  # the page's width: the invoice seal is 40 mm across on it
PRINT_SIZE = (13, 19)  # px: small print, as on contracts and delivery notes
LINE_STEP = (1.35, 1.8)  # line pitch, in font sizes: set close
MARGIN = 0.05  # of the page width, left and right
TOP, BOTTOM = 0.04, 0.97  # print runs from here to here, in page heights
TABLE_PROBABILITY = 0.8  # a ruled table somewhere on the page
TABLE_ROWS = (5, 12)
TABLE_COLUMNS = (3, 7)
ROW_STEP = (1.8, 2.6)  # table row pitch, in font sizes
RULE = (20, 20, 20)
INKS = ((20, 20, 20), (20, 20, 20), (20, 20, 20), (35, 50, 140))  # black, blue for one line in four
UPRIGHT_PROBABILITY = 0.5  # stamped within UPRIGHT_TILT_DEG of upright; otherwise at any angle
UPRIGHT_TILT_DEG = 25.0
ANY_TILT_DEG = 180.0


def _phrase(rng: np.random.Generator) -> str:
    """A piece of business print: a clause, a name, an amount, a date."""
    kind = int(rng.integers(4))
    if kind == 0:
        return vocab.page_line(rng)
    if kind == 1:
        item, unit, rate = invoice_text.goods(rng)
        return f"{item}　{unit}　税率{rate}　金额{invoice_text.amount(rng):.2f}元"
    if kind == 2:
        return f"地址：{invoice_text.address(rng)}　电话：{invoice_text.digits(rng, 8)}"
    return "双方应按照本合同约定履行各自义务，任何一方不得擅自变更或解除本合同。"


def _line(
    rng: np.random.Generator, draw: ImageDraw.ImageDraw, face: ImageFont.FreeTypeFont, room: float
) -> str:
    """Phrases run together until the line is full (`room` px)."""
    line = ""
    while draw.textlength(line, font=face) < room:
        line += _phrase(rng) + "，"
    while line and draw.textlength(line, font=face) > room:
        line = line[:-1]
    return line


def _paragraphs(
    rng: np.random.Generator,
    draw: ImageDraw.ImageDraw,
    face: ImageFont.FreeTypeFont,
    span: tuple[float, float],
    width: int,
) -> None:
    size, step = face.size, face.size * rng.uniform(*LINE_STEP)
    left, room = MARGIN * width, (1.0 - 2 * MARGIN) * width
    y = span[0]
    while y + size < span[1]:
        ink = INKS[int(rng.integers(len(INKS)))]
        draw.text((left, y), _line(rng, draw, face, room), fill=ink, font=face)
        y += step


def _table(
    rng: np.random.Generator, draw: ImageDraw.ImageDraw, face: ImageFont.FreeTypeFont, top: float, width: int
) -> float:
    """A ruled table whose top is at `top`; returns its bottom."""
    rows, columns = int(rng.integers(*TABLE_ROWS)), int(rng.integers(*TABLE_COLUMNS))
    step = face.size * rng.uniform(*ROW_STEP)
    left, right = MARGIN * width, (1.0 - MARGIN) * width
    edges = np.sort(np.concatenate([[left, right], rng.uniform(left, right, columns - 1)]))
    bottom = top + rows * step
    for row in range(rows + 1):
        draw.line([(left, top + row * step), (right, top + row * step)], fill=RULE, width=1 + (row == 0))
    for x in edges:
        draw.line([(x, top), (x, bottom)], fill=RULE, width=1)
    for row in range(rows):
        for x0, x1 in zip(edges[:-1], edges[1:], strict=True):
            cell = _line(rng, draw, face, max(0.0, x1 - x0 - face.size))
            draw.text(
                (x0 + face.size / 2, top + row * step + (step - face.size) / 2), cell, fill=RULE, font=face
            )
    return bottom


def _print(rng: np.random.Generator, canvas: Image.Image) -> None:
    """Dense print over the whole page, a ruled table somewhere in it."""
    draw, width, height = ImageDraw.Draw(canvas), canvas.width, canvas.height
    fonts = available_fonts(CJK_FONTS)
    face = truetype(fonts[int(rng.integers(len(fonts)))], int(rng.integers(*PRINT_SIZE)))
    top, bottom = TOP * height, BOTTOM * height
    if rng.random() >= TABLE_PROBABILITY:
        _paragraphs(rng, draw, face, (top, bottom), width)
        return
    start = rng.uniform(top, (top + bottom) / 2)
    _paragraphs(rng, draw, face, (top, start), width)
    end = _table(rng, draw, face, start + face.size, width)
    _paragraphs(rng, draw, face, (end + face.size, bottom), width)


def _spec(rng: np.random.Generator, ppm: float, shape: str | None) -> SealSpec:
    """An invoice seal at `ppm`, or a seal of the shape asked for at its size."""
    if shape in (None, "oval"):
        return invoice_spec(rng, ppm)
    return fitted(random_spec(rng, shape), 2.0 * INVOICE_SEMI_MAJOR_MM * ppm)


def _tilt(rng: np.random.Generator) -> float:
    return UPRIGHT_TILT_DEG if rng.random() < UPRIGHT_PROBABILITY else ANY_TILT_DEG


def draw(
    rng: np.random.Generator, size: tuple[int, int] | None, request: Request
) -> tuple[Pixels, list[Stamp]]:
    """A page of dense print with up to `request.n_seals` invoice seals stamped across it."""
    width, height = size or page_size(rng)
    canvas = Image.fromarray(paper(rng, width, height))
    _print(rng, canvas)
    page = np.asarray(canvas).copy()
    taken: list[Box] = []
    stamps = []
    for _ in range(request.n_seals):
        spot = Spot(tilt_deg=_tilt(rng), cut_probability=0.0)
        spec = fitted(_spec(rng, width / A4_WIDTH_MM, request.shape), request.diameter)
        stamps.append(stamp_seal(rng, page, spec, taken, spot=spot))
    return page, [stamp for stamp in stamps if stamp is not None]
