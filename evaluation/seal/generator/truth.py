"""Ground truth of a stamped seal in the final image, after the page has been captured.

A capture maps page pixels to image pixels with a 3 x 3 matrix (the identity for a scan, a
scale for a low-resolution scan, a perspective warp for a phone photo). The seal's outline
(its ellipse or rectangle) is clipped to the page, since ink off the page is lost, mapped
with that matrix, and its bounding box clipped to the image is the truth box. The centre,
semi-axes and rotation are those of the mapped centre and axis end points: exact for a
scale, a close approximation under a mild perspective.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np
from imgproc.arrays import Floats, as_floats

from .designs import truth_texts
from .placement import Stamp
from .render import rim_places

OUTLINE_POINTS = 256  # ellipse outline samples: the box is then within 0.02 % of the axis
AFFINE_ROW = (0.0, 0.0, 1.0)  # the last row of a matrix without perspective


@dataclass(frozen=True)
class SealTruth:
    """Ground truth of one stamped seal, in page pixels."""

    box: tuple[int, int, int, int]  # x0, y0, x1, y1 clipped to the page, exclusive ends
    shape: str
    rim_text: str  # rim text; for rectangular seals the main line
    inner_texts: tuple[str, ...]  # horizontal lines inside, top to bottom
    codes: tuple[str, ...]  # tax IDs and the bottom-arc seal code
    center: tuple[float, float]
    axes: tuple[float, float]
    angle_deg: float  # rotation of the seal's upright x axis, clockwise on screen
    cut: bool  # part of the seal is off the page
    faint: bool
    rim_whole: bool = True  # every rim character can be read on the image (`rim_on_image`)


def _frame(stamp: Stamp) -> tuple[Floats, Floats, Floats]:
    """The seal's centre and its rotated semi-axis vectors (x, y), in page pixels."""
    theta = np.deg2rad(stamp.angle_deg)
    x_axis = np.array([np.cos(theta), np.sin(theta)]) * stamp.spec.axes[0]
    y_axis = np.array([-np.sin(theta), np.cos(theta)]) * stamp.spec.axes[1]
    return np.array(stamp.centre), x_axis, y_axis


def outline(stamp: Stamp) -> Floats:
    """The seal's outer edge as a convex polygon in page pixels (N x 2)."""
    centre, x_axis, y_axis = _frame(stamp)
    if stamp.spec.shape == "rect":
        signs = np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]], np.float64)
    else:
        t = np.linspace(0.0, 2.0 * np.pi, OUTLINE_POINTS, endpoint=False)
        signs = np.stack([np.cos(t), np.sin(t)], axis=1)
    polygon: Floats = centre + signs[:, :1] * x_axis + signs[:, 1:] * y_axis
    return polygon


def _mapped(points: Floats, matrix: Floats) -> Floats:
    mapped = cv2.perspectiveTransform(points.reshape(-1, 1, 2).astype(np.float64), matrix)
    return as_floats(mapped).reshape(-1, 2)


def _visible(polygon: Floats, page_size: tuple[int, int]) -> Floats | None:
    """The part of a convex polygon on the page, or None if none of it is."""
    width, height = page_size
    page = np.array([[0, 0], [width, 0], [width, height], [0, height]], np.float32)
    area, clipped = cv2.intersectConvexConvex(polygon.astype(np.float32), page)
    return None if clipped is None or area <= 0 else clipped.reshape(-1, 2).astype(np.float64)


def _inside(points: Floats, size: tuple[int, int]) -> bool:
    low, high = points.min(axis=0), points.max(axis=0)
    return bool(np.all(low >= 0) and np.all(high <= np.array(size)))


def _box(low: Floats, high: Floats, size: tuple[int, int]) -> tuple[int, int, int, int]:
    x0, y0 = (max(0, int(v)) for v in np.floor(low))
    x1, y1 = (int(v) for v in np.ceil(high))
    return x0, y0, min(size[0], x1), min(size[1], y1)


def _affine_extent(stamp: Stamp, matrix: Floats) -> Floats:
    """Half width and height of the seal mapped by an affine matrix: exact, from its axes."""
    _, x_axis, y_axis = _frame(stamp)
    x_mapped, y_mapped = matrix[:2, :2] @ x_axis, matrix[:2, :2] @ y_axis
    if stamp.spec.shape == "rect":
        sides: Floats = np.abs(x_mapped) + np.abs(y_mapped)
        return sides
    return np.hypot(x_mapped, y_mapped)


def _extremes(stamp: Stamp, matrix: Floats, page_size: tuple[int, int]) -> tuple[Floats, Floats, bool] | None:
    """The mapped visible seal's lowest and highest x and y, and whether it runs off the page.

    A whole seal under an affine map (a scan, a resize, a skew) is an exact ellipse or
    parallelogram; otherwise the outline is clipped to the page and mapped point by point.
    """
    polygon = outline(stamp)
    on_page = _inside(polygon, page_size)
    if on_page and np.allclose(matrix[2], AFFINE_ROW):
        centre = _mapped(np.array(stamp.centre)[None], matrix)[0]
        half = _affine_extent(stamp, matrix)
        return centre - half, centre + half, False
    visible = _visible(polygon, page_size)
    if visible is None:
        return None
    mapped = _mapped(visible, matrix)
    return mapped.min(axis=0), mapped.max(axis=0), not on_page


def _rim_centres(stamp: Stamp) -> Floats:
    """Each rim character's centre in page pixels."""
    spec = stamp.spec
    points, _ = rim_places(spec)
    centre, x_axis, y_axis = _frame(stamp)
    centres: Floats = centre + points[:, :1] * x_axis / spec.axes[0] + points[:, 1:] * y_axis / spec.axes[1]
    return centres


def rim_on_image(
    stamp: Stamp, matrix: Floats, page_size: tuple[int, int], image_size: tuple[int, int]
) -> bool:
    """Whether every rim character of a round or oval seal has its centre on the page and in the
    captured image. A seal cut by the edge may lose characters: nobody can read its whole rim
    then. One cut short of its centre counts as there (司 of 分公司 still reads)."""
    if stamp.spec.shape == "rect" or not stamp.spec.rim_text:
        return True
    centres = _rim_centres(stamp)
    return _inside(centres, page_size) and _inside(_mapped(centres, matrix), image_size)


def seal_truth(
    stamp: Stamp, matrix: Floats, page_size: tuple[int, int], image_size: tuple[int, int]
) -> SealTruth | None:
    """The truth of a stamped seal in the captured image, or None if none of it is visible."""
    extremes = _extremes(stamp, matrix, page_size)
    if extremes is None:
        return None
    low, high, off_page = extremes
    box = _box(low, high, image_size)
    if box[2] <= box[0] or box[3] <= box[1]:
        return None
    centre, x_axis, y_axis = _frame(stamp)
    c, ex, ey = _mapped(np.array([centre, centre + x_axis, centre + y_axis]), matrix)
    inner, codes = truth_texts(stamp.spec)
    return SealTruth(
        box=box,
        shape=stamp.spec.shape,
        rim_text=stamp.spec.rim_text,
        inner_texts=inner,
        codes=codes,
        center=(float(c[0]), float(c[1])),
        axes=(float(np.linalg.norm(ex - c)), float(np.linalg.norm(ey - c))),
        angle_deg=float(np.degrees(np.arctan2(ex[1] - c[1], ex[0] - c[0])) % 360.0),
        cut=off_page or not _inside(np.array([low, high]), image_size),
        faint=stamp.faint,
        rim_whole=rim_on_image(stamp, matrix, page_size, image_size),
    )
