"""DB post-processing on synthetic probability maps with known text rectangles."""

from __future__ import annotations

import numpy as np
import pytest
from imgproc.text.db import DBParams, db_postprocess, min_area_quad, order_clockwise, unclip

MAP_SHAPE = (320, 640)
IMAGE_SHAPE = (160, 320)  # the working image is half the map: boxes come back halved


def _map(*rects: tuple[int, int, int, int, float]) -> np.ndarray:
    prob = np.zeros(MAP_SHAPE, np.float32)
    for x0, y0, x1, y1, value in rects:
        prob[y0:y1, x0:x1] = value
    return prob


def _bounds(box: np.ndarray) -> tuple[float, float, float, float]:
    return box[:, 0].min(), box[:, 1].min(), box[:, 0].max(), box[:, 1].max()


def test_rectangles_come_back_grown_and_in_working_pixels() -> None:
    boxes, scores = db_postprocess(_map((100, 50, 300, 80, 0.9), (60, 200, 500, 240, 0.8)), IMAGE_SHAPE)
    assert boxes.shape == (2, 4, 2) and boxes.dtype == np.float32
    assert scores.dtype == np.float32
    by_top = np.argsort(boxes[:, 0, 1])
    line_a, line_b = boxes[by_top]
    # unclip grows by area * 1.6 / perimeter: 200x30 -> ~21 map px, 440x40 -> ~29 map px per side.
    assert _bounds(line_a) == pytest.approx((40, 15, 160, 50), abs=2)
    assert _bounds(line_b) == pytest.approx((15, 85, 264, 134), abs=2)
    # Fast scoring averages over the fitted box, which takes in the dilated zero-valued rim.
    assert 0.85 < scores[by_top][0] <= 0.9 and 0.75 < scores[by_top][1] <= 0.8


def test_corners_are_clockwise_from_top_left() -> None:
    boxes, _ = db_postprocess(_map((100, 50, 300, 80, 0.9)), IMAGE_SHAPE)
    tl, tr, br, bl = boxes[0]
    assert tl[0] < tr[0] and tl[1] < bl[1] and br[0] > bl[0] and br[1] > tr[1]


def test_faint_tiny_and_empty_regions_give_no_boxes() -> None:
    faint = _map((100, 50, 300, 80, 0.45))  # above thresh 0.3, below box_thresh 0.5
    tiny = _map((100, 50, 102, 52, 0.99))
    for prob in (faint, tiny, np.zeros(MAP_SHAPE, np.float32)):
        boxes, scores = db_postprocess(prob, IMAGE_SHAPE)
        assert boxes.shape == (0, 4, 2) and scores.shape == (0,)


def test_params_override_the_defaults() -> None:
    faint = _map((100, 50, 300, 80, 0.45))
    boxes, _ = db_postprocess(faint, IMAGE_SHAPE, DBParams(box_thresh=0.4))
    assert len(boxes) == 1


def test_accepts_the_raw_model_output_shape() -> None:
    prob = _map((100, 50, 300, 80, 0.9))
    flat, _ = db_postprocess(prob, IMAGE_SHAPE)
    batched, _ = db_postprocess(prob[None, None], IMAGE_SHAPE)
    assert np.array_equal(flat, batched)


def test_boxes_are_clipped_to_the_image() -> None:
    boxes, _ = db_postprocess(_map((0, 0, 200, 40, 0.9)), IMAGE_SHAPE)
    assert boxes.min() >= 0
    assert boxes[..., 0].max() <= IMAGE_SHAPE[1] - 1 and boxes[..., 1].max() <= IMAGE_SHAPE[0] - 1


def test_min_area_quad_of_a_rotated_rectangle() -> None:
    corners = np.array([[10, 0], [20, 10], [10, 20], [0, 10]], np.float32)  # a diamond
    quad, short_side = min_area_quad(corners)
    assert short_side == pytest.approx(np.hypot(10, 10), rel=1e-4)
    assert np.allclose(quad, [[10, 0], [20, 10], [10, 20], [0, 10]], atol=1e-4)  # clockwise from the top


def test_unclip_grows_each_side_by_the_offset() -> None:
    square = np.array([[0, 0], [100, 0], [100, 100], [0, 100]], np.float32)
    grown = unclip(square, 2.0)  # distance = 10000 * 2 / 400 = 50
    assert grown[:, 0].min() == -50 and grown[:, 0].max() == 150


def test_order_clockwise() -> None:
    shuffled = np.array([[9, 5], [0, 0], [0, 5], [9, 0]], np.float32)
    assert order_clockwise(shuffled).tolist() == [[0, 0], [9, 0], [9, 5], [0, 5]]
