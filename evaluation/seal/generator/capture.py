"""Capturing a finished page as the image someone uploads: a scan, a phone photo, a grey
photocopy, or a digital render.

Each capture returns the image and the 3 x 3 matrix from page pixels to image pixels, so the
truth follows the geometry (`truth.seal_truth`):

- scan: resized to the output size, blurred a little, JPEG (sometimes PNG);
- photo: the sheet seen in mild perspective on a desk, with a colour cast (cold or warm
  light, so the paper is not white), uneven lighting, sensor noise, blur and strong JPEG;
- copy: a photocopy turned grey (the seal loses its colour), slightly skewed, with copier
  contrast, noise and toner specks;
- grey scan: a scanner set to black and white: the scan in grey levels, or thresholded to
  pure black and white (a seal's red comes out as dark as the print);
- digital: the render itself, sharp, as PNG.
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from enum import Enum

import cv2
import numpy as np
from imgproc.arrays import Floats, Pixels, as_floats, as_pixels
from PIL import Image

from .photo import lighting, perspective

SCAN_JPEG_QUALITY = (60, 95)
SCAN_PNG_PROBABILITY = 0.15
MAX_SCAN_BLUR = 1.0  # sigma in px
MIN_BLUR = 0.3  # sigmas below this change nothing visible; skip the filter
PHOTO_JPEG_QUALITY = (45, 80)  # phones and chat apps compress hard
# Focus and hand shake. Up to 1.6 px drew photos whose 100 px seals no person could read
# (no labelled real photo is like that); a photo someone reads a seal from is sharper.
PHOTO_BLUR = (0.3, 1.0)
PHOTO_NOISE = (1.5, 4.5)  # sensor noise sigma, in grey levels
DESK_COLOURS = (((60, 110), (55, 100), (50, 95)), ((120, 170), (90, 130), (60, 95)))  # grey, wood
COLD_GAINS = ((0.8, 0.92), (0.9, 0.98), (1.0, 1.0))  # R, G, B: daylight / LED, bluish paper
WARM_GAINS = ((1.0, 1.0), (0.88, 0.97), (0.7, 0.86))  # tungsten, yellowish paper
EXPOSURE = (0.78, 1.0)
COPY_JPEG_QUALITY = (50, 85)
COPY_SKEW_DEG = 1.5  # sheets go onto the platen a little askew
COPY_BLACK, COPY_WHITE = (30, 80), (185, 225)  # copier levels: greys above WHITE come out white
COPY_GAMMA = (0.8, 1.4)
COPY_NOISE = (2.0, 6.0)
COPY_SPECKS = (0.0005, 0.003)  # share of pixels with a toner speck
COPY_SPECK_LEVEL = (40, 110)
COPY_BLUR = (0.4, 0.9)
GREY_FILE_PROBABILITY = 0.5  # copies are saved as one-channel files about half the time
BILEVEL_PROBABILITY = 0.3  # of black-and-white scans: thresholded to two levels (a fax-like scan)
BILEVEL_THRESHOLD = (150, 200)  # grey levels below this come out black: red ink (about 90-130) does


class Capture(Enum):
    """How a page becomes the uploaded image."""

    SCAN = "scan"
    PHOTO = "photo"
    COPY = "copy"
    DIGITAL = "digital"
    GREY_SCAN = "grey scan"


@dataclass(frozen=True)
class Captured:
    """The uploaded image (RGB, or grey H x W), page-to-image matrix, and JPEG quality (None: PNG)."""

    image: Pixels
    matrix: Floats
    quality: int | None


def _scale(page_size: tuple[int, int], size: tuple[int, int]) -> Floats:
    return np.diag([size[0] / page_size[0], size[1] / page_size[1], 1.0])


def _blur(image: Pixels, sigma: float) -> Pixels:
    return as_pixels(cv2.GaussianBlur(image, (0, 0), sigma)) if sigma > MIN_BLUR else image


def _resized(page: Pixels, size: tuple[int, int]) -> tuple[Pixels, Floats]:
    """The page at `size` (as it is when already that size) and the matrix that took it there."""
    matrix = _scale((page.shape[1], page.shape[0]), size)
    if size == (page.shape[1], page.shape[0]):
        return page, matrix
    return as_pixels(cv2.resize(page, size, interpolation=cv2.INTER_AREA)), matrix


def _scan(rng: np.random.Generator, page: Pixels, size: tuple[int, int]) -> Captured:
    image, matrix = _resized(page, size)
    image = _blur(image, rng.uniform(0.0, MAX_SCAN_BLUR))
    png = rng.random() < SCAN_PNG_PROBABILITY
    return Captured(image, matrix, None if png else int(rng.integers(*SCAN_JPEG_QUALITY)))


def _ranges(rng: np.random.Generator, ranges: tuple[tuple[float, float], ...]) -> Floats:
    return np.array([rng.uniform(low, high) for low, high in ranges])


def _photo(rng: np.random.Generator, page: Pixels, size: tuple[int, int]) -> Captured:
    matrix = perspective(rng, (page.shape[1], page.shape[0]), size)
    desk = tuple(float(v) for v in _ranges(rng, DESK_COLOURS[int(rng.integers(len(DESK_COLOURS)))]))
    warped = cv2.warpPerspective(page, matrix, size, flags=cv2.INTER_LINEAR, borderValue=desk)
    light = as_floats(warped).astype(np.float32)
    gains = _ranges(rng, COLD_GAINS if rng.random() < 0.5 else WARM_GAINS) * rng.uniform(*EXPOSURE)
    light *= lighting(rng, size) * gains.astype(np.float32)
    light += rng.normal(0.0, rng.uniform(*PHOTO_NOISE), (size[1], size[0], 1)).astype(np.float32)
    image = _blur(np.clip(light, 0, 255).astype(np.uint8), rng.uniform(*PHOTO_BLUR))
    return Captured(image, matrix, int(rng.integers(*PHOTO_JPEG_QUALITY)))


def _skew(rng: np.random.Generator, page_size: tuple[int, int], size: tuple[int, int]) -> Floats:
    centre = (page_size[0] / 2.0, page_size[1] / 2.0)
    rotation = np.vstack(
        [cv2.getRotationMatrix2D(centre, rng.uniform(-COPY_SKEW_DEG, COPY_SKEW_DEG), 1.0), [0, 0, 1]]
    )
    skew: Floats = _scale(page_size, size) @ rotation
    return skew


def _levels(rng: np.random.Generator, grey: Pixels) -> Floats:
    """Copier contrast: dark greys go black, light greys go white, with a gamma between."""
    black, white = rng.uniform(*COPY_BLACK), rng.uniform(*COPY_WHITE)
    level = np.clip((grey.astype(np.float32) - black) / (white - black), 0.0, 1.0)
    levelled: Floats = level ** rng.uniform(*COPY_GAMMA) * 255.0
    return levelled


def _copy(rng: np.random.Generator, page: Pixels, size: tuple[int, int]) -> Captured:
    matrix = _skew(rng, (page.shape[1], page.shape[0]), size)
    white = (255.0, 255.0, 255.0)
    flat = cv2.warpPerspective(page, matrix, size, flags=cv2.INTER_LINEAR, borderValue=white)
    levels = _levels(rng, as_pixels(cv2.cvtColor(flat, cv2.COLOR_RGB2GRAY)))
    levels += rng.normal(0.0, rng.uniform(*COPY_NOISE), levels.shape).astype(np.float32)
    specks = rng.random(levels.shape) < rng.uniform(*COPY_SPECKS)
    levels[specks] = rng.uniform(*COPY_SPECK_LEVEL)
    grey = _blur(np.clip(levels, 0, 255).astype(np.uint8), rng.uniform(*COPY_BLUR))
    image = grey if rng.random() < GREY_FILE_PROBABILITY else np.repeat(grey[:, :, None], 3, axis=2)
    return Captured(image, matrix, int(rng.integers(*COPY_JPEG_QUALITY)))


def _grey_scan(rng: np.random.Generator, page: Pixels, size: tuple[int, int]) -> Captured:
    flat, matrix = _resized(page, size)
    grey = _blur(as_pixels(cv2.cvtColor(flat, cv2.COLOR_RGB2GRAY)), rng.uniform(0.0, MAX_SCAN_BLUR))
    if rng.random() < BILEVEL_PROBABILITY:
        grey = np.where(grey < rng.uniform(*BILEVEL_THRESHOLD), 0, 255).astype(np.uint8)
        return Captured(grey, matrix, None)  # two levels are saved losslessly
    image = grey if rng.random() < GREY_FILE_PROBABILITY else np.repeat(grey[:, :, None], 3, axis=2)
    return Captured(image, matrix, int(rng.integers(*SCAN_JPEG_QUALITY)))


def _digital(rng: np.random.Generator, page: Pixels, size: tuple[int, int]) -> Captured:
    image, matrix = _resized(page, size)
    return Captured(image, matrix, None)


CAPTURES = {
    Capture.SCAN: _scan,
    Capture.PHOTO: _photo,
    Capture.COPY: _copy,
    Capture.DIGITAL: _digital,
    Capture.GREY_SCAN: _grey_scan,
}


def capture(rng: np.random.Generator, kind: Capture, page: Pixels, size: tuple[int, int]) -> Captured:
    """The page captured as a `size` image (width, height)."""
    return CAPTURES[kind](rng, page, size)


def encode(captured: Captured) -> bytes:
    """The captured image as JPEG or PNG bytes."""
    buffer = io.BytesIO()
    if captured.quality is None:
        Image.fromarray(captured.image).save(buffer, format="PNG", compress_level=1)
    else:
        Image.fromarray(captured.image).save(buffer, format="JPEG", quality=captured.quality)
    return buffer.getvalue()
