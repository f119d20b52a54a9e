"""Text-box geometry: reading order and crops, as PP-OCR's `sorted_boxes`, `get_rotate_crop_image`.

Both work in the working image's pixels (see `detection.prepare_image`): the 10-pixel
same-line tolerance of the reading order is measured there, and the crops are cut from it.
"""

from __future__ import annotations

import cv2
import numpy as np

from imgproc.arrays import Floats, Ints, Pixels, as_pixels

SAME_LINE_TOLERANCE_PX = 10
UPRIGHT_ASPECT = 1.5  # a crop at least this much taller than wide is vertical text: turn it


def sort_reading_order(boxes: Floats) -> Ints:
    """int64[K] order of float32[K, 4, 2] quads: top to bottom, left to right within a line.

    Sorts by the top-left corner's (y, x), then lets a box move ahead of its predecessors
    while their tops are within SAME_LINE_TOLERANCE_PX and it lies further left.
    """
    top_left = np.asarray(boxes, np.float32).reshape(-1, 4, 2)[:, 0, :]
    order = np.lexsort((top_left[:, 0], top_left[:, 1])).tolist()
    for i in range(len(order) - 1):
        for j in range(i, -1, -1):
            here, after = top_left[order[j]], top_left[order[j + 1]]
            if abs(after[1] - here[1]) < SAME_LINE_TOLERANCE_PX and after[0] < here[0]:
                order[j], order[j + 1] = order[j + 1], order[j]
            else:
                break
    return np.array(order, dtype=np.int64)


def _quad_size(quad: Floats) -> tuple[int, int]:
    """(width, height) of the crop: the longer of each pair of opposite sides, truncated."""
    top, bottom = np.linalg.norm(quad[0] - quad[1]), np.linalg.norm(quad[2] - quad[3])
    left, right = np.linalg.norm(quad[0] - quad[3]), np.linalg.norm(quad[1] - quad[2])
    return int(max(top, bottom)), int(max(left, right))


def crop_quad(image: Pixels, quad: Floats) -> Pixels:
    """Warp the quad (tl, tr, br, bl) of `image` to an upright rectangle; raises ValueError if degenerate.

    Bicubic with replicated borders, like PP-OCR. A crop at least 1.5 times taller than wide
    is rotated 90 degrees counter-clockwise so the recogniser sees a horizontal line.
    """
    points = np.asarray(quad, np.float32).reshape(4, 2)
    width, height = _quad_size(points)
    if width < 1 or height < 1:
        raise ValueError(f"degenerate text quad {points.tolist()}")
    target = np.array([[0, 0], [width, 0], [width, height], [0, height]], np.float32)
    matrix = cv2.getPerspectiveTransform(points, target)
    warped = cv2.warpPerspective(
        image, matrix, (width, height), borderMode=cv2.BORDER_REPLICATE, flags=cv2.INTER_CUBIC
    )
    crop = as_pixels(warped)
    if crop.shape[0] / crop.shape[1] >= UPRIGHT_ASPECT:
        crop = np.ascontiguousarray(np.rot90(crop))
    return crop
