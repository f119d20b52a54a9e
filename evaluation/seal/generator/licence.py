"""Business licences (营业执照), the page people most often upload as a photocopy.

A licence is a certificate: a decorative double frame, the national emblem's place at the
top, 营业执照 in large type, a QR code, the fields (统一社会信用代码, 名称, 类型, 法定代表人,
注册资本, 成立日期, 营业期限, 住所, 经营范围) in two columns, and at the bottom right
登记机关 with the registration authority's round seal (市场监督管理局) stamped over the date.
Copied, the seal is toner like the print it crosses (`capture`'s copy): the seal a user
means when a grey seal on a licence is not found.
"""

from __future__ import annotations

import numpy as np
from imgproc.arrays import Pixels
from PIL import Image, ImageDraw

from . import invoice_text, vocab
from .designs import official_spec, random_spec
from .document import Request, fitted, paper
from .placement import ANYWHERE, Box, Spot, Stamp, stamp_seal
from .render import CJK_FONTS, truetype

PAGE_WIDTH_RANGE = (1100, 1500)
LICENCE_ASPECT = (0.68, 0.74)  # landscape: a licence's original is 297 x 210 mm or so
BLACK = (25, 25, 25)
FRAME = (0.03, 0.045)  # the outer frame's inset, in page widths; the inner one a little further in
FRAME_WIDTHS = (6, 2)  # px: a thick outer frame and a thin inner one
TITLE, TITLE_Y = 0.06, 0.25  # the title's size in page widths, and its centre in page heights
EMBLEM = (0.035, 0.13)  # the emblem's radius in page widths, its centre in page heights
EMBLEM_RINGS = 3  # the emblem is a dense round picture: a dark disc with light rings drawn in it
FIELD_SIZE = (0.014, 0.017)  # field print, in page widths
FIELD_TOP, FIELD_STEP = 0.4, (2.1, 2.6)  # the first field's top (page heights), the step (sizes)
COLUMNS = (0.1, 0.52)  # the two columns of fields, in page widths
CREDIT_XY = (0.1, 0.32)  # 统一社会信用代码 under the title's left, page fractions
QR_XY, QR_SIDE = (0.8, 0.2), 0.08  # the QR code's corner and side, page fractions and widths
AUTHORITY_XY = (0.62, 0.8)  # 登记机关 and the date below it, page fractions
SEAL_LIFT = 0.3  # the seal's centre above the date, in radii: it covers the date
SEAL_JITTER = 0.015  # in page widths
SEAL_TILT_DEG = 10.0
# Seals on a licence at their real size: 42 mm across on a 297 mm wide sheet; `random_spec`'s
# natural sizes are for a 210 mm page about 1400 px wide.
AUTHORITY_DIAMETER = (0.135, 0.15)  # in page widths
NATURAL_PX_PER_PAGE_WIDTH = 1400.0 * 297.0 / 210.0
AUTHORITY = "市场监督管理局"
FORMS = ("有限责任公司（自然人投资或控股）", "股份有限公司（非上市）", "有限责任公司（法人独资）")
SCOPE = "技术开发、技术咨询、技术服务；销售电子产品、办公用品；货物进出口（依法须经批准的项目除外）"
CAPITAL = ("壹佰万元整", "伍佰万元整", "壹仟万元整", "叁佰万元整", "伍拾万元整")


def _fields(rng: np.random.Generator, company: str) -> list[tuple[str, str]]:
    year, month, day = int(rng.integers(2000, 2024)), int(rng.integers(1, 13)), int(rng.integers(1, 29))
    return [
        ("名　　称", company),
        ("类　　型", FORMS[int(rng.integers(len(FORMS)))]),
        ("法定代表人", invoice_text.person(rng)),
        ("经营范围", SCOPE),
        ("注册资本", CAPITAL[int(rng.integers(len(CAPITAL)))]),
        ("成立日期", f"{year}年{month:02d}月{day:02d}日"),
        ("营业期限", f"{year}年{month:02d}月{day:02d}日至长期"),
        ("住　　所", invoice_text.address(rng)),
    ]


def _frame_and_title(rng: np.random.Generator, draw: ImageDraw.ImageDraw, width: int, height: int) -> None:
    inset = width * rng.uniform(*FRAME)
    for step, line in enumerate(FRAME_WIDTHS):
        gap = inset + step * 2 * FRAME_WIDTHS[0]
        draw.rectangle([gap, gap, width - gap, height - gap], outline=BLACK, width=line)
    radius, cy = EMBLEM[0] * width, EMBLEM[1] * height
    for ring in range(EMBLEM_RINGS, 0, -1):
        r = radius * ring / EMBLEM_RINGS
        fill = BLACK if ring % 2 else (200, 200, 200)
        draw.ellipse([width / 2 - r, cy - r, width / 2 + r, cy + r], fill=fill)
    face = truetype(CJK_FONTS[0], round(TITLE * width))
    draw.text((width / 2, TITLE_Y * height), "营 业 执 照", fill=BLACK, font=face, anchor="mm")


def _qr(rng: np.random.Generator, draw: ImageDraw.ImageDraw, width: int, height: int) -> None:
    cells = 21
    side = QR_SIDE * width / cells
    x0, y0 = QR_XY[0] * width, QR_XY[1] * height
    for row, col in zip(*np.nonzero(rng.random((cells, cells)) < 0.5), strict=True):
        draw.rectangle(
            [x0 + col * side, y0 + row * side, x0 + (col + 1) * side, y0 + (row + 1) * side], fill=BLACK
        )


def _print(
    rng: np.random.Generator, canvas: Image.Image, company: str, authority: str
) -> tuple[float, float]:
    """Everything printed on the licence; returns the centre of the date under 登记机关."""
    draw, width, height = ImageDraw.Draw(canvas), canvas.width, canvas.height
    _frame_and_title(rng, draw, width, height)
    _qr(rng, draw, width, height)
    size = round(width * rng.uniform(*FIELD_SIZE))
    face = truetype(CJK_FONTS[int(rng.integers(2))], size)
    draw.text(
        (CREDIT_XY[0] * width, CREDIT_XY[1] * height),
        f"统一社会信用代码  {vocab.tax_id(rng)}",
        fill=BLACK,
        font=face,
    )
    fields, step = _fields(rng, company), size * rng.uniform(*FIELD_STEP)
    half = (len(fields) + 1) // 2
    for index, (label, value) in enumerate(fields):
        x = COLUMNS[index // half] * width
        y = FIELD_TOP * height + (index % half) * step
        line = f"{label}　{value}"
        limit = (COLUMNS[1] - COLUMNS[0] - 0.02) * width
        while len(line) > len(label) + 2 and draw.textlength(line, font=face) > limit:
            line = line[:-1]
        draw.text((x, y), line, fill=BLACK, font=face)
    x, y = AUTHORITY_XY[0] * width, AUTHORITY_XY[1] * height
    draw.text((x, y), f"登记机关　{authority}", fill=BLACK, font=face)
    date = f"{int(rng.integers(2015, 2026))}年{int(rng.integers(1, 13))}月{int(rng.integers(1, 29))}日"
    date_x = x + draw.textlength("登记机关　", font=face)
    draw.text((date_x, y + 2 * size), date, fill=BLACK, font=face)
    return date_x + draw.textlength(date, font=face) / 2.0, y + 2.5 * size


def _authority(rng: np.random.Generator) -> str:
    """A registration authority: a city's 市场监督管理局."""
    return vocab.CITIES[int(rng.integers(len(vocab.CITIES)))] + "市" + AUTHORITY


def draw(
    rng: np.random.Generator, size: tuple[int, int] | None, request: Request
) -> tuple[Pixels, list[Stamp]]:
    """A business licence; its first seal is the registration authority's over the date, any
    more (a company's own, stamped on the copy) anywhere."""
    if size is None:
        width = int(rng.integers(*PAGE_WIDTH_RANGE))
        size = (width, round(width * rng.uniform(*LICENCE_ASPECT)))
    width, height = size
    canvas = Image.fromarray(paper(rng, width, height))
    authority = _authority(rng)
    date = _print(rng, canvas, vocab.organisation_name(rng), authority)
    page = np.asarray(canvas).copy()
    taken: list[Box] = []
    stamps: list[Stamp | None] = []
    for index in range(request.n_seals):
        if index == 0:
            diameter = request.diameter or width * rng.uniform(*AUTHORITY_DIAMETER)
            spec = fitted(official_spec(rng, authority, request.shape), diameter)
            target = (date[0], date[1] - SEAL_LIFT * spec.axes[1])
            spot = Spot(target, SEAL_JITTER * width, SEAL_TILT_DEG, cut_probability=0.0)
        else:
            spec = random_spec(rng, request.shape)
            natural = 2.0 * max(spec.axes) * width / NATURAL_PX_PER_PAGE_WIDTH
            spec, spot = fitted(spec, request.diameter or natural), ANYWHERE
        stamps.append(stamp_seal(rng, page, spec, taken, spot=spot))
    return page, [stamp for stamp in stamps if stamp is not None]
