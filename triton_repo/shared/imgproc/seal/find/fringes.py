"""The red-ink mask seals are found on: white-balanced, without the coloured fringes of dark print.

A phone photo or a JPEG keeps colour at a lower resolution than brightness, so the grey edges
of black text, rules and handwriting come out tinted, often reddish, and pass the red mask's
low saturation floors (which faint seals need). Those pixels lie right beside dark print and
are dull and greyish; seal ink crossing the print is either far more saturated or, faint,
nearly as light as paper. So such pixels within a few pixels of dark print are dropped.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from imgproc.arrays import Mask, Pixels

from ..ink import DEFAULT_INK, InkParams, in_range, red_mask_hsv


@dataclass(frozen=True)
class FringeParams:
    """Dark print and its tinted edges."""

    dark_max_value: int = 110  # HSV value of dark print (black text, rules, handwriting)
    reach_px: int = 3  # how far from dark print its tinted edge reaches, in the searched page's pixels
    max_saturation: int = 60  # edge pixels duller than this are not ink (seal ink there: 90+)...
    max_value: int = 200  # ...and darker than this (a faint seal's ink is as light as paper)


DEFAULT_FRINGE = FringeParams()


def print_fringes(hsv: Pixels, params: FringeParams = DEFAULT_FRINGE) -> Mask:
    """Boolean mask of dull, darkish pixels within `reach_px` of dark print."""
    hsv = np.ascontiguousarray(hsv)
    dark = in_range(hsv, (0, 0, 0), (255, 255, params.dark_max_value))
    side = 2 * params.reach_px + 1
    near = cv2.dilate(dark, cv2.getStructuringElement(cv2.MORPH_RECT, (side, side)))
    dull = in_range(hsv, (0, 0, 0), (255, params.max_saturation - 1, params.max_value - 1))
    return cv2.bitwise_and(near, dull) > 0


def finding_mask(hsv: Pixels, ink: InkParams = DEFAULT_INK, fringe: FringeParams = DEFAULT_FRINGE) -> Mask:
    """Boolean mask of the red ink on a white-balanced HSV page, for finding seals."""
    return red_mask_hsv(hsv, ink) & ~print_fringes(hsv, fringe)
