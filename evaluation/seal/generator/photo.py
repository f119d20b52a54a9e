"""The geometry and light of a phone photo of a sheet: a mild perspective, uneven lighting.

The sheet's corners land near the photo's corners, each moved in (the desk shows around
the sheet) or a little out (the photo crops the sheet), which also turns and keystones it.
Light falls off across the sheet in one direction and towards the corners (vignetting).
"""

from __future__ import annotations

import cv2
import numpy as np
from imgproc.arrays import Floats, as_floats

CORNER_SHIFT = (-0.02, 0.08)  # of the photo's size: out (the sheet is cropped) to in (desk shows)
SHADE_DEPTH = (0.1, 0.4)  # brightness lost from the lit side to the far side
VIGNETTE = (0.0, 0.25)  # brightness lost at the corners
LIGHT_GRID = 16  # the light varies smoothly: computed on a small grid and resized
INWARD = np.array([[1, 1], [-1, 1], [-1, -1], [1, -1]], np.float32)  # towards the centre, per corner


def _corners(width: float, height: float) -> Floats:
    return np.array([[0, 0], [width, 0], [width, height], [0, height]], np.float32)


def perspective(rng: np.random.Generator, page_size: tuple[int, int], size: tuple[int, int]) -> Floats:
    """A 3 x 3 matrix taking the page into a `size` photo in mild perspective."""
    shift = rng.uniform(*CORNER_SHIFT, (4, 2)).astype(np.float32) * np.array(size, np.float32)
    target = _corners(*size) + INWARD * shift
    return as_floats(cv2.getPerspectiveTransform(_corners(*page_size), target)).astype(np.float64)


def lighting(rng: np.random.Generator, size: tuple[int, int]) -> Floats:
    """A smooth H x W x 1 brightness field in (0, 1]: a fall-off in one direction and a vignette."""
    ys, xs = np.mgrid[-1.0 : 1.0 : LIGHT_GRID * 1j, -1.0 : 1.0 : LIGHT_GRID * 1j]
    theta = rng.uniform(0.0, 2.0 * np.pi)
    ramp = xs * np.cos(theta) + ys * np.sin(theta)
    shade = 1.0 - rng.uniform(*SHADE_DEPTH) * (ramp - ramp.min()) / np.ptp(ramp)
    field = shade * (1.0 - rng.uniform(*VIGNETTE) * (xs**2 + ys**2) / 2.0)
    return as_floats(cv2.resize(field.astype(np.float32), size, interpolation=cv2.INTER_CUBIC))[:, :, None]
