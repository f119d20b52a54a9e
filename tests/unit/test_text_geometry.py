"""Reading order and perspective crops."""

from __future__ import annotations

import cv2
import numpy as np
import pytest
from imgproc.text.geometry import crop_quad, sort_reading_order


def _box(x: float, y: float, w: float = 50, h: float = 20) -> list[list[float]]:
    return [[x, y], [x + w, y], [x + w, y + h], [x, y + h]]


def test_reading_order_is_top_down_then_left_right_within_a_line() -> None:
    boxes = np.array(
        [
            _box(300, 104),  # line 2, right
            _box(10, 10),  # line 1, left
            _box(200, 5),  # line 1, right, a little higher than its neighbour
            _box(20, 100),  # line 2, left
            _box(15, 200),  # line 3
        ],
        np.float32,
    )
    assert sort_reading_order(boxes).tolist() == [1, 2, 3, 0, 4]


def test_boxes_more_than_ten_pixels_apart_are_separate_lines() -> None:
    boxes = np.array([_box(300, 10), _box(10, 21)], np.float32)
    assert sort_reading_order(boxes).tolist() == [0, 1]


def test_empty_order() -> None:
    assert sort_reading_order(np.zeros((0, 4, 2), np.float32)).tolist() == []


def _gradient(height: int = 100, width: int = 200) -> np.ndarray:
    ys, xs = np.mgrid[0:height, 0:width]
    return np.stack([xs % 256, ys % 256, (xs + ys) % 256], axis=-1).astype(np.uint8)


def test_axis_aligned_crop_is_the_region() -> None:
    image = _gradient()
    crop = crop_quad(image, np.array(_box(40, 30, 60, 20), np.float32))
    assert crop.shape == (20, 60, 3)
    assert np.abs(crop.astype(int) - image[30:50, 40:100].astype(int)).max() <= 1


def test_tall_crop_is_turned_upright_counter_clockwise() -> None:
    image = _gradient()
    crop = crop_quad(image, np.array(_box(40, 10, 20, 60), np.float32))  # 20 wide, 60 tall
    assert crop.shape == (20, 60, 3)
    expected = np.rot90(image[10:70, 40:60])
    assert np.abs(crop.astype(int) - expected.astype(int)).max() <= 1


def test_rotated_quad_is_straightened() -> None:
    image = np.zeros((200, 200), np.uint8)
    image[95:105, 50:150] = 255  # a white bar, then the whole picture turned 30 degrees
    angle = np.deg2rad(30)
    matrix = np.array([[np.cos(angle), -np.sin(angle)], [np.sin(angle), np.cos(angle)]])
    centre = np.array([100.0, 100.0])
    corners = (np.array(_box(50, 95, 100, 10)) - centre) @ matrix.T + centre
    turned = cv2.warpAffine(image, np.hstack([matrix, (centre - matrix @ centre)[:, None]]), (200, 200))
    crop = crop_quad(turned, corners.astype(np.float32))
    assert crop.shape[1] > 5 * crop.shape[0]
    assert crop[2:-2, 5:-5].mean() > 200


def test_degenerate_quad_is_rejected() -> None:
    with pytest.raises(ValueError, match="degenerate"):
        crop_quad(_gradient(), np.array([[5, 5], [5, 5], [5, 5], [5, 5]], np.float32))
