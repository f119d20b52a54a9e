"""Ballpoint signatures and scribbles written across a seal.

Real seals are stamped over the signature of whoever signs (or signed over afterwards), so a
dark pen stroke crosses the ring and the rim text. A signature here is two or three scrawled
characters (each a smooth Catmull-Rom spline zigzagging through random points in its cell)
along a sloping baseline across the seal, joined when written cursively, sometimes with a
final flourish, drawn 1.5-3 px wide in black or blue ballpoint ink.
"""

from __future__ import annotations

import cv2
import numpy as np
from imgproc.arrays import Floats, Pixels

from .texture import apply_ink

Box = tuple[int, int, int, int]
PEN_COLOURS = (  # RGB ballpoint ink: black, blue, dark blue
    (25, 25, 35),
    (35, 60, 160),
    (30, 40, 110),
)
PEN_WIDTHS = (1, 2, 2, 3)  # anti-aliased widths in px, ~1.5 to 3 px of visible stroke
PEN_DENSITY = (0.75, 0.95)  # ballpoint ink is dark but lets a little paper through
CHARACTERS = (2, 4)  # a Chinese name, signed: two or three scrawled characters
POINTS_PER_CHARACTER = (4, 9)  # control points of one scrawled character
CHARACTER_WIDTH = (0.16, 0.3)  # of the seal's width
CHARACTER_HEIGHT = (0.18, 0.36)  # of the seal's height
CHARACTER_GAP = (-0.03, 0.06)  # of the seal's width; below zero the characters overlap
CURSIVE_PROBABILITY = 0.5  # the pen stays down between characters
FLOURISH_PROBABILITY = 0.4  # a last stroke sweeping away to the right
FLOURISH_REACH = (0.15, 0.4)  # of the seal's width
FLOURISH_SHAPE = ((0.0, 0.0), (0.5, 0.05), (1.0, -0.02))  # x in reaches, y in seal heights: a dip
START = (0.0, 0.5)  # of the seal's width from its left edge: signatures start in the left half
BASELINE_SPREAD = 0.3  # of the seal's height: where the baseline crosses the seal
SLOPE = (-0.25, 0.1)  # baseline slope: signatures rise to the right more often than they fall
SAMPLES_PER_SEGMENT = 12
SUBPIXEL_BITS = 3  # cv2 polylines fixed-point precision, for smooth curves
MARGIN_PX = 8  # around the drawn strokes, so their anti-aliased edges are kept


def _character(rng: np.random.Generator, left: float, baseline: float, size: Floats) -> Floats:
    """Control points of one scrawled character: a zigzag inside its cell."""
    count = int(rng.integers(*POINTS_PER_CHARACTER))
    return np.stack([left + rng.random(count) * size[0], baseline - rng.random(count) * size[1]], axis=1)


def _flourish(rng: np.random.Generator, end: Floats, seal: Floats) -> Floats:
    scale = np.array([rng.uniform(*FLOURISH_REACH) * seal[0], seal[1]])
    flourish: Floats = end + np.array(FLOURISH_SHAPE) * scale
    return flourish


def _strokes(rng: np.random.Generator, box: Box) -> list[Floats]:
    """Control points of the strokes of a signature across `box`, pen lifts between strokes."""
    seal = np.array([box[2] - box[0], box[3] - box[1]], np.float64)
    x = box[0] + seal[0] * rng.uniform(*START)
    baseline = (box[1] + box[3]) / 2.0 + rng.uniform(-BASELINE_SPREAD, BASELINE_SPREAD) * seal[1]
    slope, strokes = rng.uniform(*SLOPE), []
    for _ in range(int(rng.integers(*CHARACTERS))):
        size = np.array([rng.uniform(*CHARACTER_WIDTH), rng.uniform(*CHARACTER_HEIGHT)]) * seal
        strokes.append(_character(rng, x, baseline + slope * (x - box[0]), size))
        x += size[0] + rng.uniform(*CHARACTER_GAP) * seal[0]
    if rng.random() < CURSIVE_PROBABILITY:
        strokes = [np.vstack(strokes)]
    if rng.random() < FLOURISH_PROBABILITY:
        strokes.append(_flourish(rng, strokes[-1][-1], seal))
    return strokes


def catmull_rom(points: Floats, samples: int = SAMPLES_PER_SEGMENT) -> Floats:
    """A smooth curve through `points` (N x 2), `samples` points per segment."""
    padded = np.vstack([points[:1], points, points[-1:]])
    t = np.linspace(0.0, 1.0, samples, endpoint=False)[:, None]
    curve = []
    for p0, p1, p2, p3 in zip(padded[:-3], padded[1:-2], padded[2:-1], padded[3:], strict=True):
        curve.append(
            0.5
            * (
                2 * p1
                + (p2 - p0) * t
                + (2 * p0 - 5 * p1 + 4 * p2 - p3) * t**2
                + (3 * p1 - p0 - 3 * p2 + p3) * t**3
            )
        )
    return np.vstack([*curve, points[-1:]])


def _stroke_density(curves: list[Floats], width: int) -> tuple[Floats, Floats]:
    """The strokes drawn on a tight canvas (density in [0, 1]) and the canvas's centre."""
    points = np.vstack(curves)
    low = np.floor(points.min(axis=0)) - MARGIN_PX
    high = np.ceil(points.max(axis=0)) + MARGIN_PX
    canvas = np.zeros((int(high[1] - low[1]), int(high[0] - low[0])), np.uint8)
    fixed = [np.rint((curve - low) * (1 << SUBPIXEL_BITS)).astype(np.int32) for curve in curves]
    cv2.polylines(canvas, fixed, False, (255,), width, cv2.LINE_AA, shift=SUBPIXEL_BITS)
    return canvas.astype(np.float32) / 255.0, low + np.array(canvas.shape[::-1]) / 2.0


def sign_across(rng: np.random.Generator, page: Pixels, box: Box) -> None:
    """Write a ballpoint signature across the seal whose box is `box`, on the RGB page in place."""
    curves = [catmull_rom(stroke) for stroke in _strokes(rng, box)]
    density, centre = _stroke_density(curves, PEN_WIDTHS[int(rng.integers(len(PEN_WIDTHS)))])
    colour = np.array(PEN_COLOURS[int(rng.integers(len(PEN_COLOURS)))], np.float64)
    apply_ink(page, density * rng.uniform(*PEN_DENSITY), centre, colour)
