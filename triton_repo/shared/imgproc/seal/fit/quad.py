"""Rectangular seals photographed at a slant: their border is a quadrilateral, not a rectangle.

A phone photo's perspective turns a rectangular seal into a quadrilateral whose sides no
rotated rectangle follows, so the border check on the minimum-area rectangle fails. The
quadrilateral is the blob's convex hull simplified to four corners; its border is sampled on
offset copies moved inwards along each side's normal (a true inset, unlike scaling about the
centre), and the seal is reported as the minimum-area rectangle around the quadrilateral.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from imgproc.arrays import Floats, Mask, as_floats

CORNERS = 4


@dataclass(frozen=True)
class QuadParams:
    """Fitting and sampling a quadrilateral border."""

    corner_tolerance: float = 0.03  # of the hull's perimeter: how far a side may bend
    samples: int = 360  # outline points, spread along the sides by length


DEFAULT_QUAD = QuadParams()


def hull_quad(points: Floats, params: QuadParams = DEFAULT_QUAD) -> Floats | None:
    """The convex hull of (x, y) points as a quadrilateral (4 x 2 corners), or None when it
    is not near one."""
    hull = cv2.convexHull(points.astype(np.float32))
    corners = cv2.approxPolyDP(hull, params.corner_tolerance * cv2.arcLength(hull, True), True)
    return as_floats(corners).reshape(-1, 2).astype(np.float64) if len(corners) == CORNERS else None


def inset_quad(quad: Floats, inset: float) -> Floats:
    """The convex quadrilateral with every side moved `inset` px inwards along its normal."""
    sides = np.roll(quad, -1, axis=0) - quad
    normals = np.stack([sides[:, 1], -sides[:, 0]], axis=1) / np.linalg.norm(sides, axis=1)[:, None]
    if np.dot(normals[0], quad.mean(axis=0) - quad[0]) < 0:  # make them point inwards
        normals = -normals
    offsets = np.einsum("ij,ij->i", normals, quad) + inset
    previous = np.roll(np.arange(CORNERS), 1)
    systems = np.stack([normals[previous], normals], axis=1)  # corner i: side i-1 meets side i
    return np.linalg.solve(systems, np.stack([offsets[previous], offsets], axis=1)[..., None])[..., 0]


def quad_outlines(quad: Floats, count: int, insets: Floats) -> Floats:
    """(x, y) points along the quadrilateral moved inwards by each inset: shape (insets, count, 2),
    `count` points spread along the sides by their length (at inset 0), clockwise."""
    sides = np.roll(quad, -1, axis=0) - quad
    lengths = np.linalg.norm(sides, axis=1)
    position = np.linspace(0.0, lengths.sum(), count, endpoint=False)
    side = np.minimum(np.searchsorted(np.cumsum(lengths), position, side="right"), CORNERS - 1)
    along = ((position - np.concatenate([[0.0], np.cumsum(lengths)])[side]) / lengths[side])[:, None]
    # Each corner moves linearly with the inset, so two offsets give them all.
    step = inset_quad(quad, 1.0) - quad
    corners = quad[None] + np.asarray(insets, dtype=float)[:, None, None] * step[None]
    nxt = np.roll(corners, -1, axis=1)
    points: Floats = corners[:, side] + (nxt[:, side] - corners[:, side]) * along[None]
    return points


def quad_fill(quad: Floats, ink: Mask, scale: float) -> float:
    """Share of the quadrilateral scaled by `scale` about its centre that is ink."""
    inner = quad.mean(axis=0) + (quad - quad.mean(axis=0)) * scale
    x0, y0 = np.maximum(np.floor(inner.min(axis=0)).astype(int), 0)
    x1, y1 = np.minimum(np.ceil(inner.max(axis=0)).astype(int) + 1, (ink.shape[1], ink.shape[0]))
    if x1 <= x0 or y1 <= y0:
        return 0.0
    inside = np.zeros((y1 - y0, x1 - x0), np.uint8)
    cv2.fillPoly(inside, [np.rint(inner - (x0, y0)).astype(np.int32)], (1,))
    return np.count_nonzero(ink[y0:y1, x0:x1] & (inside > 0)) / max(1, np.count_nonzero(inside))
