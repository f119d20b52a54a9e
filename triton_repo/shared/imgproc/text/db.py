"""DB (Differentiable Binarization) post-processing: the detector's probability map -> text quads.

Reproduces RapidOCR 1.4.4's `DBPostProcess` plus its detector's box filter, step for step:
threshold the map, dilate with a 2x2 kernel, take every contour, fit a minimum-area
rectangle, score it by the mean probability inside ("fast" mode), grow it by
`area * unclip_ratio / perimeter` with a rounded polygon offset (pyclipper, as PP-OCR), fit
a rectangle again, scale to working-image pixels, order the corners clockwise from the
top-left, clip to the image and drop boxes 3 px or thinner. Boxes come back in the working
image's pixels (see `detection.prepare_image`); `detection.boxes_to_upload` maps them on.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np
import pyclipper

from imgproc.arrays import Floats, Ints, Pixels, as_floats, as_ints, as_pixels

BINARY_FOREGROUND = 255
DILATION_KERNEL = np.ones((2, 2), np.uint8)
MIN_SIDE_PX = 3
UNCLIPPED_MARGIN_PX = 2  # a grown box must clear MIN_SIDE_PX by this much
EMPTY_BOXES_SHAPE = (0, 4, 2)


@dataclass(frozen=True)
class DBParams:
    """RapidOCR 1.4.4's defaults (config.yaml `Det`); override from config.pbtxt parameters."""

    thresh: float = 0.3
    box_thresh: float = 0.5
    max_candidates: int = 1000
    unclip_ratio: float = 1.6
    use_dilation: bool = True


def min_area_quad(points: Ints) -> tuple[Floats, float]:
    """Minimum-area rectangle of a point set: float32[4, 2] corners in PP-OCR's order, short side."""
    rect = cv2.minAreaRect(points)
    corners = as_floats(cv2.boxPoints(rect))
    by_x = corners[np.argsort(corners[:, 0], kind="stable")]
    left = by_x[:2] if by_x[1, 1] > by_x[0, 1] else by_x[1::-1]
    right = by_x[2:] if by_x[3, 1] > by_x[2, 1] else by_x[:1:-1]
    quad = np.stack([left[0], right[0], right[1], left[1]])
    return quad, float(min(rect[1]))


def box_score_fast(prob: Floats, quad: Floats) -> float:
    """Mean probability inside the quad, over its bounding window of the map."""
    height, width = prob.shape
    xmin, ymin = np.clip(np.floor(quad.min(axis=0)).astype(np.int32), 0, [width - 1, height - 1])
    xmax, ymax = np.clip(np.ceil(quad.max(axis=0)).astype(np.int32), 0, [width - 1, height - 1])
    mask = np.zeros((ymax - ymin + 1, xmax - xmin + 1), dtype=np.uint8)
    shifted = (quad - np.array([xmin, ymin], np.float32)).astype(np.int32)
    cv2.fillPoly(mask, [shifted.reshape(-1, 2)], (1,))
    return float(cv2.mean(prob[ymin : ymax + 1, xmin : xmax + 1], mask)[0])


def unclip(quad: Floats, ratio: float) -> Ints:
    """Grow a quad by area * ratio / perimeter with rounded corners; int[P, 2], empty if it vanishes."""
    distance = cv2.contourArea(quad) * ratio / cv2.arcLength(quad, True)
    offset = pyclipper.PyclipperOffset()
    offset.AddPath(quad, pyclipper.JT_ROUND, pyclipper.ET_CLOSEDPOLYGON)
    points = [point for path in offset.Execute(distance) for point in path]
    return np.array(points, np.int32).reshape(-1, 2)


def _to_working(quad: Floats, prob_shape: tuple[int, int], image_shape: tuple[int, int]) -> Ints:
    """Scale a probability-map quad to the working image, rounding to whole pixels."""
    (map_h, map_w), (image_h, image_w) = prob_shape, image_shape
    scaled = quad.copy()
    scaled[:, 0] = np.clip(np.round(quad[:, 0] / map_w * image_w), 0, image_w)
    scaled[:, 1] = np.clip(np.round(quad[:, 1] / map_h * image_h), 0, image_h)
    return scaled.astype(np.int32)


def _candidate(contour: Ints, prob: Floats, params: DBParams) -> tuple[Floats, float] | None:
    """One contour -> (grown quad in map pixels, score), or None when too small or too faint."""
    quad, short_side = min_area_quad(contour)
    if short_side < MIN_SIDE_PX:
        return None
    score = box_score_fast(prob, quad)
    if score < params.box_thresh:
        return None
    grown = unclip(quad, params.unclip_ratio)
    if len(grown) == 0:
        return None
    quad, short_side = min_area_quad(grown)
    if short_side < MIN_SIDE_PX + UNCLIPPED_MARGIN_PX:
        return None
    return quad, score


def order_clockwise(quad: Floats | Ints) -> Floats:
    """float32[4, 2] as tl, tr, br, bl, taking the two leftmost corners as the left side."""
    by_x = quad[np.argsort(quad[:, 0])]
    left = by_x[:2][np.argsort(by_x[:2, 1])]
    right = by_x[2:][np.argsort(by_x[2:, 1])]
    return np.array([left[0], right[0], right[1], left[1]], dtype=np.float32)


def _clip_and_check(quad: Ints, image_shape: tuple[int, int]) -> Floats | None:
    """Order, clip to the last pixel row/column, and reject boxes 3 px or thinner."""
    height, width = image_shape
    box = order_clockwise(quad)
    box[:, 0] = np.trunc(np.clip(box[:, 0], 0, width - 1))
    box[:, 1] = np.trunc(np.clip(box[:, 1], 0, height - 1))
    box_w, box_h = int(np.linalg.norm(box[0] - box[1])), int(np.linalg.norm(box[0] - box[3]))
    return None if box_w <= MIN_SIDE_PX or box_h <= MIN_SIDE_PX else box


def binarize(prob: Floats, params: DBParams) -> Pixels:
    """uint8 {0, 255} text mask: probability above `thresh`, dilated 2x2 when asked."""
    mask = (prob > params.thresh).astype(np.uint8)
    if params.use_dilation:
        mask = as_pixels(cv2.dilate(mask, DILATION_KERNEL))
    return mask * np.uint8(BINARY_FOREGROUND)


def db_postprocess(
    prob: Floats, image_shape: tuple[int, ...], params: DBParams | None = None
) -> tuple[Floats, Floats]:
    """prob float32[H, W] (or [1, 1, H, W]) -> (boxes float32[K, 4, 2] in working pixels, scores float32[K]).

    `image_shape` is the working image's (height, width), or its whole shape. Boxes are unsorted,
    in contour order.
    """
    params = params or DBParams()
    height, width = image_shape[:2]
    prob = np.asarray(prob, np.float32).reshape(np.shape(prob)[-2:])
    contours, _ = cv2.findContours(binarize(prob, params), cv2.RETR_LIST, cv2.CHAIN_APPROX_SIMPLE)
    boxes, scores = [], []
    for contour in contours[: params.max_candidates]:
        found = _candidate(as_ints(contour), prob, params)
        if found is None:
            continue
        quad = _to_working(found[0], (prob.shape[0], prob.shape[1]), (height, width))
        box = _clip_and_check(quad, (height, width))
        if box is not None:
            boxes.append(box)
            scores.append(found[1])
    if not boxes:
        return np.zeros(EMPTY_BOXES_SHAPE, np.float32), np.zeros(0, np.float32)
    return np.stack(boxes), np.array(scores, np.float32)
