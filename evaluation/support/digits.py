"""MNIST digits for tests, training and evaluation, and one definition of a "phone photo".

`load_mnist` reads the IDX files of the shared MNIST test set (never copied into the project).
The first 8,000 digits train the model and the last 2,000 are held out. `photo_style` renders
a 28x28 digit the way a phone sees a digit written on paper: dark ink on a larger, unevenly
lit sheet, off centre, blurred, noisy and JPEG-compressed. Training augmentation, the
evaluation script and the integration tests all use this one function.
"""

from __future__ import annotations

import gzip
import os
from pathlib import Path
from typing import Literal

import cv2
import numpy as np
from imgproc.arrays import Floats, Pixels, as_floats

DATA_ENV = "MNIST_DIR"
DEFAULT_DATA_DIR = Path(__file__).resolve().parents[2].parent / "shared" / "datasets" / "mnist"
IMAGES_FILE = "t10k-images-idx3-ubyte.gz"
LABELS_FILE = "t10k-labels-idx1-ubyte.gz"
IDX_IMAGES_MAGIC = 2051
IDX_LABELS_MAGIC = 2049
TRAIN_COUNT = 8_000  # the first 8,000 train; the last 2,000 are held out
MNIST_SIDE = 28

Split = Literal["train", "heldout", "all"]

# Photo rendering ranges, chosen to cover ordinary phone shots of one digit on paper.
CANVAS_FACTOR = (3.0, 6.0)  # canvas side as a multiple of 28 px
DIGIT_FILL = (0.35, 0.75)  # the digit's 28 px field as a share of the canvas side
PAPER_LEVEL = (160.0, 245.0)
INK_LEVEL = (10.0, 70.0)
LIGHT_GRADIENT = (0.0, 0.3)  # fraction of the paper level lost across the sheet
BLUR_SIGMA = (0.3, 1.2)  # in pixels of the input digit image
NOISE_SIGMA = (1.0, 6.0)
JPEG_QUALITY = (35, 90)
LIGHT_GRID = 9


def data_dir() -> Path:
    """Where the MNIST IDX files live: $MNIST_DIR, else <project>/../shared/datasets/mnist."""
    return Path(os.environ.get(DATA_ENV, DEFAULT_DATA_DIR))


def load_mnist(split: Split = "all", root: Path | None = None) -> tuple[Pixels, Pixels]:
    """Return (images uint8 [N,28,28], labels uint8 [N]); raises FileNotFoundError or ValueError."""
    folder = root or data_dir()
    images = _read_idx(folder / IMAGES_FILE, IDX_IMAGES_MAGIC).reshape(-1, MNIST_SIDE, MNIST_SIDE)
    labels = _read_idx(folder / LABELS_FILE, IDX_LABELS_MAGIC)
    if len(images) != len(labels):
        raise ValueError(f"{len(images)} images but {len(labels)} labels in {folder}")
    if split == "train":
        return images[:TRAIN_COUNT], labels[:TRAIN_COUNT]
    if split == "heldout":
        return images[TRAIN_COUNT:], labels[TRAIN_COUNT:]
    return images, labels


def _read_idx(path: Path, magic: int) -> Pixels:
    """Read a gzipped IDX file of unsigned bytes (header: magic, then one int32 per dimension)."""
    data = gzip.decompress(path.read_bytes())
    found = int.from_bytes(data[:4], "big")
    if found != magic:
        raise ValueError(f"{path} has IDX magic {found}, expected {magic}")
    dims = magic & 0xFF  # the magic's low byte counts the dimensions; each adds an int32 size
    header = 4 + 4 * dims
    return np.frombuffer(data, dtype=np.uint8, offset=header).copy()


def photo_style(digit28: Pixels, rng: np.random.Generator) -> bytes:
    """Render a white-on-black square digit image (MNIST's 28x28, or larger) as a JPEG photo."""
    canvas_side = round(MNIST_SIDE * rng.uniform(*CANVAS_FACTOR))
    field = max(MNIST_SIDE, round(canvas_side * rng.uniform(*DIGIT_FILL)))
    ink = _place(_enlarge(digit28, field, rng), canvas_side, rng)
    paper = _paper(canvas_side, rng)
    photo = paper - (paper - rng.uniform(*INK_LEVEL)) * ink
    photo += rng.uniform(*NOISE_SIGMA) * rng.standard_normal(photo.shape, dtype=np.float32)
    pixels = np.clip(photo, 0, 255).astype(np.uint8)
    quality = int(rng.integers(JPEG_QUALITY[0], JPEG_QUALITY[1] + 1))
    ok, encoded = cv2.imencode(".jpg", pixels, [cv2.IMWRITE_JPEG_QUALITY, quality])
    if not ok:
        raise ValueError("JPEG encoding failed")
    return encoded.tobytes()


def _enlarge(digit: Pixels, field: int, rng: np.random.Generator) -> Floats:
    """Resize the digit to `field` px and blur it like an out-of-focus lens; values in [0, 1]."""
    interpolation = cv2.INTER_AREA if field < digit.shape[0] else cv2.INTER_CUBIC
    big = cv2.resize(digit.astype(np.float32) / 255.0, (field, field), interpolation=interpolation)
    sigma = rng.uniform(*BLUR_SIGMA) * field / digit.shape[0]
    return np.clip(as_floats(cv2.GaussianBlur(big, (0, 0), sigma)), 0.0, 1.0)


def _place(field_image: Floats, canvas_side: int, rng: np.random.Generator) -> Floats:
    """Put the digit's field somewhere on a larger empty canvas, usually off centre."""
    canvas = np.zeros((canvas_side, canvas_side), np.float32)
    size = field_image.shape[0]
    top, left = (int(rng.integers(0, canvas_side - size + 1)) for _ in range(2))
    canvas[top : top + size, left : left + size] = field_image
    return canvas


def _paper(side: int, rng: np.random.Generator) -> Floats:
    """A sheet lit unevenly: brightest at a random point, darker linearly away from it."""
    # Lighting is smooth, so it is drawn on a coarse grid and upsampled (much cheaper).
    yy, xx = np.mgrid[0:LIGHT_GRID, 0:LIGHT_GRID].astype(np.float32) / (LIGHT_GRID - 1)
    cy, cx = rng.uniform(0.0, 1.0, 2)
    distance = np.hypot(yy - cy, xx - cx) / np.sqrt(2.0)
    level = rng.uniform(*PAPER_LEVEL)
    coarse = level * (1.0 - rng.uniform(*LIGHT_GRADIENT) * distance)
    return as_floats(cv2.resize(coarse, (side, side), interpolation=cv2.INTER_LINEAR))
