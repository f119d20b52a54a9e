"""Turn any grayscale picture of one handwritten digit into an MNIST-style 28x28 input.

MNIST was made by size-normalising each binary NIST digit to fit a 20x20 box (keeping its
aspect ratio, anti-aliased to grey levels) and pasting it into a 28x28 field so that its
centre of mass falls on the centre. `to_mnist` replays those steps on arbitrary input: it
finds the paper, inverts dark-on-light ink to white-on-black, removes uneven lighting and
paper noise, keeps the significant ink, then crops, scales and centres exactly like MNIST.
An MNIST digit itself passes through (nearly) unchanged. The same function feeds training
and serving, so there is no skew between them; normalisation (mean/std) lives in the model.
"""

from __future__ import annotations

import cv2
import numpy as np

from imgproc.arrays import Floats, Pixels, as_floats, as_pixels

MNIST_SIDE = 28
DIGIT_BOX = 20  # MNIST fitted each digit's longer side into 20 px
MNIST_CENTRE = 14.0  # MNIST centres of mass lie in [13.5, 14.5] (pixel-index coordinates)
MAX_WORK_SIDE = 320  # big photos are shrunk first: cost stays flat, strokes stay several px
BACKGROUND_SIDE = 64  # lighting is estimated on a thumbnail; it varies slowly
BACKGROUND_KERNEL_FRACTION = 1 / 3  # must be wider than any stroke, or strokes become "paper"
MIN_CONTRAST = 24.0  # grey levels between ink and paper below which we see no digit
NOISE_PERCENTILE = 99.0  # paper noise level, measured away from the ink
INK_PERCENTILE = 90.0  # this much of the ink is "solid" and maps to 1.0
SPECK_FRACTION = 0.08  # components smaller than this share of the largest are specks
FRINGE_RADIUS = 2  # anti-aliased edge kept around significant ink (working px)
NOISE_MARGIN_RADIUS = 4  # noise is sampled this far from the ink, outside its blur
GREY_LEVELS = 256


def _disc(radius: int) -> Pixels:
    return as_pixels(cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * radius + 1, 2 * radius + 1)))


FRINGE_KERNEL = _disc(FRINGE_RADIUS)
NOISE_MARGIN_KERNEL = _disc(NOISE_MARGIN_RADIUS)


def to_mnist(gray: Pixels) -> Floats:
    """Map an HxW uint8 grayscale digit image to a 28x28 float32 MNIST input in [0, 1].

    An image without ink (blank, uniform, empty) gives zeros; raises ValueError if not 2-D.
    """
    if np.ndim(gray) != 2:
        raise ValueError(f"expected a 2-D grayscale image, got shape {np.shape(gray)}")
    ink = _ink_map(_working_copy(gray))
    if ink is None:
        return np.zeros((MNIST_SIDE, MNIST_SIDE), np.float32)
    return _centre_by_mass(_fit_box(_crop(ink)))


def _working_copy(gray: Pixels) -> Pixels:
    """The image as uint8, shrunk by a whole factor if large (area averaging, anti-aliased)."""
    image = np.asarray(gray, dtype=np.uint8)
    if image.size == 0:
        return np.zeros((1, 1), np.uint8)
    factor = -(-max(image.shape) // MAX_WORK_SIDE)
    if factor == 1:
        return image
    # Trimming to a multiple of the factor (< factor px) lets OpenCV take its fast box path.
    height, width = (max(factor, side - side % factor) for side in image.shape)
    size = (max(1, width // factor), max(1, height // factor))
    return as_pixels(cv2.resize(image[:height, :width], size, interpolation=cv2.INTER_AREA))


def _ink_map(image: Pixels) -> Floats | None:
    """White-on-black ink intensities in [0, 1] with paper, lighting and specks removed."""
    bright = _ink_is_bright(image)
    if bright is None:
        return None
    ink = image if bright else as_pixels(cv2.bitwise_not(image))
    ink = as_pixels(cv2.subtract(ink, _background(ink)))
    if int(ink.max()) < MIN_CONTRAST:
        return None
    mask = as_pixels(cv2.threshold(ink, 0, 255, cv2.THRESH_BINARY | cv2.THRESH_OTSU)[1])
    kept = _drop_specks(mask)
    return None if kept is None else _soft_ink(ink, mask, kept)


def _ink_is_bright(image: Pixels) -> bool | None:
    """Whether ink is lighter than the paper (MNIST-style); None when there is no contrast."""
    low, high = _percentiles(image, None, (1.0, 99.0))
    if high - low < MIN_CONTRAST:
        return None
    # The border is mostly paper; paper near the dark end means ink is the bright part.
    paper = np.median(np.concatenate((image[0], image[-1], image[:, 0], image[:, -1])))
    return bool(paper < (low + high) / 2.0)


def _percentiles(image: Pixels, mask: Pixels | None, qs: tuple[float, ...]) -> list[int]:
    """Percentiles of uint8 pixels (under mask) from a histogram: far cheaper than sorting."""
    hist = cv2.calcHist([image], [0], mask, [GREY_LEVELS], [0, GREY_LEVELS]).ravel()
    cumulative = np.cumsum(hist)
    if cumulative[-1] <= 0:
        return [0 for _ in qs]
    targets = np.asarray(qs) / 100.0 * cumulative[-1]
    return [int(level) for level in np.searchsorted(cumulative, targets)]


def _background(ink: Pixels) -> Pixels:
    """Slowly varying paper level (lower envelope of a morphological opening on a thumbnail)."""
    height, width = ink.shape
    scale = min(1.0, BACKGROUND_SIDE / max(height, width))
    small_size = (max(1, round(width * scale)), max(1, round(height * scale)))
    small = cv2.resize(ink, small_size, interpolation=cv2.INTER_AREA)
    side = max(3, round(max(small_size) * BACKGROUND_KERNEL_FRACTION)) | 1
    kernel = cv2.getStructuringElement(cv2.MORPH_RECT, (side, side))
    # Opening never exceeds the input, so subtracting it cannot invent ink.
    envelope = cv2.morphologyEx(small, cv2.MORPH_OPEN, kernel, borderType=cv2.BORDER_REPLICATE)
    envelope = cv2.blur(envelope, (side, side), borderType=cv2.BORDER_REPLICATE)
    return as_pixels(cv2.resize(envelope, (width, height), interpolation=cv2.INTER_LINEAR))


def _drop_specks(mask: Pixels) -> Pixels | None:
    """Keep the ink components that matter relative to the largest; None if there are none."""
    count, labels, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
    if count <= 1:
        return None
    areas = stats[:, cv2.CC_STAT_AREA]
    keep = areas >= SPECK_FRACTION * areas[1:].max()
    keep[0] = False  # label 0 is the paper
    kept: Pixels = keep.astype(np.uint8)[labels] * np.uint8(255)
    return kept


def _soft_ink(ink: Pixels, mask: Pixels, kept: Pixels) -> Floats:
    """Stretch ink so paper noise is 0 and solid ink 1, keeping soft edges near kept ink."""
    # Noise is measured on paper: away from kept ink and below Otsu's cut (specks excluded).
    paper = as_pixels(cv2.bitwise_not(cv2.bitwise_or(cv2.dilate(kept, NOISE_MARGIN_KERNEL), mask)))
    (noise,) = _percentiles(ink, paper, (NOISE_PERCENTILE,))
    (solid,) = _percentiles(ink, kept, (INK_PERCENTILE,))
    fringe = cv2.dilate(kept, FRINGE_KERNEL) > 0
    stretched = (ink.astype(np.float32) - noise) * (1.0 / max(solid - noise, 1))
    return np.where(fringe, np.clip(stretched, 0.0, 1.0), np.float32(0.0)).astype(np.float32)


def _crop(ink: Floats) -> Floats:
    """Cut the image down to the bounding box of the remaining ink."""
    rows = np.flatnonzero(ink.any(axis=1))
    cols = np.flatnonzero(ink.any(axis=0))
    if rows.size == 0:
        return np.zeros((1, 1), np.float32)
    return ink[rows[0] : rows[-1] + 1, cols[0] : cols[-1] + 1]


def _fit_box(digit: Floats) -> Floats:
    """Scale so the longer side is DIGIT_BOX px, keeping the aspect ratio (anti-aliased)."""
    height, width = digit.shape
    scale = DIGIT_BOX / max(height, width)
    if scale == 1.0:
        return digit
    size = (max(1, round(width * scale)), max(1, round(height * scale)))
    interpolation = cv2.INTER_AREA if scale < 1.0 else cv2.INTER_LINEAR
    return np.clip(as_floats(cv2.resize(digit, size, interpolation=interpolation)), 0.0, 1.0)


def _centre_by_mass(digit: Floats) -> Floats:
    """Paste into 28x28 so the centre of mass lands on MNIST's centre (whole-pixel shift)."""
    out = np.zeros((MNIST_SIDE, MNIST_SIDE), np.float32)
    total = float(digit.sum())
    if total <= 0.0:
        return out
    height, width = digit.shape
    rows, cols = np.arange(height), np.arange(width)
    com_y = float(digit.sum(axis=1) @ rows) / total
    com_x = float(digit.sum(axis=0) @ cols) / total
    top = int(np.clip(round(MNIST_CENTRE - com_y), 0, MNIST_SIDE - height))
    left = int(np.clip(round(MNIST_CENTRE - com_x), 0, MNIST_SIDE - width))
    out[top : top + height, left : left + width] = digit
    return out
