"""Codes read again stretched: CTC merges repeated digits that fall in one of its steps.

A recogniser's CTC steps are a few pixels apart; digits are narrow, and where a code's digits
repeat (32011119...) two of them fall in one step and CTC, which merges repeated characters
not parted by a blank, reads one (3201119...). Read wider, each digit gets more steps. That
merging is the one error stretching undoes, so only that is taken (`restored_repeats`).
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import groupby

import cv2

from imgproc.arrays import Pixels, as_pixels
from imgproc.text import Decoded


def _runs(chars: Sequence[str]) -> list[tuple[str, int]]:
    return [(char, len(list(run))) for char, run in groupby(chars)]


def restored_repeats(read: Decoded, stretched: Decoded) -> Decoded:
    """`stretched` (the same line read from its image stretched along the line) where it only
    repeats some of `read`'s characters more often, else `read`."""
    mine, wide = _runs(read.chars), _runs(stretched.chars)
    same_chars = [char for char, _ in mine] == [char for char, _ in wide]
    if not same_chars or wide == mine:
        return read
    return stretched if all(more >= count for (_, count), (_, more) in zip(mine, wide, strict=True)) else read


def stretched_image(image: Pixels, factor: float) -> Pixels:
    """A line's image stretched along the line by `factor`."""
    width = max(1, round(image.shape[1] * factor))
    return as_pixels(cv2.resize(image, (width, image.shape[0]), interpolation=cv2.INTER_LINEAR))
