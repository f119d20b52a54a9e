"""Seal geometry primitives: the `SealRegion` record and sampling of its outline.

An elliptical seal is described by its centre, its semi-axes `(a, b)` with `a` along
`angle_deg` (degrees from the image x axis, clockwise on screen because y points down) and
`a >= b`. A rectangular seal uses the same fields with half-sides instead of semi-axes.
Parameter `t` runs clockwise on screen from the `a` direction. Offset curves (the outline
moved `d` pixels inwards along its normal) are what the rim text follows, so they are the
basis of both the border checks here and the unwrapping in `unwrap`.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

import cv2
import numpy as np

TWO_PI = 2.0 * np.pi


class Shape(str, Enum):
    """A seal's outline, and what it says about the seal's layout. Its value is the name the
    API reports."""

    ROUND = "round"
    OVAL = "oval"
    RECT = "rect"

    @property
    def is_elliptic(self) -> bool:
        """Round and oval seals carry their rim text curved along the outline."""
        return self is not Shape.RECT

    @property
    def has_axes(self) -> bool:
        """An oval's axes say where its top is, up to a half turn: its text is centred on the
        short axis. A circle's say nothing."""
        return self is Shape.OVAL

    @property
    def has_star(self) -> bool:
        """Round seals carry a star above their inner lines."""
        return self is Shape.ROUND


@dataclass(frozen=True)
class SealRegion:
    """One seal found on the page (coordinates in the original image's pixels)."""

    shape: Shape
    center: tuple[float, float]
    axes: tuple[float, float]
    angle_deg: float
    box: tuple[int, int, int, int]  # x0, y0, x1, y1 clipped to the image, exclusive ends
    cut: bool  # the outline leaves the image
    border_coverage: float  # fraction of the outline that carries ink

    @property
    def is_elliptic(self) -> bool:
        """True for round and oval seals, whose rim text is curved."""
        return self.shape.is_elliptic


def turn_matrix(size: tuple[int, int], degrees: float) -> tuple[np.ndarray, tuple[int, int]]:
    """Affine matrix turning an image of `size` (w, h) clockwise on screen by `degrees` onto a
    canvas that holds all of it, and that canvas's size."""
    width, height = size
    matrix = cv2.getRotationMatrix2D((width / 2.0, height / 2.0), -degrees, 1.0)
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


def rotation(angle_deg: float) -> np.ndarray:
    """2x2 matrix turning seal-frame vectors into image-frame vectors."""
    theta = np.deg2rad(angle_deg)
    cos, sin = np.cos(theta), np.sin(theta)
    return np.array([[cos, -sin], [sin, cos]])


def ellipse_offset_points(
    center: tuple[float, float], axes: tuple[float, float], angle_deg: float, t: np.ndarray, inset: np.ndarray
) -> np.ndarray:
    """Image (x, y) of ellipse parameters `t` moved `inset` px inwards; shape t.shape + (2,)."""
    a, b = axes
    cos, sin = np.cos(t), np.sin(t)
    normal = np.stack([b * cos, a * sin], axis=-1)
    normal /= np.maximum(np.linalg.norm(normal, axis=-1, keepdims=True), 1e-9)
    local = np.stack([a * cos, b * sin], axis=-1) - inset[..., None] * normal
    return local @ rotation(angle_deg).T + np.asarray(center)


def rect_outline_points(
    center: tuple[float, float],
    axes: tuple[float, float],
    angle_deg: float,
    count: int,
    inset: float | np.ndarray,
) -> np.ndarray:
    """`count` image points evenly spread clockwise from the top-left corner along a rectangle
    outline moved `inset` px inwards; shape (count, 2), or (len(inset), count, 2) for an array."""
    depth = np.asarray(inset, dtype=float)
    w, h = np.maximum(axes[0] - depth, 0.0)[..., None], np.maximum(axes[1] - depth, 0.0)[..., None]
    s = np.linspace(0.0, 1.0, count, endpoint=False) * (4.0 * (w + h))  # arc length from the corner
    top, right, bottom = s < 2.0 * w, s < 2.0 * w + 2.0 * h, s < 4.0 * w + 2.0 * h
    x = np.where(top, s - w, np.where(right, w, np.where(bottom, 3.0 * w + 2.0 * h - s, -w)))
    y = np.where(top, -h, np.where(right, s - 2.0 * w - h, np.where(bottom, h, 4.0 * w + 3.0 * h - s)))
    local = np.stack([x, y], axis=-1)
    return local @ rotation(angle_deg).T + np.asarray(center)


def outline_points(region: SealRegion, count: int, inset: float) -> np.ndarray:
    """`count` image points along the seal outline moved `inset` px inwards."""
    if region.is_elliptic:
        t = np.linspace(0.0, TWO_PI, count, endpoint=False)
        return ellipse_offset_points(region.center, region.axes, region.angle_deg, t, np.full(count, inset))
    return rect_outline_points(region.center, region.axes, region.angle_deg, count, inset)


def inside_image(points: np.ndarray, width: int, height: int) -> np.ndarray:
    """Boolean mask of the (x, y) points that fall inside a width x height image."""
    x, y = points[..., 0], points[..., 1]
    return (x >= 0) & (y >= 0) & (x <= width - 1) & (y <= height - 1)


def visible(points: np.ndarray, width: int, height: int, paper: np.ndarray | None = None) -> np.ndarray:
    """Boolean mask of the (x, y) points inside a width x height image and, where the image
    shows a sheet (`paper`: its boolean mask), on the sheet: a seal is seen only there."""
    inside = inside_image(points, width, height)
    return inside if paper is None else inside & sample_mask(paper, points)


def sample_mask(mask: np.ndarray, points: np.ndarray) -> np.ndarray:
    """Nearest-pixel values of a 2-D mask at (x, y) points; points must lie inside."""
    cols = np.clip(np.rint(points[..., 0]).astype(int), 0, mask.shape[1] - 1)
    rows = np.clip(np.rint(points[..., 1]).astype(int), 0, mask.shape[0] - 1)
    return mask[rows, cols]
