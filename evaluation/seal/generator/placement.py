"""Stamping seals onto a page where they fit, and the record of where each one went.

A seal goes to a `Spot` (anywhere, or near a target such as the seller's 销售方（章） label),
at a rotation the spot allows, where its bounding box overlaps no other seal's and no kept-
clear region (a letterhead). Some seals are pushed partly off the page on purpose. The ink
is multiplied onto the page (print under the seal stays visible). The `Stamp` returned keeps
the seal's design, centre and rotation in page pixels, from which `truth` derives the truth.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np
from imgproc.arrays import Floats, Pixels, as_floats
from imgproc.seal.geometry import ellipse_extent, rect_extent

from .render import SealSpec, render_seal
from .texture import Finish, apply_ink, finished, ink_colour

Box = tuple[int, int, int, int]
CUT_PROBABILITY = 0.08  # of seals stamped anywhere: cut by the page edge, as on many real scans
MIN_CUT_FRACTION, MAX_CUT_FRACTION = 0.05, 0.15  # of a cut seal's extent that lies off the page
OVAL_TILT_DEG = 20.0  # oval and rectangular seals are stamped roughly level
PLACEMENT_TRIES = 50
EDGE_MARGIN = 2  # px between an uncut seal and the page edge


@dataclass(frozen=True)
class Spot:
    """Where a seal may go: near `target` (page pixels, None: anywhere), and how it may turn."""

    target: tuple[float, float] | None = None
    jitter: float = 0.0  # px either way around the target
    tilt_deg: float | None = None  # at most this rotation either way; None: round seals turn freely
    cut_probability: float = CUT_PROBABILITY


ANYWHERE = Spot()


@dataclass(frozen=True)
class Ink:
    """The colour a seal is stamped or printed in (None: a stamp-pad colour drawn as it is
    stamped), and how the ink reached the page."""

    colour: tuple[float, float, float] | None = None
    finish: Finish = Finish.STAMPED


STAMP_PAD = Ink()


@dataclass(frozen=True)
class Stamp:
    """One seal on the page, in page pixels, before the page is captured."""

    spec: SealSpec
    centre: tuple[float, float]
    angle_deg: float  # rotation of the seal's upright x axis, clockwise on screen
    faint: bool
    finish: Finish


def _rotated(density: Floats, angle_deg: float) -> Floats:
    """The density canvas rotated clockwise on screen, on a canvas that holds all of it."""
    height, width = density.shape
    side = int(np.ceil(np.hypot(width, height))) + 2
    matrix = as_floats(cv2.getRotationMatrix2D((width / 2.0, height / 2.0), -angle_deg, 1.0))
    matrix[:, 2] += [(side - width) / 2.0, (side - height) / 2.0]
    return as_floats(cv2.warpAffine(density, matrix, (side, side), flags=cv2.INTER_LINEAR))


def extent(spec: SealSpec, angle_deg: float) -> tuple[float, float]:
    """Half width and half height of the rotated seal's bounding box."""
    extent = rect_extent if spec.shape == "rect" else ellipse_extent
    return extent(spec.axes, angle_deg)


def _random_centre(
    rng: np.random.Generator, half: tuple[float, float], size: tuple[int, int], cut: bool
) -> Floats:
    low = np.array(half) + EDGE_MARGIN
    high = np.array(size) - np.array(half) - EDGE_MARGIN
    centre = rng.uniform(low, np.maximum(high, low + 1))
    if cut:
        axis, side = int(rng.integers(2)), int(rng.integers(2))
        overhang = rng.uniform(MIN_CUT_FRACTION, MAX_CUT_FRACTION) * 2 * half[axis]
        centre[axis] = half[axis] - overhang if side == 0 else size[axis] - half[axis] + overhang
    return centre


def _candidate(
    rng: np.random.Generator, spot: Spot, half: tuple[float, float], size: tuple[int, int], cut: bool
) -> Floats:
    if spot.target is None:
        return _random_centre(rng, half, size, cut)
    jittered: Floats = np.array(spot.target) + rng.uniform(-spot.jitter, spot.jitter, 2)
    return jittered


def overlaps(box: Box, boxes: list[Box]) -> bool:
    """Whether `box` overlaps any of `boxes`."""
    return any(box[0] < o[2] and o[0] < box[2] and box[1] < o[3] and o[1] < box[3] for o in boxes)


def _box(centre: Floats, half: tuple[float, float], size: tuple[int, int]) -> Box:
    x0, y0 = centre - half
    x1, y1 = centre + half
    return max(0, int(x0)), max(0, int(y0)), min(size[0], int(np.ceil(x1))), min(size[1], int(np.ceil(y1)))


def _angle(rng: np.random.Generator, spec: SealSpec, spot: Spot) -> float:
    if spot.tilt_deg is not None:
        return float(rng.uniform(-spot.tilt_deg, spot.tilt_deg)) if spot.tilt_deg else 0.0
    return float(rng.uniform(0, 360) if spec.shape == "round" else rng.uniform(-OVAL_TILT_DEG, OVAL_TILT_DEG))


def _find_room(
    rng: np.random.Generator, spec: SealSpec, spot: Spot, size: tuple[int, int], taken: list[Box]
) -> tuple[Floats, float] | None:
    """A centre and rotation where the seal overlaps nothing taken, or None."""
    angle = _angle(rng, spec, spot)
    half = extent(spec, angle)
    cut = rng.random() < spot.cut_probability
    for _ in range(PLACEMENT_TRIES):
        centre = _candidate(rng, spot, half, size, cut)
        box = _box(centre, half, size)
        if box[2] > box[0] and box[3] > box[1] and not overlaps(box, taken):
            taken.append(box)
            return centre, angle
    return None


def stamp_seal(
    rng: np.random.Generator,
    page: Pixels,
    spec: SealSpec,
    taken: list[Box],
    ink: Ink = STAMP_PAD,
    spot: Spot = ANYWHERE,
) -> Stamp | None:
    """Stamp one seal onto the RGB page in place, clear of `taken` (which it joins); None if no room.

    A seal that finds no room at its spot is tried anywhere on the page.
    """
    size = (page.shape[1], page.shape[0])
    room = _find_room(rng, spec, spot, size, taken)
    if room is None and spot.target is not None:
        room = _find_room(rng, spec, ANYWHERE, size, taken)
    if room is None:
        return None
    centre, angle = room
    return stamp_at(rng, page, spec, (float(centre[0]), float(centre[1])), angle, ink)


def stamp_at(
    rng: np.random.Generator,
    page: Pixels,
    spec: SealSpec,
    centre: tuple[float, float],
    angle_deg: float,
    ink: Ink = STAMP_PAD,
) -> Stamp:
    """Stamp one seal onto the RGB page in place at `centre`, turned `angle_deg`, over whatever
    is there (seals stamped over each other: the ink of both multiplies)."""
    density, faint = finished(rng, ink.finish, render_seal(spec))
    colour = ink_colour(rng) if ink.colour is None else np.array(ink.colour)
    apply_ink(page, _rotated(density, angle_deg), np.asarray(centre), colour)
    return Stamp(spec, (float(centre[0]), float(centre[1])), angle_deg % 360.0, faint, ink.finish)
