"""Seals stamped over each other (imgproc.seal.fit.overlap and find's use of it): two or three
rings crossing in one blob of ink, each found on its own; one seal is still found once."""

from __future__ import annotations

from dataclasses import replace

import cv2
import numpy as np
import pytest
from imgproc.seal.find import find_seals
from imgproc.seal.fit import DEFAULT_FIT, crossing, distinct
from imgproc.seal.fit.params import OverlapParams
from imgproc.seal.records import Outline, Shape

RED = (220, 30, 40)  # RGB
PALER = (235, 90, 110)  # another body's pad
WHITE = (255, 255, 255)


def page(width: int = 1500, height: int = 1000) -> np.ndarray:
    return np.full((height, width, 3), WHITE, np.uint8)


def stamp(
    image: np.ndarray, centre: tuple[int, int], radius: int, colour: tuple[int, int, int] = RED
) -> None:
    """A round seal multiplied onto the page: a ring, radial bars where the rim text is, a star's
    blot inside (the ink of two seals where they cross is darker, as real ink is)."""
    seal = np.full_like(image, 255)
    cv2.circle(seal, centre, radius, colour, 7)
    for t in np.linspace(0.3, 2 * np.pi - 0.3, 16):
        unit = np.array([np.cos(t), np.sin(t)]) * radius
        inner, outer = np.array(centre) + 0.65 * unit, np.array(centre) + 0.82 * unit
        cv2.line(seal, tuple(int(v) for v in inner), tuple(int(v) for v in outer), colour, 5)
    cv2.circle(seal, centre, radius // 5, colour, -1)
    image[:] = (image.astype(np.float32) * seal.astype(np.float32) / 255.0).astype(np.uint8)


def found(image: np.ndarray, overlap: OverlapParams | None = None) -> list[tuple[int, int]]:
    fit = DEFAULT_FIT if overlap is None else replace(DEFAULT_FIT, overlap=overlap)
    return sorted((round(s.center[0]), round(s.center[1])) for s in find_seals(image, fit=fit))


def circle(x: float, y: float, r: float) -> Outline:
    return Outline(Shape.ROUND, (x, y), (r, r), 0.0)


def test_two_seals_stamped_over_each_other_are_two_seals() -> None:
    image = page()
    stamp(image, (600, 500), 150)
    stamp(image, (820, 530), 150, PALER)  # 220 px apart: they cross by a quarter of a diameter
    assert found(image) == [pytest.approx((600, 500), abs=5), pytest.approx((820, 530), abs=5)]
    assert len(found(image, OverlapParams(enabled=False))) == 1  # one blob, one seal, before


def test_three_seals_in_a_row_each_overlapping_the_next_are_three_seals() -> None:
    image = page()
    for x in (450, 700, 950):
        stamp(image, (x, 500), 150)  # level, as the seals of a joint notice: each end has a neighbour
    assert found(image) == [pytest.approx((x, 500), abs=5) for x in (450, 700, 950)]


def test_one_seal_is_found_once() -> None:
    image = page()
    stamp(image, (700, 500), 150)
    assert found(image) == [pytest.approx((700, 500), abs=5)]


def test_two_fits_are_two_seals_only_where_each_runs_outside_the_other() -> None:
    seal = circle(500, 500, 150)
    assert distinct(seal, circle(720, 520, 150)) and crossing(seal, circle(720, 520, 150))
    assert not distinct(seal, circle(510, 505, 145))  # the same ring fitted twice
    assert not distinct(seal, circle(560, 480, 30))  # a character of it
    assert not distinct(seal, circle(500, 500, 125))  # its inner ring
    assert distinct(seal, circle(900, 500, 150)) and not crossing(seal, circle(900, 500, 150))  # side by side
    assert not distinct(seal, Outline(Shape.RECT, (720.0, 520.0), (150.0, 80.0), 0.0))  # rectangles: no rings


def test_seals_that_only_touch_do_not_cross() -> None:
    seal = circle(500, 500, 150)
    assert not crossing(seal, circle(804, 500, 150))  # 4 px apart: within a fit's error of touching
    assert not crossing(seal, circle(796, 500, 150))  # 4 px over
    assert crossing(seal, circle(700, 500, 150))
