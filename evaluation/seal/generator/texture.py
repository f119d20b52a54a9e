"""Ink for synthetic seals: colour, uneven pressure, missing-ink speckle, multiply blending.

A real impression is never a flat colour: the pressure falls off across the stamp, the pad
leaves blotches, small spots get no ink at all, and some impressions are faint. The page is
multiplied by the ink colour in proportion to the density, so black print under the seal
stays black and the paper colour shows through thin ink. A seal printed with a form (the
监制章) is even and slightly soft; an e-seal on a rendered e-invoice is solid, with sharp
edges (`Finish`).
"""

from __future__ import annotations

from enum import Enum

import cv2
import numpy as np
from imgproc.arrays import Floats, Pixels, as_floats

INK_PALETTE = (  # RGB: red (twice as likely), vermilion, pinkish red, deep red
    ((205, 240), (10, 50), (25, 60)),
    ((205, 240), (10, 50), (25, 60)),
    ((225, 250), (55, 90), (25, 55)),
    ((215, 245), (60, 110), (90, 130)),
    ((165, 200), (5, 35), (25, 55)),
)
FAINT_PROBABILITY = 0.12
FAINT_INTENSITY = (0.4, 0.6)
FAINT_MAX_UNEVENNESS = 0.2  # a faint impression is evenly faint, or it would be unreadable
NORMAL_INTENSITY = (0.8, 1.0)
BLOTCH_GRID = 6
BLOTCH_DEPTH = (0.05, 0.4)
GRADIENT_DEPTH = (0.0, 0.4)
SPECKLE_CELL_PX = 2.5
SPECKLE_FRACTION = (0.02, 0.15)
DIGITAL_PALETTE = ((225, 255), (0, 35), (0, 35))  # e-seals are drawn in a saturated pure red
PRINTED_INTENSITY = (0.9, 1.0)  # a press lays ink evenly, a little lighter or darker per run
PRINTED_BLOTCH = (0.0, 0.12)
PRINTED_SOFTNESS = 0.7  # px: offset print is slightly soft, but has no missing-ink speckle


class Finish(Enum):
    """How the ink of a seal reached the page."""

    STAMPED = "stamped"  # a wet-ink impression: uneven pressure, speckle, sometimes faint
    PRINTED = "printed"  # printed with the form (the 监制章): even and slightly soft
    DIGITAL = "digital"  # an e-seal image on a rendered document: solid, sharp edges


def ink_colour(rng: np.random.Generator) -> Floats:
    """An RGB seal ink colour."""
    ranges = INK_PALETTE[int(rng.integers(len(INK_PALETTE)))]
    return np.array([rng.uniform(low, high) for low, high in ranges])


def digital_colour(rng: np.random.Generator) -> Floats:
    """The RGB red of an e-seal."""
    return np.array([rng.uniform(low, high) for low, high in DIGITAL_PALETTE])


def _smooth_noise(rng: np.random.Generator, shape: tuple[int, ...], cells: int) -> Floats:
    """Noise in [0, 1] that varies over about `cells` cells per side."""
    coarse = rng.random((cells, cells)).astype(np.float32)
    return as_floats(cv2.resize(coarse, (shape[1], shape[0]), interpolation=cv2.INTER_CUBIC)).clip(0.0, 1.0)


def _gradient(rng: np.random.Generator, shape: tuple[int, ...]) -> Floats:
    """A linear ramp in [0, 1] in a random direction: one side of the stamp pressed harder."""
    theta = rng.uniform(0, 2 * np.pi)
    ys, xs = np.mgrid[0 : shape[0], 0 : shape[1]].astype(np.float32)
    ramp = xs * np.cos(theta) + ys * np.sin(theta)
    normalised: Floats = (ramp - ramp.min()) / max(float(np.ptp(ramp)), 1.0)
    return normalised


def _speckle(rng: np.random.Generator, shape: tuple[int, ...]) -> Floats:
    """1 where ink reached the paper, 0 in small missing spots."""
    small = (max(2, int(shape[0] / SPECKLE_CELL_PX)), max(2, int(shape[1] / SPECKLE_CELL_PX)))
    noise = cv2.resize(
        rng.random(small).astype(np.float32), (shape[1], shape[0]), interpolation=cv2.INTER_LINEAR
    )
    return (noise >= rng.uniform(*SPECKLE_FRACTION)).astype(np.float32)


def ink_density(rng: np.random.Generator, shape_density: Floats) -> tuple[Floats, bool]:
    """Textured ink density from a clean seal drawing, and whether the impression is faint."""
    faint = bool(rng.random() < FAINT_PROBABILITY)
    intensity = rng.uniform(*(FAINT_INTENSITY if faint else NORMAL_INTENSITY))
    shape = shape_density.shape
    cap = FAINT_MAX_UNEVENNESS if faint else 1.0
    blotch = 1.0 - min(cap, rng.uniform(*BLOTCH_DEPTH)) * _smooth_noise(rng, shape, BLOTCH_GRID)
    pressure = 1.0 - min(cap, rng.uniform(*GRADIENT_DEPTH)) * _gradient(rng, shape)
    density = shape_density * blotch * pressure * _speckle(rng, shape) * intensity
    return as_floats(cv2.GaussianBlur(density, (0, 0), 0.6)), faint


def apply_ink(page: Pixels, density: Floats, centre: Floats, colour: Floats) -> None:
    """Multiply-blend `density` (centred at `centre`) in `colour` onto the RGB page, in place."""
    height, width = density.shape
    x0, y0 = int(round(centre[0] - width / 2.0)), int(round(centre[1] - height / 2.0))
    px0, py0 = max(0, x0), max(0, y0)
    px1, py1 = min(page.shape[1], x0 + width), min(page.shape[0], y0 + height)
    if px1 <= px0 or py1 <= py0:
        return
    d = density[py0 - y0 : py1 - y0, px0 - x0 : px1 - x0, None]
    region = page[py0:py1, px0:px1].astype(np.float32)
    page[py0:py1, px0:px1] = (region * (1.0 - d + d * colour / 255.0)).clip(0, 255).astype(np.uint8)


def _printed(rng: np.random.Generator, shape_density: Floats) -> Floats:
    blotch = 1.0 - rng.uniform(*PRINTED_BLOTCH) * _smooth_noise(rng, shape_density.shape, BLOTCH_GRID)
    density = shape_density * blotch * rng.uniform(*PRINTED_INTENSITY)
    return as_floats(cv2.GaussianBlur(density, (0, 0), PRINTED_SOFTNESS))


def finished(rng: np.random.Generator, finish: Finish, shape_density: Floats) -> tuple[Floats, bool]:
    """The ink density a seal drawing leaves with `finish`, and whether it is faint."""
    if finish is Finish.STAMPED:
        return ink_density(rng, shape_density)
    if finish is Finish.PRINTED:
        return _printed(rng, shape_density), False
    return shape_density, False
