"""Augmentation for photographed handwriting, always finished by the serving `to_mnist`.

Every sample, augmented or not, ends in `imgproc.mnist.to_mnist`, the same function the
Triton model runs, so training sees exactly what serving sees. Because `to_mnist` crops,
scales to a 20 px box and centres by mass, plain shifts and uniform scaling are normalised
away; what survives, and is therefore augmented, is shape: rotation, shear, aspect ratio,
elastic wobble, stroke width, blur, noise and specks, and the photo path (dark ink on a
larger off-centre sheet, blurred, unevenly lit, JPEG) from `evaluation.support.digits`.
Each sample draws from its own generator seeded by (seed, epoch, index), so the result is
the same whatever the worker count or scheduling.
"""

from __future__ import annotations

import multiprocessing
from collections.abc import Iterator

import cv2
import numpy as np
from imgproc.imaging import decode_gray
from imgproc.mnist import MNIST_SIDE, to_mnist

from evaluation.support.digits import photo_style

UPSCALE = 2  # shape changes are drawn at 2x so that anti-aliasing happens once, in to_mnist
PAD = 12  # room (at 2x) for rotated and sheared strokes
CLEAN_PROB = 0.1  # some samples stay untouched MNIST
PHOTO_PROB = 0.3
ROTATION_DEG = 15.0
SHEAR = 0.2
ASPECT = 0.15  # x-scale over y-scale varies by up to +-15 %
ELASTIC_GRID = 4  # coarse random displacement grid, smoothly upsampled
ELASTIC_PX = 1.0  # displacement std in 28 px units
STROKE_CHOICES = (-3, 0, 0, 3, 5)  # erode (<0) / dilate (>0) kernel at 2x; 3 px ~ 0.5 px at 28
BLUR_PROB = 0.3
BLUR_SIGMA = (0.5, 2.0)  # at 2x
NOISE_PROB = 0.3
NOISE_SIGMA = (4.0, 24.0)
SPECK_PROB = 0.2
SPECK_COUNT = (1, 6)
SPECK_RADIUS = (1, 2)  # at 2x, far below a stroke so to_mnist should drop them
CHUNK = 256


def augment(digit: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One augmented sample: a 28x28 uint8 MNIST digit in, a to_mnist output (28x28 f32) out."""
    if rng.random() < CLEAN_PROB:
        return to_mnist(digit)
    shaped = _stroke(_elastic(_affine(_upscale(digit), rng), rng), rng)
    if rng.random() < PHOTO_PROB:
        return to_mnist(decode_gray(photo_style(_downscale(shaped), rng)))
    return to_mnist(_degrade(shaped, rng))


def _upscale(digit: np.ndarray) -> np.ndarray:
    big = cv2.resize(digit, None, fx=UPSCALE, fy=UPSCALE, interpolation=cv2.INTER_LINEAR)
    return cv2.copyMakeBorder(big, PAD, PAD, PAD, PAD, cv2.BORDER_CONSTANT, value=0)


def _downscale(image: np.ndarray) -> np.ndarray:
    """Back to MNIST's pixel size: photo_style measures blur in pixels of its input."""
    return cv2.resize(image, None, fx=1 / UPSCALE, fy=1 / UPSCALE, interpolation=cv2.INTER_AREA)


def _affine(image: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Rotate, shear and stretch about the centre."""
    angle = np.deg2rad(rng.uniform(-ROTATION_DEG, ROTATION_DEG))
    cos, sin = np.cos(angle), np.sin(angle)
    stretch = np.diag([1.0 + rng.uniform(-ASPECT, ASPECT), 1.0])
    shear = np.array([[1.0, rng.uniform(-SHEAR, SHEAR)], [0.0, 1.0]])
    linear = np.array([[cos, -sin], [sin, cos]]) @ shear @ stretch
    centre = np.array(image.shape[::-1], np.float64) / 2.0
    matrix = np.hstack([linear, (centre - linear @ centre)[:, None]])
    return cv2.warpAffine(image, matrix, image.shape[::-1], flags=cv2.INTER_LINEAR)


def _elastic(image: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Smooth random displacement, like the wobble of a hand."""
    height, width = image.shape
    amplitude = ELASTIC_PX * UPSCALE
    coarse = rng.normal(0.0, amplitude, (2, ELASTIC_GRID, ELASTIC_GRID)).astype(np.float32)
    dx, dy = (cv2.resize(c, (width, height), interpolation=cv2.INTER_CUBIC) for c in coarse)
    grid_y, grid_x = np.mgrid[0:height, 0:width].astype(np.float32)
    return cv2.remap(image, grid_x + dx, grid_y + dy, cv2.INTER_LINEAR)


def _stroke(image: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Thinner or thicker pen: grey-level erosion or dilation."""
    size = int(rng.choice(STROKE_CHOICES))
    if size == 0:
        return image
    kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (abs(size), abs(size)))
    return cv2.dilate(image, kernel) if size > 0 else cv2.erode(image, kernel)


def _degrade(image: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Scanner-style damage on the white-on-black digit: blur, noise and specks."""
    out = image.astype(np.float32)
    if rng.random() < BLUR_PROB:
        out = cv2.GaussianBlur(out, (0, 0), rng.uniform(*BLUR_SIGMA))
    if rng.random() < SPECK_PROB:
        _add_specks(out, rng)
    if rng.random() < NOISE_PROB:
        out += rng.normal(0.0, rng.uniform(*NOISE_SIGMA), out.shape).astype(np.float32)
    return np.clip(out, 0, 255).astype(np.uint8)


def _add_specks(image: np.ndarray, rng: np.random.Generator) -> None:
    height, width = image.shape
    for _ in range(int(rng.integers(SPECK_COUNT[0], SPECK_COUNT[1] + 1))):
        centre = (int(rng.integers(0, width)), int(rng.integers(0, height)))
        cv2.circle(image, centre, int(rng.integers(*SPECK_RADIUS, endpoint=True)), 255.0, -1)


_DIGITS: np.ndarray | None = None  # set in each worker by _init, inherited cheaply by fork


def _init(digits: np.ndarray) -> None:
    global _DIGITS
    _DIGITS = digits
    cv2.setNumThreads(1)  # parallelism comes from the pool, not from OpenCV


def _augment_chunk(job: tuple[int, int, int, int]) -> np.ndarray:
    seed, epoch, start, stop = job
    if _DIGITS is None:
        raise RuntimeError("augmentation worker used without the pool initializer")
    out = np.empty((stop - start, MNIST_SIDE, MNIST_SIDE), np.float16)
    for row, index in enumerate(range(start, stop)):
        rng = np.random.default_rng((seed, epoch, index))
        out[row] = augment(_DIGITS[index], rng)
    return out


def _jobs(seed: int, epochs: int, count: int) -> Iterator[tuple[int, int, int, int]]:
    for epoch in range(epochs):
        for start in range(0, count, CHUNK):
            yield seed, epoch, start, min(start + CHUNK, count)


def augmented_epochs(digits: np.ndarray, epochs: int, seed: int, workers: int) -> np.ndarray:
    """Precompute `epochs` augmented copies of `digits`: float16 [epochs, N, 28, 28]."""
    context = multiprocessing.get_context("fork")
    with context.Pool(workers, initializer=_init, initargs=(digits,)) as pool:
        chunks = pool.map(_augment_chunk, _jobs(seed, epochs, len(digits)), chunksize=1)
    return np.concatenate(chunks).reshape(epochs, len(digits), MNIST_SIDE, MNIST_SIDE)
