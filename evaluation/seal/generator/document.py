"""Ordinary document pages: black (some blue) print and rules, a red letterhead sometimes, and
company seals stamped anywhere they fit.

Also home to what every layout shares: the paper and the `Request` a layout must satisfy.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from imgproc.arrays import Pixels
from PIL import Image, ImageDraw

from . import vocab
from .designs import random_spec, scaled
from .placement import CUT_PROBABILITY, Box, Spot, Stamp, stamp_seal
from .render import CJK_FONTS, SealSpec, available_fonts, truetype
from .texture import ink_colour

PAGE_WIDTH_RANGE = (1000, 1500)
PAGE_ASPECT_RANGE = (0.65, 1.4)
PRINT_SIZE_RANGE = (14, 26)
PRINT_COLOURS = ((20, 20, 20), (40, 60, 150))  # black, and blue for one line in five
BLACK_PRINT_PROBABILITY = 0.8
RULE_PROBABILITY = 0.15  # a table rule above a line of print
LINE_SPACING = (2.2, 5.0)  # in font sizes
PAPER_LEVEL = (240, 252)  # paper is never quite white, and varies a little in tint
PAPER_TINT = 3.0
PAPER_GRAIN = (0.5, 3.0)
FIRST_LINE = (20, 60)  # px from the top to the first line of print
BOTTOM_MARGIN, LEFT_MARGIN = 30, 10  # px
INDENT_SHARE = 3  # lines start anywhere in the left 1/INDENT_SHARE of the page
RULE_GAP, RULE_COLOUR = 6, (60, 60, 60)  # px above the line of print; dark grey
DISTRACTOR_PROBABILITY = 0.35
HEADER_HEIGHT = 70  # the letterhead band, where red distractors go and seals do not
HEADER_TITLE_PROBABILITY, HEADER_LOGO_PROBABILITY = 0.7, 0.5
HEADER_TITLE_SIZE, HEADER_TITLE_CHARS = (30, 50), 12
HEADER_TITLE_XY = (4, 8)  # x: at 1/4 of the width; y: px from the top
HEADER_TITLE_SUFFIX = "发货单"
LOGO_RADIUS, LOGO_LEFT_SHARE, LOGO_TOP = (12, 28), 5, (5, 20)  # px; in the left 1/5; px


@dataclass(frozen=True)
class Request:
    """What a layout must put on its page."""

    n_seals: int
    shape: str | None = None  # every seal of this shape; None: the layout's usual shapes
    diameter: float | None = None  # page px across each seal's long axis; None: natural sizes
    cut_probability: float = CUT_PROBABILITY  # of a seal stamped anywhere, running off the page


def fitted(spec: SealSpec, diameter: float | None) -> SealSpec:
    """`spec` scaled to `diameter` across its long axis (unchanged for None)."""
    return spec if diameter is None else scaled(spec, diameter / (2.0 * max(spec.axes)))


def paper(rng: np.random.Generator, width: int, height: int) -> Pixels:
    """An RGB sheet of slightly tinted, slightly grainy paper."""
    tint = rng.uniform(*PAPER_LEVEL) + rng.uniform(-PAPER_TINT, PAPER_TINT, 3)
    noise = rng.normal(0.0, rng.uniform(*PAPER_GRAIN), (height, width, 1))
    return np.clip(tint + noise, 0, 255).astype(np.uint8)


def page_size(rng: np.random.Generator) -> tuple[int, int]:
    """A document page's size in pixels."""
    width = int(rng.integers(*PAGE_WIDTH_RANGE))
    return width, int(width * rng.uniform(*PAGE_ASPECT_RANGE))


def _print(rng: np.random.Generator, page: Image.Image) -> None:
    """Ordinary black (sometimes blue) print and table rules."""
    draw = ImageDraw.Draw(page)
    fonts = available_fonts(CJK_FONTS)
    y = int(rng.integers(*FIRST_LINE))
    while y < page.height - BOTTOM_MARGIN:
        size = int(rng.integers(*PRINT_SIZE_RANGE))
        font = truetype(fonts[int(rng.integers(len(fonts)))], size)
        colour = PRINT_COLOURS[0] if rng.random() < BLACK_PRINT_PROBABILITY else PRINT_COLOURS[1]
        x = int(rng.integers(LEFT_MARGIN, page.width // INDENT_SHARE))
        draw.text((x, y), vocab.page_line(rng), fill=colour, font=font)
        if rng.random() < RULE_PROBABILITY:
            draw.line([(0, y - RULE_GAP), (page.width, y - RULE_GAP)], fill=RULE_COLOUR, width=1)
        y += int(size * rng.uniform(*LINE_SPACING))


def _distractors(rng: np.random.Generator, page: Image.Image) -> Box:
    """A red letterhead: a title line and/or a small logo, red ink that is not a seal.

    Returns the header box, which seals keep clear of, as they do on real letterheads.
    """
    draw = ImageDraw.Draw(page)
    red = tuple(int(v) for v in ink_colour(rng))
    if rng.random() < HEADER_TITLE_PROBABILITY:
        font = truetype(available_fonts(CJK_FONTS)[0], int(rng.integers(*HEADER_TITLE_SIZE)))
        title = vocab.organisation_name(rng, HEADER_TITLE_CHARS) + HEADER_TITLE_SUFFIX
        draw.text((page.width // HEADER_TITLE_XY[0], HEADER_TITLE_XY[1]), title, fill=red, font=font)
    if rng.random() < HEADER_LOGO_PROBABILITY:
        radius = int(rng.integers(*LOGO_RADIUS))
        x, y = int(rng.integers(LEFT_MARGIN, page.width // LOGO_LEFT_SHARE)), int(rng.integers(*LOGO_TOP))
        draw.ellipse([x, y, x + 2 * radius, y + 2 * radius], fill=red)
        draw.text((x + radius, y + radius), "A", fill=(255, 255, 255), anchor="mm")
    return 0, 0, page.width, HEADER_HEIGHT


def draw(
    rng: np.random.Generator, size: tuple[int, int] | None, request: Request
) -> tuple[Pixels, list[Stamp]]:
    """A printed page with up to `request.n_seals` company seals stamped where they fit."""
    width, height = size or page_size(rng)
    canvas = Image.fromarray(paper(rng, width, height))
    _print(rng, canvas)
    taken: list[Box] = []
    if rng.random() < DISTRACTOR_PROBABILITY:
        taken.append(_distractors(rng, canvas))
    page = np.asarray(canvas).copy()
    stamps = []
    for _ in range(request.n_seals):
        spec = fitted(random_spec(rng, request.shape), request.diameter)
        stamps.append(stamp_seal(rng, page, spec, taken, spot=Spot(cut_probability=request.cut_probability)))
    return page, [stamp for stamp in stamps if stamp is not None]
