"""Seal designs: random `SealSpec`s for company seals, invoice seals and supervision seals.

- `random_spec`: a company or office seal, round, oval or rectangular (rim text, star,
  purpose line, sometimes a tax ID or a 13-digit code along the bottom).
- `invoice_spec`: a 发票专用章, a 40 x 30 mm oval with a dense company name along the top arc,
  the tax ID straight through the centre and 发票专用章 below it (sometimes a "(3)" serial).
- `supervision_spec`: the 全国统一发票监制章 printed in an invoice's header, a double-ringed oval
  with 全国统一发票监制章 along the top, the province in the middle and 国家税务总局监制 (or the
  local bureau) along the bottom arc, character tops inward.

`truth_texts` says how a design reads: tax IDs and seal codes are codes, the rest inner lines.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import TypedDict

import numpy as np

from . import invoice_text, vocab
from .render import CJK_FONTS, DIGIT_FONTS, FontRef, Line, SealSpec, available_fonts, perimeter

SHAPE_WEIGHTS = {"round": 0.5, "oval": 0.35, "rect": 0.15}
# Company and office seals (`random_spec`), in pixels of a ~1400 px page scan; b is the short
# semi-axis.
ROUND_RADIUS = (95, 165)
OVAL_SEMI_MAJOR, OVAL_ASPECT = (125, 185), (0.66, 0.8)  # aspect: b / a
RECT_HALF_WIDTH, RECT_ASPECT = (80, 150), (0.32, 0.55)
RECT_SECOND_LINE = 0.25  # office stamps with the company under the word (现金付讫 / 某某公司)
RECT_SECOND_LINE_CHARS = 10
INNER_LINE = {"round": 0.7, "oval": 0.85}  # probability of a purpose line (合同专用章) inside
TAX_ID_LINE = {"round": 0.15, "oval": 0.6}  # ... with the tax ID above it (common on ovals)
CODE_PROBABILITY = 0.35  # the 13-digit code along the bottom of registered seals
MAX_RIM_CHARS, MAX_RIM_CHARS_WITH_CODE = 20, 17  # a code takes the bottom of the rim
STAR_PROBABILITY = 0.9  # of round seals
RIM_RING, RIM_GAP, RIM_SIZE = (0.04, 0.065), (0.03, 0.06), (0.21, 0.28)  # in b
SHORT_RIM_CHARS = 8  # this many characters or fewer spread over SHORT_RIM_SPAN
SHORT_RIM_SPAN, LONG_RIM_SPAN = (0.5, 0.6), (0.6, 0.78)  # shares of the perimeter
MAX_SPAN_WITH_CODE = 0.66
CODE_SIZE = (0.1, 0.13)  # in b
RECT_RING, RECT_TEXT_SIZE = (0.05, 0.1), (0.7, 1.1)  # in b
CODE_PATTERN = re.compile(r"[0-9A-Z]{8,}")  # tax IDs and seal codes, as the dataset tells them apart
MIN_SQUEEZE = 0.6  # rim glyphs narrower than this are unreadable: the font shrinks instead
GLYPH_ADVANCE = 1.05  # a rim glyph needs this many font sizes of arc
SIZE_JITTER = (0.92, 1.08)  # makers and scanners vary the size of the same kind of seal
LINE_FILL = 0.95  # straight lines keep this share of the free width, off the ring
RIM_BAND = 1.1  # depth of the rim text's band, in rim font sizes (the glyphs and a little air)
# 发票专用章: 40 x 30 mm by regulation (semi-axes in mm, lengths below in short semi-axes b).
INVOICE_SEMI_MAJOR_MM = 20.0
INVOICE_ASPECT = (1.28, 1.4)  # a / b
INVOICE_RING = (0.045, 0.07)
INVOICE_RIM_GAP = (0.03, 0.05)
INVOICE_RIM_SIZE = (0.2, 0.25)
INVOICE_RIM_SPAN = (0.62, 0.72)  # share of the perimeter under the name: dense, down both sides
INVOICE_ID_Y, INVOICE_ID_SIZE = (-0.08, 0.02), (0.15, 0.19)
INVOICE_PURPOSE_Y, INVOICE_PURPOSE_SIZE = (0.33, 0.42), (0.2, 0.25)
INVOICE_SERIAL_PROBABILITY = 0.3  # "(3)": which of a company's several invoice seals this is
INVOICE_SERIAL_Y, INVOICE_SERIAL_SIZE, MAX_SERIAL = 0.66, 0.11, 9
INVOICE_PURPOSE = "发票专用章"
TAX_ID_FONTS: tuple[FontRef, ...] = (  # invoice seals set the tax ID in a narrow sans, often slanted
    ("/usr/share/fonts/truetype/dejavu/DejaVuSansCondensed-Oblique.ttf", 0),
    ("/usr/share/fonts/truetype/dejavu/DejaVuSansCondensed.ttf", 0),
    ("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf", 0),
)
# 监制章: about 30 x 20 mm, a thick outer ring and a thin inner one.
SUPERVISION_SEMI_MAJOR_MM = 15.0
SUPERVISION_ASPECT = (1.4, 1.55)
SUPERVISION_RING = (0.06, 0.085)
SUPERVISION_INNER_RING = (0.015, 0.025)
SUPERVISION_RIM_GAP = (0.03, 0.05)
SUPERVISION_RIM_SIZE = (0.24, 0.29)
SUPERVISION_RIM_SPAN = (0.36, 0.42)
SUPERVISION_MIDDLE_SIZE = (0.24, 0.3)
SUPERVISION_PROVINCE_GAPS = {2: 2, 3: 1}  # ideographic spaces in a province, by length: 四　　川
SERIF_FONTS = CJK_FONTS[:2]  # the 监制章 is typeset in Song (serif)


def _choice(rng: np.random.Generator, weights: dict[str, float]) -> str:
    keys = list(weights)
    return keys[int(rng.choice(len(keys), p=np.array(list(weights.values())) / sum(weights.values())))]


def _pick_font(rng: np.random.Generator, fonts: tuple[FontRef, ...]) -> FontRef:
    installed = available_fonts(fonts)
    if not installed:
        raise RuntimeError("install fonts-noto-cjk, fonts-wqy-zenhei and fonts-dejavu-core")
    return installed[int(rng.integers(len(installed)))]


def _axes(rng: np.random.Generator, shape: str) -> tuple[float, float]:
    if shape == "round":
        radius = rng.uniform(*ROUND_RADIUS)
        return radius, radius
    if shape == "oval":
        a = rng.uniform(*OVAL_SEMI_MAJOR)
        return a, a * rng.uniform(*OVAL_ASPECT)
    a = rng.uniform(*RECT_HALF_WIDTH)
    return a, a * rng.uniform(*RECT_ASPECT)


def _inner_texts(rng: np.random.Generator, shape: str) -> tuple[str, ...]:
    if shape == "rect":
        second = rng.random() < RECT_SECOND_LINE
        return (vocab.organisation_name(rng, RECT_SECOND_LINE_CHARS),) if second else ()
    if rng.random() > INNER_LINE[shape]:
        return ()
    with_id = rng.random() < TAX_ID_LINE[shape]
    return (vocab.tax_id(rng), vocab.purpose(rng)) if with_id else (vocab.purpose(rng),)


class RimFit(TypedDict):
    """The `SealSpec` fields that fit a rim text to its band (`fit_rim`)."""

    rim_gap: float
    rim_size: float
    squeeze: float
    span_fraction: float


class RimLayout(RimFit):
    """A rim text's fit and the ring it runs inside (`_rim_layout`)."""

    ring: float


def fit_rim(axes: tuple[float, float], text: str, band: tuple[float, float, float], total: float) -> RimFit:
    """Font size, squeeze and span of a rim text covering `total` of the perimeter.

    `band` is (border, gap, font size) from the outer edge inwards; the size shrinks where even
    the narrowest readable glyphs would not fit.
    """
    border, gap, size = band
    span = total * (len(text) - 1) / len(text)
    step = span * perimeter(axes, border + gap + size / 2.0) / max(len(text) - 1, 1)
    squeeze = min(1.0, step / (size * GLYPH_ADVANCE))
    if squeeze < MIN_SQUEEZE:
        size, squeeze = step / (MIN_SQUEEZE * GLYPH_ADVANCE), MIN_SQUEEZE
    return {"rim_gap": gap, "rim_size": size, "squeeze": squeeze, "span_fraction": span}


def _rim_layout(rng: np.random.Generator, axes: tuple[float, float], text: str, code: bool) -> RimLayout:
    """Ring, font size, squeeze and span for a rim text that fits the border."""
    b = axes[1]
    ring, gap, size = b * rng.uniform(*RIM_RING), b * rng.uniform(*RIM_GAP), b * rng.uniform(*RIM_SIZE)
    longest = MAX_SPAN_WITH_CODE if code else LONG_RIM_SPAN[1]
    total = (
        rng.uniform(*SHORT_RIM_SPAN)
        if len(text) <= SHORT_RIM_CHARS
        else rng.uniform(LONG_RIM_SPAN[0], longest)
    )
    return {"ring": ring, **fit_rim(axes, text, (ring, gap, size), total)}


def random_spec(rng: np.random.Generator, shape: str | None = None) -> SealSpec:
    """A random, plausible company or office seal."""
    shape = shape or _choice(rng, SHAPE_WEIGHTS)
    axes = _axes(rng, shape)
    fonts, digits = available_fonts(CJK_FONTS), available_fonts(DIGIT_FONTS)
    if not fonts or not digits:
        raise RuntimeError("install fonts-noto-cjk, fonts-wqy-zenhei and fonts-dejavu-core")
    code = vocab.seal_code(rng) if shape != "rect" and rng.random() < CODE_PROBABILITY else None
    longest = MAX_RIM_CHARS_WITH_CODE if code else MAX_RIM_CHARS
    text = vocab.rect_word(rng) if shape == "rect" else vocab.organisation_name(rng, longest)
    layout = _rim_layout(rng, axes, text, code is not None)
    if shape == "rect":
        ring, rim_size = axes[1] * rng.uniform(*RECT_RING), axes[1] * rng.uniform(*RECT_TEXT_SIZE)
        layout = {**layout, "ring": ring, "rim_size": rim_size}
    return SealSpec(
        shape=shape,
        axes=axes,
        rim_text=text,
        inner_texts=_inner_texts(rng, shape),
        code=code,
        star=shape == "round" and rng.random() < STAR_PROBABILITY,
        font=fonts[int(rng.integers(len(fonts)))],
        digit_font=digits[int(rng.integers(len(digits)))],
        code_size=axes[1] * rng.uniform(*CODE_SIZE),
        **layout,
    )


def official_spec(rng: np.random.Generator, issuer: str, shape: str | None = None) -> SealSpec:
    """The seal of a government body (`issuer`): its name round the rim, a star in a round
    seal, nothing else inside (a rectangular one, where asked for, is an office stamp)."""
    spec = random_spec(rng, shape or "round")
    if spec.shape == "rect":
        return spec
    return replace(
        spec,
        rim_text=issuer,
        inner_texts=(),
        code=None,
        star=spec.shape == "round",
        **_rim_layout(rng, spec.axes, issuer, code=False),
    )


def _oval_axes(
    rng: np.random.Generator, semi_major_px: float, aspect: tuple[float, float]
) -> tuple[float, float]:
    a = semi_major_px * rng.uniform(*SIZE_JITTER)
    return a, a / rng.uniform(*aspect)


def free_width(axes: tuple[float, float], inset: float, y: float, size: float) -> float:
    """How wide a straight line of height `size` at `y` may be, inside the ellipse moved `inset` in."""
    a, b = axes[0] - inset, axes[1] - inset
    edge = min(1.0, (abs(y) + size / 2.0) / b)
    return 2.0 * LINE_FILL * a * float(np.sqrt(1.0 - edge**2))


def _invoice_lines(rng: np.random.Generator, spec: SealSpec, tax_id: str) -> tuple[Line, ...]:
    """The tax ID through the centre (between the rim's ends), 发票专用章 and a serial below."""
    b, rim_band = spec.axes[1], spec.border + spec.rim_gap + spec.rim_size * RIM_BAND
    id_y, id_size = b * rng.uniform(*INVOICE_ID_Y), b * rng.uniform(*INVOICE_ID_SIZE)
    lines = [Line(tax_id, id_y, id_size, free_width(spec.axes, rim_band, id_y, id_size))]
    y, size = b * rng.uniform(*INVOICE_PURPOSE_Y), b * rng.uniform(*INVOICE_PURPOSE_SIZE)
    lines.append(Line(INVOICE_PURPOSE, y, size, free_width(spec.axes, spec.border + spec.rim_gap, y, size)))
    if rng.random() < INVOICE_SERIAL_PROBABILITY:
        y, size = b * INVOICE_SERIAL_Y, b * INVOICE_SERIAL_SIZE
        serial = f"({int(rng.integers(1, MAX_SERIAL + 1))})"
        lines.append(Line(serial, y, size, free_width(spec.axes, spec.border, y, size)))
    return tuple(lines)


def invoice_spec(rng: np.random.Generator, px_per_mm: float) -> SealSpec:
    """A 发票专用章 at `px_per_mm`: the seller's name, tax ID and 发票专用章."""
    axes = _oval_axes(rng, INVOICE_SEMI_MAJOR_MM * px_per_mm, INVOICE_ASPECT)
    b, name, tax_id = axes[1], invoice_text.seller(rng), vocab.tax_id(rng)
    ring = b * rng.uniform(*INVOICE_RING)
    band = (ring, b * rng.uniform(*INVOICE_RIM_GAP), b * rng.uniform(*INVOICE_RIM_SIZE))
    spec = SealSpec(
        shape="oval",
        axes=axes,
        rim_text=name,
        inner_texts=(tax_id, INVOICE_PURPOSE),
        code=None,
        star=False,
        font=_pick_font(rng, CJK_FONTS),
        digit_font=_pick_font(rng, TAX_ID_FONTS),
        ring=ring,
        code_size=0.0,
        **fit_rim(axes, name, band, rng.uniform(*INVOICE_RIM_SPAN)),
    )
    return replace(spec, lines=_invoice_lines(rng, spec, tax_id))


def _supervision_middle(spec: SealSpec, middle: str, size: float) -> Line:
    """The middle line: a spaced province, or 国家税务总局 over the bottom arc's bureau."""
    gaps = 0 if middle == invoice_text.TAX_ADMINISTRATION else SUPERVISION_PROVINCE_GAPS.get(len(middle), 1)
    drawn = invoice_text.spaced(middle, gaps)
    inset = spec.border + spec.rim_gap + spec.rim_size
    return Line(drawn, 0.0, size, free_width(spec.axes, inset, 0.0, size))


def supervision_spec(rng: np.random.Generator, px_per_mm: float, place: str) -> SealSpec:
    """The 全国统一发票监制章 of `place` (a province or city) at `px_per_mm`."""
    axes = _oval_axes(rng, SUPERVISION_SEMI_MAJOR_MM * px_per_mm, SUPERVISION_ASPECT)
    b = axes[1]
    middle, bottom = invoice_text.supervision_lines(rng, place)
    ring, inner_ring = b * rng.uniform(*SUPERVISION_RING), b * rng.uniform(*SUPERVISION_INNER_RING)
    spec = SealSpec(
        shape="oval",
        axes=axes,
        rim_text=invoice_text.SUPERVISION_RIM,
        inner_texts=(middle, bottom),
        code=None,
        star=False,
        font=_pick_font(rng, SERIF_FONTS),
        digit_font=_pick_font(rng, DIGIT_FONTS),
        ring=ring,
        code_size=0.0,
        inner_ring=inner_ring,
        bottom_text=bottom,
        rim_gap=0.0,
        rim_size=0.0,
        squeeze=1.0,
        span_fraction=0.0,
    )
    band = (spec.border, b * rng.uniform(*SUPERVISION_RIM_GAP), b * rng.uniform(*SUPERVISION_RIM_SIZE))
    spec = replace(spec, **fit_rim(axes, spec.rim_text, band, rng.uniform(*SUPERVISION_RIM_SPAN)))
    return replace(
        spec, lines=(_supervision_middle(spec, middle, b * rng.uniform(*SUPERVISION_MIDDLE_SIZE)),)
    )


def truth_texts(spec: SealSpec) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(inner lines, codes) the seal reads as: tax IDs and the seal code are codes."""
    inner = tuple(text for text in spec.inner_texts if not CODE_PATTERN.fullmatch(text))
    codes = tuple(text for text in spec.inner_texts if CODE_PATTERN.fullmatch(text))
    return inner, codes + ((spec.code,) if spec.code else ())


def scaled(spec: SealSpec, factor: float) -> SealSpec:
    """The same seal, `factor` times as large."""
    lines = tuple(
        Line(line.text, line.y * factor, line.size * factor, line.width * factor) for line in spec.lines
    )
    return replace(
        spec,
        axes=(spec.axes[0] * factor, spec.axes[1] * factor),
        ring=spec.ring * factor,
        rim_size=spec.rim_size * factor,
        rim_gap=spec.rim_gap * factor,
        code_size=spec.code_size * factor,
        inner_ring=spec.inner_ring * factor,
        lines=lines,
    )
