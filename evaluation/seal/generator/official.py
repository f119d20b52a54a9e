"""Official documents (红头文件): the issuing body's name as a large bold red title, a red rule
under the document number, black body text, and the body's seal stamped over the date at the
bottom right, as the rules for official documents have it (the seal covers the date; GB/T
9704-2012).

The red title is red ink that is not a seal, common on uploaded letters: characters of
50-105 px, bold, some closed (回, 国, 口) as a seal's ring is, often with a red star on the
rule. Pages of this layout without a seal measure false seals on it; with one, the seal's rim
is crossed by the black print of the signature block, as on real letters.
"""

from __future__ import annotations

import numpy as np
from imgproc.arrays import Pixels
from PIL import Image, ImageDraw, ImageFont

from . import vocab
from .designs import official_spec, random_spec
from .document import Request, fitted, paper
from .placement import ANYWHERE, Spot, Stamp, stamp_seal
from .render import CJK_FONTS, FontRef, available_fonts, star_points, truetype
from .texture import ink_colour

A4_ASPECT = 297.0 / 210.0
PAGE_WIDTH_RANGE = (1000, 1500)
BOLD_FONTS: tuple[FontRef, ...] = (CJK_FONTS[0], CJK_FONTS[3], CJK_FONTS[4])  # serif, sans, zenhei
TITLE_SUFFIXES = ("文件", "文件", "", "办公室文件")
TITLE_SIZE = (0.04, 0.085)  # in page widths: 50-105 px on a 1240 px sheet
TITLE_WIDTH = 0.88  # at most this share of the page width: a longer title is set smaller
TITLE_TOP = (0.06, 0.12)  # in page heights
NUMBER_SIZE = 0.02  # the document number (京教发〔2024〕12号), in page widths
RULE_WIDTH = (2, 6)  # px
RULE_MARGIN = 0.08  # of the page width at each end
STAR_PROBABILITY = 0.4  # a red star in the middle of the rule
STAR_RADIUS = 0.012  # in page widths
BODY_SIZE = (0.018, 0.024)  # in page widths
BODY_LINES = (
    "关于进一步做好年度工作的通知",
    "各有关单位：",
    "根据工作安排，现将有关事项通知如下，请遵照执行。",
    "一、高度重视，加强组织领导，明确责任分工。",
    "二、严格落实各项措施，确保工作按期完成。",
    "三、请于规定时间前将有关材料报送我单位。",
    "特此通知。",
)
BODY_BOTTOM = 0.68  # body print ends at this share of the page height
SIGNATURE_TOP = (0.74, 0.82)  # the issuer's name, in page heights
SIGNATURE_RIGHT = 0.12  # right margin of the signature block, in page widths
BLACK = (20, 20, 20)
SEAL_LIFT = 0.4  # the seal's centre above the date line, in seal radii: it covers the date
SEAL_JITTER = 0.015  # in page widths
SEAL_TILT_DEG = 12.0  # stamped by hand, near upright


def sheet_size(rng: np.random.Generator, size: tuple[int, int] | None) -> tuple[int, int]:
    if size is not None:
        return size
    width = int(rng.integers(*PAGE_WIDTH_RANGE))
    return width, round(width * A4_ASPECT)


def centred(
    draw: ImageDraw.ImageDraw,
    width: int,
    y: float,
    text: str,
    font: FontRef,
    size: int,
    fill: tuple[int, ...],
) -> float:
    """`text` centred across the page with its top at `y`; returns its bottom."""
    face = truetype(font, size)
    draw.text(((width - draw.textlength(text, font=face)) / 2.0, y), text, fill=fill, font=face)
    return y + size


def _title_size(draw: ImageDraw.ImageDraw, width: int, title: str, font: FontRef, size: int) -> int:
    """`size`, or smaller where the title would not fit `TITLE_WIDTH` of the page."""
    wide = draw.textlength(title, font=truetype(font, size))
    return max(8, int(size * min(1.0, TITLE_WIDTH * width / max(wide, 1.0))))


def header(rng: np.random.Generator, canvas: Image.Image, issuer: str) -> float:
    """The red title, the document number and the red rule; returns the rule's y."""
    draw, width, height = ImageDraw.Draw(canvas), canvas.width, canvas.height
    red = tuple(int(v) for v in ink_colour(rng))
    title = issuer + TITLE_SUFFIXES[int(rng.integers(len(TITLE_SUFFIXES)))]
    fonts = available_fonts(BOLD_FONTS)
    font = fonts[int(rng.integers(len(fonts)))]
    size = _title_size(draw, width, title, font, int(width * rng.uniform(*TITLE_SIZE)))
    y = centred(draw, width, height * rng.uniform(*TITLE_TOP), title, font, size, red)
    number = f"{issuer[:2]}发〔{int(rng.integers(2015, 2026))}〕{int(rng.integers(1, 99))}号"
    y = centred(draw, width, y + 0.6 * size, number, CJK_FONTS[1], max(8, int(NUMBER_SIZE * width)), BLACK)
    y += NUMBER_SIZE * width
    left, right, line = RULE_MARGIN * width, (1.0 - RULE_MARGIN) * width, int(rng.integers(*RULE_WIDTH))
    if rng.random() < STAR_PROBABILITY:
        radius, middle = STAR_RADIUS * width, width / 2.0
        draw.line([(left, y), (middle - 2 * radius, y)], fill=red, width=line)
        draw.line([(middle + 2 * radius, y), (right, y)], fill=red, width=line)
        draw.polygon([tuple(p) for p in star_points(np.array([middle, y]), radius)], fill=red)
    else:
        draw.line([(left, y), (right, y)], fill=red, width=line)
    return y


def body_face(rng: np.random.Generator, width: int) -> tuple[ImageFont.FreeTypeFont, int]:
    """A serif face and size for black print on a page `width` wide."""
    size = max(8, int(width * rng.uniform(*BODY_SIZE)))
    return truetype(CJK_FONTS[int(rng.integers(2))], size), size


def body(rng: np.random.Generator, canvas: Image.Image, top: float) -> None:
    draw, width = ImageDraw.Draw(canvas), canvas.width
    face, size = body_face(rng, width)
    y = top + 2 * size
    for line in BODY_LINES:
        if y > BODY_BOTTOM * canvas.height:
            return
        draw.text((RULE_MARGIN * width + 2 * size, y), line, fill=BLACK, font=face)
        y += 2 * size


def _signature(rng: np.random.Generator, canvas: Image.Image, issuer: str) -> tuple[float, float]:
    """The issuer's name and the date, right-aligned near the bottom; returns the date's centre."""
    draw, width = ImageDraw.Draw(canvas), canvas.width
    face, size = body_face(rng, width)
    date = f"{int(rng.integers(2015, 2026))}年{int(rng.integers(1, 13))}月{int(rng.integers(1, 29))}日"
    right, y = (1.0 - SIGNATURE_RIGHT) * width, canvas.height * rng.uniform(*SIGNATURE_TOP)
    for text, top in ((issuer, y), (date, y + 2 * size)):
        draw.text((right - draw.textlength(text, font=face), top), text, fill=BLACK, font=face)
    return right - draw.textlength(date, font=face) / 2.0, y + 2.5 * size


def draw(
    rng: np.random.Generator, size: tuple[int, int] | None, request: Request
) -> tuple[Pixels, list[Stamp]]:
    """An official document; its first seal is the issuer's, over the date, any more anywhere."""
    width, height = sheet_size(rng, size)
    canvas, issuer = Image.fromarray(paper(rng, width, height)), vocab.issuer(rng)
    rule = header(rng, canvas, issuer)
    body(rng, canvas, rule)
    date = _signature(rng, canvas, issuer)
    page, taken = np.asarray(canvas).copy(), [(0, 0, width, int(rule) + 1)]
    stamps: list[Stamp | None] = []
    for index in range(request.n_seals):
        if index == 0:
            spec = fitted(official_spec(rng, issuer, request.shape), request.diameter)
            target = (date[0], date[1] - SEAL_LIFT * spec.axes[1])
            spot = Spot(target, SEAL_JITTER * width, SEAL_TILT_DEG, cut_probability=0.0)
        else:
            spec, spot = fitted(random_spec(rng, request.shape), request.diameter), ANYWHERE
        stamps.append(stamp_seal(rng, page, spec, taken, spot=spot))
    return page, [stamp for stamp in stamps if stamp is not None]
