"""Unit tests for imgproc.mnist.to_mnist: MNIST passes through, photos come out like MNIST."""

from __future__ import annotations

import cv2
import numpy as np
import pytest
from imgproc.imaging import decode_gray
from imgproc.mnist import DIGIT_BOX, MNIST_CENTRE, MNIST_SIDE, to_mnist

from evaluation.support.digits import load_mnist, photo_style

SAMPLE = 200  # held-out digits used where a statistic over many digits is checked
MIN_CORRELATION = 0.99  # MNIST in, MNIST out
PAPER_MIN_CORRELATION = 0.95  # a clean enlarged print of the digit on paper
PHOTO_MIN_CORRELATION = 0.8  # blurred, noisy, JPEG-compressed photo_style renders
COM_TOLERANCE_PX = 1.0
BOX_TOLERANCE_PX = 1


@pytest.fixture(scope="module")
def heldout() -> tuple[np.ndarray, np.ndarray]:
    images, labels = load_mnist("heldout")
    return images[:SAMPLE], labels[:SAMPLE]


def centre_of_mass(image: np.ndarray) -> tuple[float, float]:
    total = float(image.sum())
    rows, cols = np.arange(image.shape[0]), np.arange(image.shape[1])
    return float(image.sum(axis=1) @ rows) / total, float(image.sum(axis=0) @ cols) / total


def ink_box(image: np.ndarray, level: float = 0.0) -> tuple[int, int]:
    rows = np.flatnonzero((image > level).any(axis=1))
    cols = np.flatnonzero((image > level).any(axis=0))
    return int(rows[-1] - rows[0] + 1), int(cols[-1] - cols[0] + 1)


def as_paper_photo(digit: np.ndarray, side: int, top_left: tuple[int, int]) -> np.ndarray:
    """Dark ink on white paper: the digit enlarged 4x and placed off centre on a big sheet."""
    big = cv2.resize(digit, None, fx=4, fy=4, interpolation=cv2.INTER_CUBIC)
    sheet = np.zeros((side, side), np.uint8)
    top, left = top_left
    sheet[top : top + big.shape[0], left : left + big.shape[1]] = big
    return 255 - sheet


def correlation(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.corrcoef(a.ravel(), b.ravel())[0, 1])


def test_output_is_28x28_float32_in_unit_range(heldout: tuple[np.ndarray, np.ndarray]) -> None:
    out = to_mnist(heldout[0][0])
    assert out.shape == (MNIST_SIDE, MNIST_SIDE)
    assert out.dtype == np.float32
    assert 0.0 <= float(out.min()) and float(out.max()) <= 1.0
    assert float(out.max()) > 0.9  # solid ink is 1, not a faint ghost


def test_mnist_digits_pass_through_nearly_unchanged(heldout: tuple[np.ndarray, np.ndarray]) -> None:
    images, _ = heldout
    correlations = [correlation(to_mnist(d), d.astype(np.float32) / 255.0) for d in images]
    assert np.median(correlations) > 0.999
    assert np.mean(np.asarray(correlations) > MIN_CORRELATION) > 0.95


def test_dark_ink_on_paper_is_inverted_boxed_and_centred(heldout: tuple[np.ndarray, np.ndarray]) -> None:
    digit = heldout[0][1]
    photo = as_paper_photo(digit, side=400, top_left=(20, 250))
    out = to_mnist(photo)
    com_y, com_x = centre_of_mass(out)
    assert abs(com_y - MNIST_CENTRE) <= COM_TOLERANCE_PX
    assert abs(com_x - MNIST_CENTRE) <= COM_TOLERANCE_PX
    assert abs(max(ink_box(out)) - DIGIT_BOX) <= BOX_TOLERANCE_PX
    assert out[0].max() == 0 and out[:, 0].max() == 0  # background is black, not inverted paper
    assert correlation(out, to_mnist(digit)) > PAPER_MIN_CORRELATION


def test_off_centre_photos_match_the_original_digit(heldout: tuple[np.ndarray, np.ndarray]) -> None:
    rng = np.random.default_rng(3)
    for digit in heldout[0][:20]:
        out = to_mnist(decode_gray(photo_style(digit, rng)))
        assert correlation(out, to_mnist(digit)) > PHOTO_MIN_CORRELATION


def test_uneven_lighting_does_not_become_ink(heldout: tuple[np.ndarray, np.ndarray]) -> None:
    digit = heldout[0][2]
    photo = as_paper_photo(digit, side=300, top_left=(100, 100)).astype(np.float32)
    shade = np.linspace(1.0, 0.45, photo.shape[1], dtype=np.float32)[None, :]  # dark right side
    out = to_mnist((photo * shade).astype(np.uint8))
    assert correlation(out, to_mnist(digit)) > PAPER_MIN_CORRELATION


def test_specks_on_paper_are_suppressed(heldout: tuple[np.ndarray, np.ndarray]) -> None:
    digit = heldout[0][3]
    photo = as_paper_photo(digit, side=300, top_left=(100, 100))
    rng = np.random.default_rng(0)
    for _ in range(25):
        y, x = (int(v) for v in rng.integers(0, 300, 2))
        if not 90 <= y <= 220 or not 90 <= x <= 220:  # keep specks off the digit itself
            cv2.circle(photo, (x, y), 1, 0, -1)
    out = to_mnist(photo)
    assert correlation(out, to_mnist(digit)) > PAPER_MIN_CORRELATION
    # A surviving speck would widen the ink box and shrink the digit inside it.
    assert np.abs(np.subtract(ink_box(out, 0.2), ink_box(to_mnist(digit), 0.2))).max() <= BOX_TOLERANCE_PX


@pytest.mark.parametrize(
    "image",
    [
        np.zeros((28, 28), np.uint8),
        np.full((28, 28), 255, np.uint8),
        np.full((640, 480), 200, np.uint8),
        np.zeros((1, 1), np.uint8),
        np.full((1, 1), 255, np.uint8),
        np.zeros((0, 0), np.uint8),
    ],
    ids=["black", "white", "grey-photo", "1x1-black", "1x1-white", "empty"],
)
def test_images_without_ink_give_zeros(image: np.ndarray) -> None:
    out = to_mnist(image)
    assert out.shape == (MNIST_SIDE, MNIST_SIDE)
    assert not out.any()


@pytest.mark.parametrize("shape", [(1, 500), (500, 1), (3, 2000), (2, 2)])
def test_extreme_shapes_give_a_sane_array(shape: tuple[int, int]) -> None:
    image = np.full(shape, 255, np.uint8)
    image[..., : max(1, shape[-1] // 3)] = 0  # a dark bar on white paper
    out = to_mnist(image)
    assert out.shape == (MNIST_SIDE, MNIST_SIDE)
    assert out.dtype == np.float32
    assert np.isfinite(out).all()
    assert 0.0 <= float(out.min()) and float(out.max()) <= 1.0


def test_a_thin_stroke_on_a_wide_strip_fills_the_20px_box() -> None:
    image = np.full((40, 500), 255, np.uint8)
    image[18:22, 100:300] = 0
    out = to_mnist(image)
    assert ink_box(out, level=0.5) == (1, DIGIT_BOX)


def test_a_colour_image_is_a_caller_error() -> None:
    with pytest.raises(ValueError, match="2-D"):
        to_mnist(np.zeros((28, 28, 3), np.uint8))
