"""Seal pages for tests that need many seals on one page, or a PDF of pages.

`seal_grid` cuts the first seal of a generated plain page and repeats it on a white grid,
each copy with a margin, so that every copy is found as a seal of its own (a page of seal
specimens). `as_pdf` (evaluation.support.pdf) writes images as the pages of one PDF.
"""

from __future__ import annotations

import cv2
import numpy as np

from evaluation.seal.dataset import generated_pages
from evaluation.support.pdf import as_pdf  # noqa: F401 - the tests' PDFs, written in one place

GRID_SEED = 20261126
GRID_MARGIN = 30  # white pixels around each copy: copies touching would merge into one blob


def one_seal(seed: int = GRID_SEED) -> np.ndarray:
    """The first seal of a generated plain page, cut by its true box (BGR)."""
    page = next(generated_pages(seed, 1, 0, style="plain"))
    image = cv2.imdecode(np.frombuffer(page.image, np.uint8), cv2.IMREAD_COLOR)
    x0, y0, x1, y1 = (int(v) for v in page.seals[0].box)
    return np.asarray(image[y0:y1, x0:x1])


def seal_grid(rows: int, cols: int) -> np.ndarray:
    """rows x cols copies of one seal on white (BGR)."""
    cell = np.pad(one_seal(), ((GRID_MARGIN,) * 2, (GRID_MARGIN,) * 2, (0, 0)), constant_values=255)
    return np.tile(cell, (rows, cols, 1))


def png(image: np.ndarray) -> bytes:
    return bytes(cv2.imencode(".png", image)[1].tobytes())
