"""Drawing one synthetic seal as an ink-density image, in the seal's own upright frame.

A seal is a thick border (ellipse or rectangle; a thin second ring inside it for the
监制章), rim text along the border (character tops outward, reading clockwise, centred on the
top), optionally a 13-digit code or a text such as 国家税务总局监制 along the bottom arc
(tops inward, reading left to right), a five-pointed star, and straight lines: by default a
tax-ID line and a purpose line such as 合同专用章, or a design's own `lines` (the invoice
seal's tax ID through the centre, a spaced-out province). Glyphs are rendered with Pillow
from the Noto CJK and WenQuanYi fonts and placed with one affine warp each; positions along
an oval follow arc length so the spacing is even. The geometry is written independently of
`imgproc.seal` on purpose: the generator is the ground truth the seal functions are measured
against.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

import cv2
import numpy as np
from imgproc.arrays import Floats, Pixels
from PIL import Image, ImageDraw, ImageFont

FontRef = tuple[str, int]
FontLayout = tuple[FontRef, float, float, float]  # font, size, advance (in sizes), horizontal squeeze
CJK_FONTS: tuple[FontRef, ...] = (
    ("/usr/share/fonts/opentype/noto/NotoSerifCJK-Bold.ttc", 2),
    ("/usr/share/fonts/opentype/noto/NotoSerifCJK-Regular.ttc", 2),
    ("/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc", 2),
    ("/usr/share/fonts/opentype/noto/NotoSansCJK-Bold.ttc", 2),
    ("/usr/share/fonts/truetype/wqy/wqy-zenhei.ttc", 0),
)
DIGIT_FONTS: tuple[FontRef, ...] = (
    ("/usr/share/fonts/truetype/dejavu/DejaVuSansCondensed.ttf", 0),
    ("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf", 0),
    ("/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc", 2),
)
INK = 255
TILE_MARGIN = 1.4  # glyph tiles are this many font sizes wide, so nothing is clipped
SAMPLES_PER_CURVE = 4096
STAR_INNER_RATIO = 0.382  # inner/outer radius of a regular five-pointed star
STAR_POINTS = 5
CODE_ADVANCE = 0.8  # digit pitch along the arc, in font sizes
CODE_SQUEEZE = 0.85  # code digits are set narrow, as engravers do to fit 13 of them
BOTTOM_TEXT_ADVANCE = 1.25  # CJK pitch along the bottom arc, in squeezed font sizes (loosely set)
INNER_RING_GAP = 0.8  # space between the two rings of a double-ringed seal, in outer-ring widths
TOP, BOTTOM = 0.75, 0.25  # the top and the bottom of a seal, as perimeter fractions from +x clockwise


def available_fonts(fonts: tuple[FontRef, ...]) -> tuple[FontRef, ...]:
    """The fonts of a list that are installed."""
    return tuple(font for font in fonts if Path(font[0]).is_file())


class Line(NamedTuple):
    """A straight line of text inside a seal: its centre's y offset, font size and widest extent."""

    text: str
    y: float
    size: float
    width: float


@dataclass(frozen=True)
class SealSpec:
    """Everything needed to draw one seal; lengths in pixels."""

    shape: str  # "round", "oval" or "rect"
    axes: tuple[float, float]  # semi-axes (rect: half sides), first along x
    rim_text: str
    inner_texts: tuple[str, ...]
    code: str | None
    star: bool
    font: FontRef
    digit_font: FontRef
    ring: float  # border thickness
    rim_size: float  # rim font size
    rim_gap: float  # space between the border and the rim text
    squeeze: float  # horizontal scale of rim glyphs (real seals use narrow type)
    span_fraction: float  # share of the perimeter the rim text covers
    code_size: float
    inner_ring: float = 0.0  # thickness of a thin second ring inside the border; 0 for none
    bottom_text: str = ""  # text along the bottom arc, tops inward, read left to right
    lines: tuple[Line, ...] = ()  # drawn instead of the default layout of `inner_texts`

    @property
    def border(self) -> float:
        """Width of the ring or rings, from the outer edge to where the text may start."""
        return self.ring + (self.inner_ring + INNER_RING_GAP * self.ring if self.inner_ring else 0.0)


@functools.lru_cache(maxsize=256)
def truetype(font: FontRef, size: int) -> ImageFont.FreeTypeFont:
    """A loaded font (CJK collections are slow to open, so they are cached)."""
    return ImageFont.truetype(font[0], size, index=font[1])


@functools.lru_cache(maxsize=4096)
def glyph(text: str, font: FontRef, size: int) -> Pixels:
    """A uint8 tile with `text` drawn centred in white on black."""
    face = truetype(font, size)
    width = int(face.getlength(text) + size * (TILE_MARGIN - 1.0)) + 2
    tile = Image.new("L", (max(width, int(size * TILE_MARGIN)), int(size * TILE_MARGIN)), 0)
    ImageDraw.Draw(tile).text((tile.width / 2, tile.height / 2), text, fill=INK, font=face, anchor="mm")
    return np.asarray(tile)


def stamp(canvas: Pixels, tile: Pixels, center: Floats, up: Floats, scale: tuple[float, float]) -> None:
    """Draw `tile` onto `canvas` centred at `center`, its top facing the unit vector `up`."""
    rot = np.array([[-up[1], -up[0]], [up[0], -up[1]]]) @ np.diag(scale)
    tile_center = np.array([tile.shape[1] / 2.0, tile.shape[0] / 2.0])
    matrix = np.hstack([rot, (center - rot @ tile_center)[:, None]])
    size = (canvas.shape[1], canvas.shape[0])
    warped = cv2.warpAffine(tile, matrix, size, flags=cv2.INTER_LINEAR, borderValue=(0,))
    np.maximum(canvas, warped, out=canvas)


def _curve(axes: tuple[float, float], inset: float) -> tuple[Floats, Floats, Floats]:
    """Points, outward normals and cumulative arc length of an ellipse moved `inset` inwards."""
    a, b = axes
    t = np.linspace(0.0, 2.0 * np.pi, SAMPLES_PER_CURVE, endpoint=False)
    normal = np.stack([b * np.cos(t), a * np.sin(t)], axis=1)
    normal /= np.linalg.norm(normal, axis=1, keepdims=True)
    points = np.stack([a * np.cos(t), b * np.sin(t)], axis=1) - inset * normal
    steps = np.linalg.norm(np.diff(np.vstack([points, points[:1]]), axis=0), axis=1)
    return points, normal, np.concatenate([[0.0], np.cumsum(steps)[:-1]])


def along_ellipse(axes: tuple[float, float], inset: float, fractions: Floats) -> tuple[Floats, Floats]:
    """Points and outward normals at perimeter fractions (0 = +x, growing clockwise on screen)."""
    points, normal, length = _curve(axes, inset)
    total = length[-1] + np.linalg.norm(points[0] - points[-1])
    index = np.searchsorted(length, (fractions % 1.0) * total).clip(0, len(length) - 1)
    return points[index], normal[index]


def perimeter(axes: tuple[float, float], inset: float) -> float:
    """Length of the ellipse moved `inset` inwards."""
    points, _, length = _curve(axes, inset)
    return float(length[-1] + np.linalg.norm(points[0] - points[-1]))


def rim_places(spec: SealSpec) -> tuple[Floats, Floats]:
    """Each rim character's centre (relative to the seal's centre, upright) and its outward
    normal (the way its top faces): the rim is centred on the top, evenly spaced clockwise."""
    inset = spec.border + spec.rim_gap + spec.rim_size / 2.0
    count = len(spec.rim_text)
    step = spec.span_fraction / max(count - 1, 1) if count > 1 else 0.0
    fractions = TOP + (np.arange(count) - (count - 1) / 2.0) * step
    return along_ellipse(spec.axes, inset, fractions)


def _draw_rim(canvas: Pixels, origin: Floats, spec: SealSpec) -> None:
    points, normals = rim_places(spec)
    for char, point, normal in zip(spec.rim_text, points, normals, strict=True):
        tile = glyph(char, spec.font, round(spec.rim_size))
        stamp(canvas, tile, origin + point, normal, (spec.squeeze, 1.0))


def _bottom_arc(
    canvas: Pixels, origin: Floats, spec: SealSpec, text: str, inset: float, layout: FontLayout
) -> None:
    """`text` along the bottom arc, tops inward, read left to right, centred on the bottom."""
    font, size, advance, squeeze = layout
    step = size * advance / perimeter(spec.axes, inset)
    count = len(text)
    fractions = BOTTOM + ((count - 1) / 2.0 - np.arange(count)) * step
    points, normals = along_ellipse(spec.axes, inset, fractions)
    for char, point, normal in zip(text, points, normals, strict=True):
        stamp(canvas, glyph(char, font, round(size)), origin + point, -normal, (squeeze, 1.0))


def _draw_bottom(canvas: Pixels, origin: Floats, spec: SealSpec) -> None:
    """The seal code (digits) or a bottom text (CJK) along the bottom arc."""
    if spec.code:
        inset = spec.border + spec.rim_gap * 0.5 + spec.code_size / 2.0
        code_font = (spec.digit_font, spec.code_size, CODE_ADVANCE, CODE_SQUEEZE)
        _bottom_arc(canvas, origin, spec, spec.code, inset, code_font)
    if spec.bottom_text:
        inset = spec.border + spec.rim_gap + spec.rim_size / 2.0
        advance = BOTTOM_TEXT_ADVANCE * spec.squeeze
        text_font = (spec.font, spec.rim_size, advance, spec.squeeze)
        _bottom_arc(canvas, origin, spec, spec.bottom_text, inset, text_font)


def star_points(center: Floats, radius: float) -> Floats:
    """The corners of an upright five-pointed star, outer and inner in turn."""
    angles = -np.pi / 2.0 + np.arange(2 * STAR_POINTS) * np.pi / STAR_POINTS
    radii = np.where(np.arange(2 * STAR_POINTS) % 2 == 0, radius, radius * STAR_INNER_RATIO)
    corners: Floats = center + np.stack([radii * np.cos(angles), radii * np.sin(angles)], axis=1)
    return corners


def _star(canvas: Pixels, center: Floats, radius: float) -> None:
    points = star_points(center, radius)
    cv2.fillPoly(canvas, [np.rint(points * 16).astype(np.int32)], (INK,), cv2.LINE_AA, shift=4)


def _line(canvas: Pixels, center: Floats, text: str, font: FontRef, size: float, width: float) -> None:
    """A horizontal line of text centred at `center`, squeezed to at most `width`."""
    tile = glyph(text, font, max(4, round(size)))
    squeeze = min(1.0, width / max(tile.shape[1] - size * (TILE_MARGIN - 1.0), 1.0))
    stamp(canvas, tile, center, np.array([0.0, -1.0]), (squeeze, 1.0))


def _inner_layout(spec: SealSpec) -> list[Line]:
    """The default horizontal lines of `inner_texts`, kept inside the rim band."""
    b = spec.axes[1]
    texts = list(spec.inner_texts)
    if not texts:
        return []
    if spec.shape == "round":
        offsets = [0.4 * b] if len(texts) == 1 else [0.1 * b, 0.4 * b]
        sizes = [0.17 * b] if len(texts) == 1 else [0.12 * b, 0.16 * b]
    else:
        offsets = [0.3 * b] if len(texts) == 1 else [0.0, 0.38 * b]
        sizes = [0.22 * b] if len(texts) == 1 else [0.16 * b, 0.2 * b]
    band = spec.border + spec.rim_gap + spec.rim_size * 1.1
    lines = []
    for text, offset, size in zip(texts, offsets[-len(texts) :], sizes[-len(texts) :], strict=True):
        edge = min(1.0, (abs(offset) + size / 2.0) / (b - band))
        lines.append(Line(text, offset, size, 1.9 * np.sqrt(1.0 - edge**2) * (spec.axes[0] - band)))
    return lines


def _draw_inner(canvas: Pixels, origin: Floats, spec: SealSpec) -> None:
    """Horizontal lines, and the star."""
    for line in spec.lines or _inner_layout(spec):
        font = spec.digit_font if line.text.isascii() else spec.font
        _line(canvas, origin + np.array([0.0, line.y]), line.text, font, line.size, line.width)
    if spec.star:
        two_lines = len(spec.inner_texts) > 1
        radius = (0.22 if two_lines else 0.3) * spec.axes[1]
        _star(canvas, origin + np.array([0.0, (-0.25 if two_lines else -0.08) * spec.axes[1]]), radius)


def _draw_rect(canvas: Pixels, origin: Floats, spec: SealSpec) -> None:
    a, b = spec.axes
    thickness = max(1, round(spec.ring))
    corner0 = np.rint(origin - [a - spec.ring / 2, b - spec.ring / 2]).astype(int)
    corner1 = np.rint(origin + [a - spec.ring / 2, b - spec.ring / 2]).astype(int)
    cv2.rectangle(canvas, tuple(int(v) for v in corner0), tuple(int(v) for v in corner1), INK, thickness)
    lines = (spec.rim_text, *spec.inner_texts)
    inner_h = 2.0 * (b - spec.ring - spec.rim_gap)
    size = min(spec.rim_size, inner_h / (len(lines) * 1.15))
    for i, text in enumerate(lines):
        y = (i - (len(lines) - 1) / 2.0) * size * 1.15
        line_size = size if i == 0 else size * 0.8
        _line(canvas, origin + np.array([0.0, y]), text, spec.font, line_size, 2.0 * (a - spec.ring * 2.5))


def render_seal(spec: SealSpec) -> Floats:
    """Ink density in [0, 1] of an upright seal, on a canvas centred on the seal."""
    a, b = spec.axes
    pad = int(np.ceil(spec.ring + 4))
    canvas = np.zeros((int(2 * (b + pad)), int(2 * (a + pad))), np.uint8)
    origin = np.array([canvas.shape[1] / 2.0, canvas.shape[0] / 2.0])
    if spec.shape == "rect":
        _draw_rect(canvas, origin, spec)
        return canvas.astype(np.float32) / INK
    full = (round(2 * (a - spec.ring / 2)), round(2 * (b - spec.ring / 2)))
    cv2.ellipse(canvas, (tuple(origin), full, 0.0), (INK,), max(1, round(spec.ring)), cv2.LINE_AA)
    if spec.inner_ring:
        inset = 2.0 * (spec.border - spec.inner_ring / 2.0)
        inner = (round(2 * a - inset), round(2 * b - inset))
        cv2.ellipse(canvas, (tuple(origin), inner, 0.0), (INK,), max(1, round(spec.inner_ring)), cv2.LINE_AA)
    _draw_rim(canvas, origin, spec)
    _draw_bottom(canvas, origin, spec)
    _draw_inner(canvas, origin, spec)
    return canvas.astype(np.float32) / INK
