"""Detector input: working image, letterbox, tensor sizes and values, mapping boxes back."""

from __future__ import annotations

import numpy as np
import pytest
from imgproc.text.detection import (
    ScaleInfo,
    boxes_to_upload,
    det_input_size,
    det_preprocess,
    letterbox_padding,
    prepare_image,
    prepare_line,
)


def _rgb(height: int, width: int, value: int = 255) -> np.ndarray:
    return np.full((height, width, 3), value, np.uint8)


@pytest.mark.parametrize(
    ("height", "width", "working", "tensor"),
    [
        (20, 40, (32, 64), (736, 1472)),  # a tiny word crop: short side up to 30, snapped to 32
        (600, 800, (600, 800), (736, 992)),  # normal photo: untouched, detector short side 736
        (6000, 8000, (1504, 1984), (1504, 1984)),  # huge scan: long side to 2000, 62.5 x 32 -> 62 x 32
        (1000, 1000, (1000, 1000), (992, 992)),  # already large enough: only snapped to 32
    ],
)
def test_sizes_follow_rapidocr(
    height: int, width: int, working: tuple[int, int], tensor: tuple[int, int]
) -> None:
    image, scale = prepare_image(_rgb(height, width))
    assert image.shape[:2] == working
    batch = det_preprocess(image)
    assert batch.shape == (1, 3, *tensor)
    assert batch.dtype == np.float32
    assert batch.shape[2] % 32 == 0 and batch.shape[3] % 32 == 0
    assert (scale.height, scale.width) == (height, width)
    assert scale.ratio_h == pytest.approx(height / working[0])


def test_flat_image_gets_black_bands_above_and_below() -> None:
    image, scale = prepare_image(_rgb(40, 800))  # 800 / 40 = 20 > 8: letterbox
    assert scale.pad_top == letterbox_padding(40, 800) == 80
    assert image.shape[:2] == (40 + 2 * 80, 800)
    assert image[:80].max() == 0 and image[-80:].max() == 0
    assert image[80:120].min() == 255


def test_tensor_is_bgr_scaled_to_minus_one_one() -> None:
    red = np.zeros((64, 64, 3), np.uint8)
    red[..., 0] = 255
    image, _ = prepare_image(red)
    batch = det_preprocess(image)
    assert np.allclose(batch[0, 2], 1.0)  # red is the last channel in BGR
    assert np.allclose(batch[0, 0], -1.0)
    assert np.allclose(batch[0, 1], -1.0)


def test_det_input_size_snaps_half_to_even_like_python_round() -> None:
    # 1040 / 32 = 32.5 rounds to 32 under Python's round (RapidOCR's), not to 33.
    assert det_input_size(1000, 1000) == (992, 992)
    assert det_input_size(736, 1040) == (736, 1024)


def test_boxes_map_back_to_upload_pixels_and_clip() -> None:
    scale = ScaleInfo(height=100, width=200, ratio_h=2.0, ratio_w=4.0, pad_top=10)
    boxes = np.array(
        [[[0, 10], [40, 10], [40, 30], [0, 30]], [[45, 0], [60, 0], [60, 70], [45, 70]]], np.float32
    )
    mapped = boxes_to_upload(boxes, scale)
    assert mapped.dtype == np.float32
    assert mapped[0].tolist() == [[0, 0], [160, 0], [160, 40], [0, 40]]
    assert mapped[1].tolist() == [[180, 0], [200, 0], [200, 100], [180, 100]]  # clipped


def test_scale_info_survives_a_tensor_round_trip() -> None:
    scale = ScaleInfo(height=37, width=4001, ratio_h=0.3125, ratio_w=2.0005, pad_top=96)
    assert ScaleInfo.from_array(scale.to_array()) == scale
    with pytest.raises(ValueError, match="5 values"):
        ScaleInfo.from_array(np.zeros(3))


def test_prepare_line_limits_sides_without_letterbox() -> None:
    line = prepare_line(_rgb(20, 300))
    assert line.shape == (32, 448, 3)  # 20 -> 30 scale 1.5, snapped; no black bands


@pytest.mark.parametrize(
    "bad", [np.zeros((10, 10), np.uint8), np.zeros((0, 5, 3), np.uint8), np.zeros((4, 4, 3))]
)
def test_rejects_non_rgb_input(bad: np.ndarray) -> None:
    with pytest.raises(ValueError, match="uint8 HxWx3"):
        prepare_image(bad)
