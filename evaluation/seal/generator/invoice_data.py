"""The machine-printed data of an invoice: parties, 密码区, goods, amounts, header numbers.

Printed in the form's data colour (blue or black) at the form's positions, all shifted by
the form's misregistration, as a dot-matrix printer leaves a paper invoice.
"""

from __future__ import annotations

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from . import invoice_text, vocab
from .invoice_form import (
    HEAD_DROP,
    LABEL_INDENT,
    NUMBER_XY,
    SIGNATORIES,
    SIGNATORY_DROP,
    TOTAL_RISE,
    Form,
    header_lines,
    party_rows,
    text,
)
from .render import truetype

DATA_SIZE = 0.0125  # in page widths
DATA_OFFSET = 0.095  # party data starts this far right of its label, in page widths
CIPHER_SIZE = 1.25  # the 密码区 is set larger, in data sizes
CIPHER_LENGTH = 28  # characters a line, the font shrinking to fit the box
CIPHER_LINES = 4
GOODS_ROWS = (1, 4)
GOODS_STEP = 0.035  # between goods rows, in page heights
CELL_PAD = 0.006  # right-aligned amounts keep this far from the rule, in page widths
QUANTITY = (1, 10)
CHECK_CODE_DIGITS, MACHINE_DIGITS = 20, 12
NUMBER_SIZE = 0.9  # the invoice code and number, in title sizes
CODE_XY = (0.17, 0.075)  # the invoice code on paper, page fractions
MARK = "⊗"  # printed before the amount in words
Party = tuple[str, str]  # name, tax ID


def _font(form: Form, scale: float = 1.0) -> ImageFont.FreeTypeFont:
    return truetype(form.data_font, round(DATA_SIZE * form.width * scale))


def _at(form: Form, x: float, y: float) -> tuple[float, float]:
    return x + form.shift[0], y + form.shift[1]


def _parties(rng: np.random.Generator, draw: ImageDraw.ImageDraw, form: Form, seller: Party) -> None:
    bands, x = form.bands, form.table[0] + form.columns[0] + (LABEL_INDENT + DATA_OFFSET) * form.width
    buyer = (vocab.organisation_name(rng), vocab.tax_id(rng))
    for party, (top, bottom) in ((buyer, (bands[0], bands[1])), (seller, (bands[3], bands[4]))):
        lines = (*party, invoice_text.address(rng), invoice_text.bank_account(rng))
        for line, y in zip(lines, party_rows(top, bottom), strict=True):
            text(draw, _at(form, x, y), line, _font(form), form.data)


def _cipher(rng: np.random.Generator, draw: ImageDraw.ImageDraw, form: Form) -> None:
    x = sum(form.columns) + LABEL_INDENT * form.width
    room = form.table[2] - x - 2 * LABEL_INDENT * form.width
    font = truetype(form.digit_font, round(DATA_SIZE * form.width * CIPHER_SIZE))
    for y in party_rows(form.bands[0], form.bands[1])[:CIPHER_LINES]:
        line = invoice_text.cipher_line(rng, CIPHER_LENGTH)
        fitted = truetype(form.digit_font, int(font.size * min(1.0, room / font.getlength(line))))
        text(draw, _at(form, x, y), line, fitted, form.data)


def _right(draw: ImageDraw.ImageDraw, form: Form, right: float, y: float, line: str) -> None:
    text(draw, _at(form, right - CELL_PAD * form.width, y), line, _font(form), form.data, "rm")


def _goods(rng: np.random.Generator, draw: ImageDraw.ImageDraw, form: Form) -> float:
    """Goods rows and their totals; returns the total with tax."""
    goods, bands, total, tax_total = form.goods_x, form.bands, 0.0, 0.0
    for row in range(int(rng.integers(*GOODS_ROWS))):
        y = bands[1] + (HEAD_DROP + GOODS_STEP * (row + 1)) * form.height
        item, unit, rate = invoice_text.goods(rng)
        amount, quantity = invoice_text.amount(rng), int(rng.integers(*QUANTITY))
        tax = round(amount * float(rate.rstrip("%")) / 100.0, 2)
        text(draw, _at(form, goods[0] + CELL_PAD * form.width, y), item, _font(form), form.data)
        text(draw, _at(form, (goods[2] + goods[3]) / 2, y), unit, _font(form), form.data, "mm")
        for right, value in (
            (goods[4], str(quantity)),
            (goods[5], f"{amount / quantity:.2f}"),
            (goods[6], f"{amount:.2f}"),
        ):
            _right(draw, form, right, y, value)
        _right(draw, form, goods[7], y, rate)
        _right(draw, form, goods[8], y, f"{tax:.2f}")
        total, tax_total = total + amount, tax_total + tax
    y = bands[2] - TOTAL_RISE * form.height
    _right(draw, form, goods[6], y, f"¥{total:.2f}")
    _right(draw, form, goods[8], y, f"¥{tax_total:.2f}")
    return total + tax_total


def _sum(draw: ImageDraw.ImageDraw, form: Form, value: float) -> None:
    goods, y = form.goods_x, (form.bands[2] + form.bands[3]) / 2
    words = f"{MARK} {invoice_text.capital_amount(value)}"
    text(draw, _at(form, goods[1] + LABEL_INDENT * form.width, y), words, _font(form), form.data)
    small = goods[5] + form.label_font().getlength("（小写）") + LABEL_INDENT * form.width
    text(draw, _at(form, small, y), f"¥{value:.2f}", _font(form), form.data)


def _after(form: Form, label: str, xy: tuple[float, float]) -> tuple[float, float]:
    """Where the value of a label starts."""
    return _at(form, xy[0] + form.label_font().getlength(label) + LABEL_INDENT * form.width, xy[1])


def _header(rng: np.random.Generator, draw: ImageDraw.ImageDraw, form: Form) -> None:
    values = {
        "发票代码：": invoice_text.invoice_code(rng, form.electronic),
        "发票号码：": invoice_text.invoice_number(rng),
        "开票日期：": invoice_text.date(rng),
        "校验码：": invoice_text.digits(rng, CHECK_CODE_DIGITS),
        "机器编号：": invoice_text.digits(rng, MACHINE_DIGITS),
    }
    for label, xy in header_lines(form):
        text(draw, _after(form, label, xy), values[label], _font(form), form.data)
    if not form.electronic:
        big = truetype(form.digit_font, round(form.title_size * NUMBER_SIZE))
        text(draw, _at(form, *form.px(*CODE_XY)), values["发票代码："], big, form.data)
        number_x = form.px(*NUMBER_XY)[0] + big.getlength("No ")
        text(draw, _at(form, number_x, form.px(*NUMBER_XY)[1]), values["发票号码："], big, form.data)


def _signatories(rng: np.random.Generator, draw: ImageDraw.ImageDraw, form: Form) -> None:
    x0, _, x1, y1 = form.table
    for label, x in SIGNATORIES[:-1]:
        xy = (x0 + x * (x1 - x0), y1 + SIGNATORY_DROP * form.height)
        text(draw, _after(form, label, xy), invoice_text.person(rng), _font(form), form.data)


def draw_data(rng: np.random.Generator, canvas: Image.Image, form: Form, seller: Party) -> None:
    """Print the invoice's data onto the form; the seller is the one whose seal goes on it."""
    draw = ImageDraw.Draw(canvas)
    _header(rng, draw, form)
    _parties(rng, draw, form, seller)
    _cipher(rng, draw, form)
    _sum(draw, form, _goods(rng, draw, form))
    _signatories(rng, draw, form)
