"""Deterministic synthetic document pages with red seals, and their ground truth.

`generate_page(rng, n_seals)` prints black (and some blue) text and table lines on paper,
stamps `n_seals` seals over it with a multiply blend (the print shows through the ink), and
returns the encoded image with a `SealTruth` per seal. Seals are round (any rotation), oval
or rectangular (modest rotation); the ink is red, vermilion or pinkish with uneven pressure,
missing-ink speckle and sometimes a faint impression; some seals run off the page edge.
Pages may carry red distractors (a red title line, a small red logo). The page is finally
blurred a little and JPEG-compressed. Everything is drawn from the `rng` passed in, so the
same seed gives the same page. Needs the Debian packages fonts-noto-cjk, fonts-wqy-zenhei and
fonts-dejavu-core.
"""

from __future__ import annotations

import io
from dataclasses import dataclass

import cv2
import numpy as np
from PIL import Image, ImageDraw

from . import vocab
from .render import (
    CJK_FONTS,
    DIGIT_FONTS,
    SealSpec,
    available_fonts,
    perimeter,
    render_seal,
    truetype,
)
from .texture import apply_ink, ink_colour, ink_density

SHAPE_WEIGHTS = {"round": 0.5, "oval": 0.35, "rect": 0.15}
PAGE_WIDTH_RANGE = (1000, 1500)
PAGE_ASPECT_RANGE = (0.65, 1.4)
PRINT_SIZE_RANGE = (14, 26)
JPEG_QUALITY_RANGE = (60, 95)
PNG_PROBABILITY = 0.15
MAX_BLUR_SIGMA = 1.0
CUT_PROBABILITY = 0.08
MAX_CUT_FRACTION = 0.15  # of the seal's extent that may lie off the page
DISTRACTOR_PROBABILITY = 0.35
OVAL_TILT_DEG = 20.0
PLACEMENT_TRIES = 50
HEADER_HEIGHT = 70  # the letterhead band, where red distractors go and seals do not


@dataclass(frozen=True)
class SealTruth:
    """Ground truth of one stamped seal, in page pixels."""

    box: tuple[int, int, int, int]  # x0, y0, x1, y1 clipped to the page, exclusive ends
    shape: str
    rim_text: str  # rim text; for rectangular seals the main line
    inner_texts: tuple[str, ...]  # horizontal lines inside, top to bottom
    codes: tuple[str, ...]  # the bottom-arc seal code
    center: tuple[float, float]
    axes: tuple[float, float]
    angle_deg: float  # rotation of the seal's upright x axis, clockwise on screen
    cut: bool  # part of the seal is off the page
    faint: bool


@dataclass(frozen=True)
class Page:
    """One encoded page and the seals on it."""

    image_bytes: bytes
    width: int
    height: int
    seals: list[SealTruth]


def _choice(rng: np.random.Generator, weights: dict[str, float]) -> str:
    keys = list(weights)
    return keys[int(rng.choice(len(keys), p=np.array(list(weights.values())) / sum(weights.values())))]


def _axes(rng: np.random.Generator, shape: str) -> tuple[float, float]:
    if shape == "round":
        radius = rng.uniform(95, 165)
        return radius, radius
    if shape == "oval":
        a = rng.uniform(125, 185)
        return a, a * rng.uniform(0.66, 0.8)
    a = rng.uniform(80, 150)
    return a, a * rng.uniform(0.32, 0.55)


def _inner_texts(rng: np.random.Generator, shape: str) -> tuple[str, ...]:
    if shape == "rect":
        return (vocab.organisation_name(rng, 10),) if rng.random() < 0.25 else ()
    if rng.random() > (0.7 if shape == "round" else 0.85):
        return ()
    with_id = rng.random() < (0.15 if shape == "round" else 0.6)
    return (vocab.tax_id(rng), vocab.purpose(rng)) if with_id else (vocab.purpose(rng),)


def _rim_layout(
    rng: np.random.Generator, axes: tuple[float, float], text: str, code: bool
) -> dict[str, float]:
    """Ring, font size, squeeze and span for a rim text that fits the border."""
    b = axes[1]
    ring, gap, size = b * rng.uniform(0.04, 0.065), b * rng.uniform(0.03, 0.06), b * rng.uniform(0.21, 0.28)
    total = rng.uniform(0.5, 0.6) if len(text) <= 8 else rng.uniform(0.6, 0.66 if code else 0.78)
    span = total * (len(text) - 1) / len(text)
    step = span * perimeter(axes, ring + gap + size / 2.0) / max(len(text) - 1, 1)
    squeeze = min(1.0, step / (size * 1.05))
    if squeeze < 0.6:
        size, squeeze = step / (0.6 * 1.05), 0.6
    return {"ring": ring, "rim_gap": gap, "rim_size": size, "squeeze": squeeze, "span_fraction": span}


def random_spec(rng: np.random.Generator, shape: str | None = None) -> SealSpec:
    """A random, plausible seal design."""
    shape = shape or _choice(rng, SHAPE_WEIGHTS)
    axes = _axes(rng, shape)
    fonts, digits = available_fonts(CJK_FONTS), available_fonts(DIGIT_FONTS)
    if not fonts or not digits:
        raise RuntimeError("install fonts-noto-cjk, fonts-wqy-zenhei and fonts-dejavu-core")
    code = vocab.seal_code(rng) if shape != "rect" and rng.random() < 0.35 else None
    text = vocab.rect_word(rng) if shape == "rect" else vocab.organisation_name(rng, 17 if code else 20)
    layout = _rim_layout(rng, axes, text, code is not None)
    if shape == "rect":
        layout.update(ring=axes[1] * rng.uniform(0.05, 0.1), rim_size=axes[1] * rng.uniform(0.7, 1.1))
    return SealSpec(
        shape=shape,
        axes=axes,
        rim_text=text,
        inner_texts=_inner_texts(rng, shape),
        code=code,
        star=shape == "round" and rng.random() < 0.9,
        font=fonts[int(rng.integers(len(fonts)))],
        digit_font=digits[int(rng.integers(len(digits)))],
        code_size=axes[1] * rng.uniform(0.1, 0.13),
        **layout,
    )


def _paper(rng: np.random.Generator, width: int, height: int) -> np.ndarray:
    tint = rng.uniform(240, 252) + rng.uniform(-3, 3, 3)
    noise = rng.normal(0.0, rng.uniform(0.5, 3.0), (height, width, 1))
    return np.clip(tint + noise, 0, 255).astype(np.uint8)


def _print(rng: np.random.Generator, page: Image.Image) -> None:
    """Ordinary black (sometimes blue) print and table rules."""
    draw = ImageDraw.Draw(page)
    fonts = available_fonts(CJK_FONTS)
    y = int(rng.integers(20, 60))
    while y < page.height - 30:
        size = int(rng.integers(*PRINT_SIZE_RANGE))
        font = truetype(fonts[int(rng.integers(len(fonts)))], size)
        colour = (20, 20, 20) if rng.random() < 0.8 else (40, 60, 150)
        draw.text((int(rng.integers(10, page.width // 3)), y), vocab.page_line(rng), fill=colour, font=font)
        if rng.random() < 0.15:
            draw.line([(0, y - 6), (page.width, y - 6)], fill=(60, 60, 60), width=1)
        y += int(size * rng.uniform(2.2, 5.0))


def _distractors(rng: np.random.Generator, page: Image.Image) -> tuple[int, int, int, int]:
    """A red letterhead: a title line and/or a small logo, red ink that is not a seal.

    Returns the header box, which seals keep clear of, as they do on real letterheads.
    """
    draw = ImageDraw.Draw(page)
    red = tuple(int(v) for v in ink_colour(rng))
    if rng.random() < 0.7:
        font = truetype(available_fonts(CJK_FONTS)[0], int(rng.integers(30, 50)))
        draw.text((page.width // 4, 8), vocab.organisation_name(rng, 12) + "发货单", fill=red, font=font)
    if rng.random() < 0.5:
        radius = int(rng.integers(12, 28))
        x, y = int(rng.integers(10, page.width // 5)), int(rng.integers(5, 20))
        draw.ellipse([x, y, x + 2 * radius, y + 2 * radius], fill=red)
        draw.text((x + radius, y + radius), "A", fill=(255, 255, 255), anchor="mm")
    return 0, 0, page.width, HEADER_HEIGHT


def _rotated(density: np.ndarray, angle_deg: float) -> np.ndarray:
    """The density canvas rotated clockwise on screen, on a canvas that holds all of it."""
    height, width = density.shape
    side = int(np.ceil(np.hypot(width, height))) + 2
    matrix = cv2.getRotationMatrix2D((width / 2.0, height / 2.0), -angle_deg, 1.0)
    matrix[:, 2] += [(side - width) / 2.0, (side - height) / 2.0]
    return cv2.warpAffine(density, matrix, (side, side), flags=cv2.INTER_LINEAR)


def _extent(spec: SealSpec, angle_deg: float) -> tuple[float, float]:
    """Half width and half height of the rotated seal's bounding box."""
    a, b = spec.axes
    theta = np.deg2rad(angle_deg)
    if spec.shape == "rect":
        return a * abs(np.cos(theta)) + b * abs(np.sin(theta)), a * abs(np.sin(theta)) + b * abs(
            np.cos(theta)
        )
    return float(np.hypot(a * np.cos(theta), b * np.sin(theta))), float(
        np.hypot(a * np.sin(theta), b * np.cos(theta))
    )


def _centre(
    rng: np.random.Generator, half: tuple[float, float], size: tuple[int, int], cut: bool
) -> np.ndarray:
    low = np.array(half) + 2
    high = np.array(size) - np.array(half) - 2
    centre = rng.uniform(low, np.maximum(high, low + 1))
    if cut:
        axis, side = int(rng.integers(2)), int(rng.integers(2))
        overhang = rng.uniform(0.05, MAX_CUT_FRACTION) * 2 * half[axis]
        centre[axis] = half[axis] - overhang if side == 0 else size[axis] - half[axis] + overhang
    return centre


def _overlaps(box: tuple[int, int, int, int], boxes: list[tuple[int, int, int, int]]) -> bool:
    return any(box[0] < o[2] and o[0] < box[2] and box[1] < o[3] and o[1] < box[3] for o in boxes)


def _box(centre: np.ndarray, half: tuple[float, float], width: int, height: int) -> tuple[int, int, int, int]:
    x0, y0 = centre - half
    x1, y1 = centre + half
    return max(0, int(x0)), max(0, int(y0)), min(width, int(np.ceil(x1))), min(height, int(np.ceil(y1)))


def _place(rng: np.random.Generator, page: np.ndarray, spec: SealSpec, taken: list) -> SealTruth | None:
    """Stamp one seal onto the page where it overlaps no other; None if there is no room."""
    height, width = page.shape[:2]
    angle = rng.uniform(0, 360) if spec.shape == "round" else rng.uniform(-OVAL_TILT_DEG, OVAL_TILT_DEG)
    half = _extent(spec, angle)
    cut = rng.random() < CUT_PROBABILITY
    for _ in range(PLACEMENT_TRIES):
        centre = _centre(rng, half, (width, height), cut)
        box = _box(centre, half, width, height)
        if not _overlaps(box, taken) and box[2] > box[0] and box[3] > box[1]:
            break
    else:
        return None
    density, faint = ink_density(rng, render_seal(spec))
    apply_ink(page, _rotated(density, angle), centre, ink_colour(rng))
    taken.append(box)
    cut = bool(np.any(centre - half < 0) or centre[0] + half[0] > width or centre[1] + half[1] > height)
    return SealTruth(
        box=box,
        shape=spec.shape,
        rim_text=spec.rim_text,
        inner_texts=spec.inner_texts,
        codes=(spec.code,) if spec.code else (),
        center=(float(centre[0]), float(centre[1])),
        axes=spec.axes,
        angle_deg=float(angle % 360),
        cut=cut,
        faint=faint,
    )


def _encode(rng: np.random.Generator, page: np.ndarray) -> bytes:
    sigma = rng.uniform(0.0, MAX_BLUR_SIGMA)
    if sigma > 0.3:
        page = cv2.GaussianBlur(page, (0, 0), sigma)
    buffer = io.BytesIO()
    if rng.random() < PNG_PROBABILITY:
        Image.fromarray(page).save(buffer, format="PNG", compress_level=1)
    else:
        Image.fromarray(page).save(buffer, format="JPEG", quality=int(rng.integers(*JPEG_QUALITY_RANGE)))
    return buffer.getvalue()


def generate_page(
    rng: np.random.Generator, n_seals: int, *, size: tuple[int, int] | None = None, shape: str | None = None
) -> Page:
    """A printed page with up to `n_seals` seals stamped on it (fewer only if they do not fit)."""
    width = size[0] if size else int(rng.integers(*PAGE_WIDTH_RANGE))
    height = size[1] if size else int(width * rng.uniform(*PAGE_ASPECT_RANGE))
    canvas = Image.fromarray(_paper(rng, width, height))
    _print(rng, canvas)
    taken: list[tuple[int, int, int, int]] = []
    if rng.random() < DISTRACTOR_PROBABILITY:
        taken.append(_distractors(rng, canvas))
    page = np.asarray(canvas).copy()
    placed = [_place(rng, page, random_spec(rng, shape), taken) for _ in range(n_seals)]
    seals = [truth for truth in placed if truth is not None]
    return Page(image_bytes=_encode(rng, page), width=width, height=height, seals=seals)
