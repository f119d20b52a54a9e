"""The printed VAT invoice form: its geometry, rules, labels and title.

The layout follows the national form: a header (QR code, invoice code and number, a title
with a double rule, the date), a table of four bands (buyer | 密码区, goods, 价税合计,
seller | 备注) with stacked side labels, and a line of signatories ending in 销售方：（章）.
Positions are fractions of the page, so any page size gives the same form. The form is
printed in one red-brown ink; `invoice_data` prints the data into it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from . import invoice_text
from .render import CJK_FONTS, DIGIT_FONTS, FontRef, available_fonts, truetype

Colour = tuple[int, int, int]
PAPER_WIDTH = (1300, 1700)
SCREEN_WIDTH = (1200, 1600)
PAGE_ASPECT = (0.58, 0.68)  # 241 x 140 mm forms, scanned or rendered with a little margin
FORM_INK = ((150, 190), (70, 115), (35, 70))  # RGB ranges: the red-brown (orange-brown) form ink
DATA_INKS: tuple[Colour, ...] = ((25, 25, 30), (35, 55, 150), (40, 45, 120))  # black, blue print
QR_INK: Colour = (20, 20, 20)
MISREGISTER = (0.012, 0.008)  # paper data is shifted up to this share of the page, x and y
SERIF_FONT_COUNT = 2  # the first CJK fonts are Song (serif), which the form is set in
TABLE = (0.05, 0.24, 0.95, 0.86)  # x0, y0, x1, y1 in page fractions
BANDS = (0.23, 0.68, 0.76)  # rules between the table's bands, in table heights
SIDE_COLUMN = 0.03  # width of the stacked 购买方 / 密码区 / 销售方 / 备注 columns, in page widths
SPLIT = 0.58  # where the 密码区 and the 备注 box begin, in page widths
GOODS = (0.0, 0.27, 0.37, 0.43, 0.52, 0.63, 0.78, 0.85, 1.0)  # goods column rules, in table widths
GOODS_HEADS = ("货物或应税劳务、服务名称", "规格型号", "单位", "数量", "单价", "金额", "税率", "税额")
PARTY_LABELS = ("名　　　称：", "纳税人识别号：", "地址、电话：", "开户行及账号：")
SIGNATORIES = (
    ("收款人：", 0.02),
    ("复核：", 0.28),
    ("开票人：", 0.52),
    ("销售方：（章）", 0.76),
)  # x in table widths
SIGNATORY_DROP = 0.035  # the signatory line below the table, in page heights
LABEL_INDENT = 0.008  # labels start this far right of a rule, in page widths
HEAD_DROP = 0.025  # goods column heads below the band's top rule, in page heights
TOTAL_RISE = 0.022  # the 合计 line above the goods band's bottom rule, in page heights
TITLE_Y, TITLE_SIZE = 0.075, 0.032  # page height fraction; size in page widths
TITLE_RULES = (0.98, 1.15)  # the double rule below the title's centre, in title sizes
TITLE_RULE_OVERHANG = 1.05  # the rule is a little longer than the title
LABEL_SIZE = 0.0115  # in page widths
STACKED_SIZE = 1.2  # stacked side labels are a little larger, in label sizes
COPY_NAME_Y, COPY_NAME_SIZE = 0.165, 0.02  # 发 票 联 under the title (paper only)
HEADER_X = 0.7  # the right-hand header block, in page widths
HEADER_Y, HEADER_STEP = 0.05, 0.04  # e-invoice header lines, in page heights
DATE_Y = 0.19  # a paper invoice has only the date there
NUMBER_XY = (0.66, 0.07)  # "No" and the invoice number on paper, page fractions
MACHINE_XY = (0.15, 0.19)  # 机器编号 on paper
QR_MODULES, QR_FINDER = 25, 7  # a version-2 QR code's grid, and its corner squares
QR_FILL = 0.5  # share of dark modules
QR_BOX = (0.06, 0.025, 0.085)  # x, y of the QR code and its side, in page widths
RULE_WIDTH, FRAME_WIDTH = 1, 2  # px


@dataclass(frozen=True)
class Form:
    """One invoice form: size, inks, fonts, texts; its geometry follows from the size."""

    width: int
    height: int
    ink: Colour
    data: Colour
    electronic: bool
    place: str
    title: str
    copy_name: str
    font: FontRef
    data_font: FontRef
    digit_font: FontRef
    shift: tuple[int, int]  # where the data printer put the data, relative to the form

    @property
    def size(self) -> tuple[int, int]:
        return self.width, self.height

    @property
    def title_size(self) -> int:
        return round(TITLE_SIZE * self.width)

    @property
    def title_centre(self) -> tuple[float, float]:
        return self.width / 2.0, TITLE_Y * self.height

    @property
    def table(self) -> tuple[int, int, int, int]:
        return self.px(TABLE[0], TABLE[1]) + self.px(TABLE[2], TABLE[3])

    @property
    def bands(self) -> tuple[int, ...]:
        """The y of the table's top, its three inner rules and its bottom."""
        _, y0, _, y1 = self.table
        return (y0, *(round(y0 + f * (y1 - y0)) for f in BANDS), y1)

    @property
    def goods_x(self) -> tuple[int, ...]:
        x0, _, x1, _ = self.table
        return tuple(round(x0 + f * (x1 - x0)) for f in GOODS)

    @property
    def columns(self) -> tuple[float, float]:
        """Width of the stacked-label columns and the x of the 密码区 / 备注 split."""
        return SIDE_COLUMN * self.width, SPLIT * self.width

    def px(self, x: float, y: float) -> tuple[int, int]:
        """Page fractions to pixels."""
        return round(x * self.width), round(y * self.height)

    def label_font(self, scale: float = 1.0) -> ImageFont.FreeTypeFont:
        return truetype(self.font, round(LABEL_SIZE * self.width * scale))


def _form_size(rng: np.random.Generator, electronic: bool) -> tuple[int, int]:
    width = int(rng.integers(*(SCREEN_WIDTH if electronic else PAPER_WIDTH)))
    return width, int(width * rng.uniform(*PAGE_ASPECT))


def _shift(rng: np.random.Generator, size: tuple[int, int], electronic: bool) -> tuple[int, int]:
    if electronic:
        return 0, 0
    dx, dy = (rng.uniform(-limit, limit) * side for limit, side in zip(MISREGISTER, size, strict=True))
    return round(dx), round(dy)


def new_form(rng: np.random.Generator, size: tuple[int, int] | None, electronic: bool) -> Form:
    """A random invoice form of `size` (or a usual size)."""
    size = size or _form_size(rng, electronic)
    place = invoice_text.issuer(rng)
    fonts, digits = available_fonts(CJK_FONTS), available_fonts(DIGIT_FONTS)
    return Form(
        width=size[0],
        height=size[1],
        ink=(int(rng.uniform(*FORM_INK[0])), int(rng.uniform(*FORM_INK[1])), int(rng.uniform(*FORM_INK[2]))),
        data=DATA_INKS[int(rng.integers(len(DATA_INKS)))],
        electronic=electronic,
        place=place,
        title=invoice_text.title(rng, place, electronic),
        copy_name=invoice_text.copy_name(rng),
        font=fonts[int(rng.integers(min(SERIF_FONT_COUNT, len(fonts))))],
        data_font=fonts[int(rng.integers(len(fonts)))],
        digit_font=digits[int(rng.integers(len(digits)))],
        shift=_shift(rng, size, electronic),
    )


def text(
    draw: ImageDraw.ImageDraw,
    xy: tuple[float, float],
    line: str,
    font: ImageFont.FreeTypeFont,
    fill: Colour,
    anchor: str = "lm",
) -> None:
    """One line of print at `xy` (left-middle by default)."""
    draw.text((round(xy[0]), round(xy[1])), line, fill=fill, font=font, anchor=anchor)


def _stacked(draw: ImageDraw.ImageDraw, form: Form, label: str, x: float, span: tuple[int, int]) -> None:
    """A side label set vertically, one character under the other, spread over the band."""
    font, step = form.label_font(STACKED_SIZE), (span[1] - span[0]) / (len(label) + 1)
    for index, char in enumerate(label):
        text(draw, (x, span[0] + step * (index + 1)), char, font, form.ink, "mm")


def _rules(draw: ImageDraw.ImageDraw, form: Form) -> None:
    (x0, y0, x1, y1), bands, goods = form.table, form.bands, form.goods_x
    side, split = form.columns
    draw.rectangle([x0, y0, x1, y1], outline=form.ink, width=FRAME_WIDTH)
    lines: list[tuple[tuple[float, float], tuple[float, float]]] = [((x0, y), (x1, y)) for y in bands[1:-1]]
    for top, bottom in ((bands[0], bands[1]), (bands[3], bands[4])):
        lines += [((x, top), (x, bottom)) for x in (x0 + side, split, split + side)]
    lines += [((x, bands[1]), (x, bands[2])) for x in goods[1:-1]]
    lines.append(((goods[1], bands[2]), (goods[1], bands[3])))
    for start, end in lines:
        draw.line([start, end], fill=form.ink, width=RULE_WIDTH)


def party_rows(top: int, bottom: int) -> list[float]:
    """The y of the four lines of a buyer or seller band."""
    step = (bottom - top) / len(PARTY_LABELS)
    return [top + step * (index + 0.5) for index in range(len(PARTY_LABELS))]


def _party_labels(draw: ImageDraw.ImageDraw, form: Form) -> None:
    x0, bands = form.table[0], form.bands
    side, split = form.columns
    names = (("购买方", "密码区"), ("销售方", "备注"))
    for (top, bottom), (party, box) in zip(((bands[0], bands[1]), (bands[3], bands[4])), names, strict=True):
        _stacked(draw, form, party, x0 + side / 2, (top, bottom))
        _stacked(draw, form, box, split + side / 2, (top, bottom))
        for label, y in zip(PARTY_LABELS, party_rows(top, bottom), strict=True):
            text(draw, (x0 + side + LABEL_INDENT * form.width, y), label, form.label_font(), form.ink)


def _table_labels(draw: ImageDraw.ImageDraw, form: Form) -> None:
    (x0, _, x1, y1), bands, goods, font = form.table, form.bands, form.goods_x, form.label_font()
    for head, left, right in zip(GOODS_HEADS, goods[:-1], goods[1:], strict=True):
        text(draw, ((left + right) / 2, bands[1] + HEAD_DROP * form.height), head, font, form.ink, "mm")
    first = (goods[0] + goods[1]) / 2
    text(draw, (first, bands[2] - TOTAL_RISE * form.height), "合　　　计", font, form.ink, "mm")
    text(draw, (first, (bands[2] + bands[3]) / 2), "价税合计（大写）", font, form.ink, "mm")
    text(draw, (goods[5], (bands[2] + bands[3]) / 2), "（小写）", font, form.ink)
    for label, x in SIGNATORIES:
        text(draw, (x0 + x * (x1 - x0), y1 + SIGNATORY_DROP * form.height), label, font, form.ink)


def _qr(rng: np.random.Generator, draw: ImageDraw.ImageDraw, form: Form) -> None:
    """A QR-code-like block: random modules and the three corner squares."""
    modules = rng.random((QR_MODULES, QR_MODULES)) < QR_FILL
    for row, col in ((0, 0), (0, QR_MODULES - QR_FINDER), (QR_MODULES - QR_FINDER, 0)):
        modules[row : row + QR_FINDER, col : col + QR_FINDER] = True
        modules[row + 1 : row + QR_FINDER - 1, col + 1 : col + QR_FINDER - 1] = False
        modules[row + 2 : row + QR_FINDER - 2, col + 2 : col + QR_FINDER - 2] = True
    x, y, cell = QR_BOX[0] * form.width, QR_BOX[1] * form.width, QR_BOX[2] * form.width / QR_MODULES
    for row, col in zip(*np.nonzero(modules), strict=True):
        draw.rectangle(
            [x + col * cell, y + row * cell, x + (col + 1) * cell, y + (row + 1) * cell], fill=QR_INK
        )


def header_lines(form: Form) -> list[tuple[str, tuple[float, float]]]:
    """The header's labels and where each sits (left-middle), in pixels."""
    if form.electronic:
        labels = ("发票代码：", "发票号码：", "开票日期：", "校验码：")
        return [(label, form.px(HEADER_X, HEADER_Y + HEADER_STEP * i)) for i, label in enumerate(labels)]
    return [("开票日期：", form.px(HEADER_X, DATE_Y)), ("机器编号：", form.px(*MACHINE_XY))]


def draw_form(rng: np.random.Generator, canvas: Image.Image, form: Form) -> None:
    """The form's rules, labels and header, without the title (drawn over the 监制章 later)."""
    draw = ImageDraw.Draw(canvas)
    _rules(draw, form)
    _party_labels(draw, form)
    _table_labels(draw, form)
    for label, xy in header_lines(form):
        text(draw, xy, label, form.label_font(), form.ink)
    if not form.electronic:
        text(draw, form.px(*NUMBER_XY), "No", truetype(form.digit_font, form.title_size), form.ink)
    _qr(rng, draw, form)


def draw_title(canvas: Image.Image, form: Form) -> None:
    """The big title with its double rule (and, on paper, the copy's name) over the header."""
    draw = ImageDraw.Draw(canvas)
    font = truetype(form.font, form.title_size)
    x, y = form.title_centre
    text(draw, (x, y), form.title, font, form.ink, "mm")
    half = font.getlength(form.title) / 2 * TITLE_RULE_OVERHANG
    for drop in TITLE_RULES:
        draw.line(
            [(x - half, y + drop * form.title_size), (x + half, y + drop * form.title_size)], fill=form.ink
        )
    if not form.electronic:
        name_font = truetype(form.font, round(COPY_NAME_SIZE * form.width))
        text(draw, (x, COPY_NAME_Y * form.height), form.copy_name, name_font, form.ink, "mm")
