"""Seal geometry: outlines sampled, moved inwards and unwrapped. Every stage works with these.

An elliptical outline has centre, semi-axes `(a, b)` with `a` along `angle_deg` (degrees
from the image x axis, clockwise on screen because y points down) and `a >= b`; a
rectangular one the same fields with half sides. Parameter `t` runs clockwise on screen from
the `a` direction. Offset curves (the outline moved `d` pixels inwards along its normal) are
what rim text follows, so they are the basis of the border checks, of reading the detector's
map in the seal's polar frame and of unwrapping: `unwrap_band` samples curves parallel to the
outline (row 0 the outer edge of the band, where the tops of the characters are; columns
clockwise at equal arc length). For a circle this is the polar warp; for an ellipse it keeps
character widths even all the way round, so clockwise rim text with tops outward reads
upright and left to right.
"""

from __future__ import annotations

from functools import lru_cache

import cv2
import numpy as np

from imgproc.arrays import AnyArray, Floats, Ints, Mask, as_floats
from imgproc.imaging import WHITE

from .records import Band, Outline, Shape

TWO_PI = 2.0 * np.pi
# Points of the table from ellipse parameter to perimeter share (`parameter_at`): a seal is at
# most a few thousand pixels round, so interpolation between them is well under a pixel.
ARC_TABLE_SAMPLES = 2048
MIN_BAND_PX = 2.0  # a band is unwrapped to aspect as if at least this thick (a degenerate one)
# The sampling maps of this many bands are kept (`_band_maps`): a seal's arc is unwrapped from
# its ink image and its colour crop, and turned, on the same points; its polar frame from the
# detector's map and the ink mask.
BAND_MAPS_KEPT = 8


def turn_matrix(size: tuple[int, int], degrees: float) -> tuple[Floats, tuple[int, int]]:
    """Affine matrix turning an image of `size` (w, h) clockwise on screen by `degrees` onto a
    canvas that holds all of it, and that canvas's size."""
    width, height = size
    matrix = as_floats(cv2.getRotationMatrix2D((width / 2.0, height / 2.0), -degrees, 1.0))
    cos, sin = abs(matrix[0, 0]), abs(matrix[0, 1])
    canvas = (int(np.ceil(width * cos + height * sin)), int(np.ceil(width * sin + height * cos)))
    matrix[:, 2] += [(canvas[0] - width) / 2.0, (canvas[1] - height) / 2.0]
    return matrix, canvas


def rect_extent(axes: tuple[float, float], angle_deg: float) -> tuple[float, float]:
    """Half width and half height of the box around a rectangle of half sides `axes` turned by
    `angle_deg`."""
    theta = np.deg2rad(angle_deg)
    cos, sin = abs(np.cos(theta)), abs(np.sin(theta))
    a, b = axes
    return float(a * cos + b * sin), float(a * sin + b * cos)


def ellipse_extent(axes: tuple[float, float], angle_deg: float) -> tuple[float, float]:
    """Half width and half height of the box around an ellipse of semi-axes `axes` turned by
    `angle_deg`."""
    theta = np.deg2rad(angle_deg)
    cos, sin = abs(np.cos(theta)), abs(np.sin(theta))
    a, b = axes
    return float(np.hypot(a * cos, b * sin)), float(np.hypot(a * sin, b * cos))


def rotation(angle_deg: float) -> Floats:
    """2x2 matrix turning seal-frame vectors into image-frame vectors."""
    theta = np.deg2rad(angle_deg)
    cos, sin = np.cos(theta), np.sin(theta)
    return np.array([[cos, -sin], [sin, cos]])


def ellipse_offset_points(
    center: tuple[float, float], axes: tuple[float, float], angle_deg: float, t: Floats, inset: Floats
) -> Floats:
    """Image (x, y) of ellipse parameters `t` moved `inset` px inwards; shape t.shape + (2,)."""
    a, b = axes
    cos, sin = np.cos(t), np.sin(t)
    normal = np.stack([b * cos, a * sin], axis=-1)
    normal /= np.maximum(np.linalg.norm(normal, axis=-1, keepdims=True), 1e-9)
    local = np.stack([a * cos, b * sin], axis=-1) - inset[..., None] * normal
    points: Floats = local @ rotation(angle_deg).T + np.asarray(center)
    return points


def outline_offset_points(outline: Outline, t: Floats, inset: Floats) -> Floats:
    """`ellipse_offset_points` of an elliptic outline."""
    return ellipse_offset_points(outline.center, outline.axes, outline.angle_deg, t, inset)


def rect_outline_points(
    center: tuple[float, float],
    axes: tuple[float, float],
    angle_deg: float,
    count: int,
    inset: float | Floats,
) -> Floats:
    """`count` image points evenly spread clockwise from the top-left corner along a rectangle
    outline moved `inset` px inwards; shape (count, 2), or (len(inset), count, 2) for an array."""
    depth = np.asarray(inset, dtype=float)
    w, h = np.maximum(axes[0] - depth, 0.0)[..., None], np.maximum(axes[1] - depth, 0.0)[..., None]
    s = np.linspace(0.0, 1.0, count, endpoint=False) * (4.0 * (w + h))  # arc length from the corner
    top, right, bottom = s < 2.0 * w, s < 2.0 * w + 2.0 * h, s < 4.0 * w + 2.0 * h
    x = np.where(top, s - w, np.where(right, w, np.where(bottom, 3.0 * w + 2.0 * h - s, -w)))
    y = np.where(top, -h, np.where(right, s - 2.0 * w - h, np.where(bottom, h, 4.0 * w + 3.0 * h - s)))
    local = np.stack([x, y], axis=-1)
    points: Floats = local @ rotation(angle_deg).T + np.asarray(center)
    return points


def outline_points(outline: Outline, count: int, inset: float) -> Floats:
    """`count` image points along the outline moved `inset` px inwards."""
    if outline.is_elliptic:
        t = np.linspace(0.0, TWO_PI, count, endpoint=False)
        return outline_offset_points(outline, t, np.full(count, inset))
    return rect_outline_points(outline.center, outline.axes, outline.angle_deg, count, inset)


def inside_image(points: Floats, width: int, height: int) -> Mask:
    """Boolean mask of the (x, y) points that fall inside a width x height image."""
    x, y = points[..., 0], points[..., 1]
    return (x >= 0) & (y >= 0) & (x <= width - 1) & (y <= height - 1)


def visible(points: Floats, width: int, height: int, paper: Mask | None = None) -> Mask:
    """Boolean mask of the (x, y) points inside a width x height image and, where the image
    shows a sheet (`paper`: its boolean mask), on the sheet: a seal is seen only there."""
    inside = inside_image(points, width, height)
    return inside if paper is None else inside & sample_mask(paper, points)


def sample_mask(mask: Mask, points: Floats | Ints) -> Mask:
    """Nearest-pixel values of a 2-D mask at (x, y) points; points must lie inside."""
    cols = np.clip(np.rint(points[..., 0]).astype(int), 0, mask.shape[1] - 1)
    rows = np.clip(np.rint(points[..., 1]).astype(int), 0, mask.shape[0] - 1)
    found: Mask = mask[rows, cols]
    return found


def _arc_points(outline: Outline, inset: float) -> tuple[Floats, Floats]:
    """The table's ellipse parameters and their points on the outline moved `inset` inwards."""
    t = np.linspace(0.0, TWO_PI, ARC_TABLE_SAMPLES + 1)
    return t, outline_offset_points(outline, t, np.full(t.shape, inset))


def _arc_table(outline: Outline, inset: float) -> tuple[Floats, Floats]:
    """Ellipse parameters and the share of the perimeter (at `inset`) reached at each."""
    t, points = _arc_points(outline, inset)
    length = np.concatenate([[0.0], np.cumsum(np.linalg.norm(np.diff(points, axis=0), axis=1))])
    return t, length / length[-1]


def arc_length(outline: Outline, inset: float) -> float:
    """Perimeter of the outline moved `inset` pixels inwards."""
    _, points = _arc_points(outline, inset)
    return float(np.linalg.norm(np.diff(points, axis=0), axis=1).sum())


def share_at(outline: Outline, inset: float, t: Floats) -> Floats:
    """Perimeter shares (at `inset`) of ellipse parameters `t`: the inverse of `parameter_at`."""
    table_t, share = _arc_table(outline, inset)
    return np.interp(np.mod(t, TWO_PI), table_t, share)


def parameter_at(outline: Outline, inset: float, fractions: Floats) -> Floats:
    """Ellipse parameters t at perimeter shares (0 = the first axis, growing clockwise)."""
    t, share = _arc_table(outline, inset)
    return np.interp(np.mod(fractions, 1.0), share, t)


def strip_width(outline: Outline, band: Band, height: int, span: float = 1.0) -> int:
    """Width that keeps the aspect ratio of `span` of the band unwrapped at `height` rows."""
    return max(1, round(arc_length(outline, band.middle) * span * height / max(band.height, MIN_BAND_PX)))


def unwrap_band(
    image: AnyArray,
    outline: Outline,
    band: Band,
    height: int,
    width: int | None = None,
    start: float = 0.0,
    span: float = 1.0,
    outside: float = WHITE,
) -> AnyArray:
    """Strip of `span` of the band from perimeter share `start`, `height` x `width` (width kept
    to aspect); what lies off the image reads as `outside` (paper, or no text in a map)."""
    width = width or strip_width(outline, band, height, span)
    native_h = max(int(np.ceil(band.height)), height)
    native_w = max(round(width * native_h / height), 1)
    map_x, map_y = _band_maps(outline, band, native_h, native_w, start, span)
    fill = (outside,) * (image.shape[2] if image.ndim == 3 else 1)
    strip = cv2.remap(image, map_x, map_y, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=fill)
    return cv2.resize(strip, (width, height), interpolation=cv2.INTER_AREA)


@lru_cache(maxsize=BAND_MAPS_KEPT)
def _band_maps(
    outline: Outline, band: Band, native_h: int, native_w: int, start: float, span: float
) -> tuple[Floats, Floats]:
    """The image x and y (float32, read-only) `unwrap_band` samples the band at, `native_h` x
    `native_w`: the same for every image of one seal, so worked out once (`BAND_MAPS_KEPT`)."""
    fractions = start + span * (np.arange(native_w) + 0.5) / native_w
    t = parameter_at(outline, band.middle, fractions)
    insets = band.outer + band.height * (np.arange(native_h) + 0.5) / native_h
    points = outline_offset_points(outline, t[None, :], insets[:, None] + 0 * t)
    maps = points[..., 0].astype(np.float32), points[..., 1].astype(np.float32)
    for part in maps:
        part.flags.writeable = False
    return maps


def render(fit: Outline, size: tuple[int, ...], origin: tuple[int, int] = (0, 0)) -> Mask:
    """Boolean mask of the filled outline on a canvas of `size` (rows, columns) whose top-left
    pixel is `origin` (x, y) of the fit's frame."""
    canvas = np.zeros(size, np.uint8)
    center = (fit.center[0] - origin[0], fit.center[1] - origin[1])
    full = (fit.axes[0] * 2.0, fit.axes[1] * 2.0)
    if fit.shape is Shape.RECT:
        corners = as_floats(cv2.boxPoints((center, full, fit.angle_deg)))
        cv2.fillPoly(canvas, [np.rint(corners).astype(np.int32)], (1,))
    else:
        cv2.ellipse(canvas, (center, full, fit.angle_deg), (1,), -1)
    return canvas > 0
