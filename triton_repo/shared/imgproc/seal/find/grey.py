"""Grey photocopies: a seal that lost its colour is found as a dark ring instead of a red one.

A photocopy or a grey scan of a stamped page has no red left; the seal is toner like the
print around it. On a page with almost no saturated pixel, seals are therefore sought in the
mask of everything darker than paper (at a few levels of darkness: copies differ in how dark
they make a seal), and only as ellipses held to stricter checks than red
ones (a ring inked almost all round, thin, with text inside but not solid; one merged with
the print it was stamped on is fitted through the blob's hull, `robust`, or moved onto the
ring near a fit the table's rules dragged off it, `snap`; sought once more in the toner
without its long lines, where closing made one blob of the page, `lineless`): black print has
rectangles everywhere (tables, boxes), so a grey rectangle is never taken for a seal, and a
printed circle or a letter O must be a near-perfect thin ring with writing inside.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from imgproc.arrays import Mask, Pixels


@dataclass(frozen=True)
class GreyParams:
    """A grey page's toner mask, and the stricter checks seals found in it must pass (`ink.is_grey`
    tells a grey page)."""

    max_value: int = 200  # on the white-balanced page, toner is darker than this (seals: 80-215)
    # A photocopy's seal is as dark as the copier made it: at one threshold a pale one's ring
    # breaks into pieces, a dark one's merges with the print and speckle around it. So seals
    # are also sought in the toner darker than each of these (a ladder 20 apart round
    # `max_value`). Tuning part made grey: recall 0.686 -> 0.771; generated photocopies
    # (seeds 14000/15000/16000): 0.560/0.625/0.522 -> 0.720/0.708/0.739; no false seal on the
    # grey real pages with their seals painted out. Each level costs a grey page one search
    # more (about 130 ms); either level alone finds about half the gain.
    other_values: tuple[int, ...] = (180, 220)
    # Black print has circles and letter O's: a grey seal's ring is inked almost all round...
    min_coverage: float = 0.9
    min_fill: float = 0.02  # ...the interior holds writing...
    max_fill: float = 0.45  # ...but is not a blot of print
    # A seal merged with the table and print it was stamped on (one blob of toner) is tried with
    # a RANSAC ellipse through the blob's hull, as red ones are. Tuning part made grey: recall
    # 0.600 -> 0.657 (rims 12 -> 13/25), generated seed 7000 one supervision seal more, no
    # false seal on any page; finding on the 39 grey pages takes 4.28 s against 4.02 s.
    robust: bool = True
    # A seal stamped across a table's rules is one blob with them, and the contour's fit is
    # dragged off the ring; moved back onto the ring (`fit.snap`) it passes. Recall:
    # generated seeds 7000 0.958 -> 0.966 and 17000 0.975 -> 0.983 (a rim more), photocopy
    # seeds 14000/15000 (24 pages each) 0.714/0.729 -> 0.735/0.750; the tuning part made
    # grey alike; no false seal. Costs a grey page about 45 ms. On red pages (`fit.snap`)
    # it lost a seal of the tuning part at half size, so it is off there.
    snap: bool = True
    # Toner is everywhere on a copy: closed, a seal's ring joins the print it crosses, and
    # that print the rules and frames it touches, until the blob is the page (a licence's
    # fields and frame, a form's table), which no fit outlines. So a last pass takes the blobs
    # of the toner without its long straight lines (`FindParams.lineless`), judging them on
    # the toner as it is (the ring is whole there). Tuning part made grey: recall 0.771 ->
    # 0.886, rims 17 -> 19/25 (CER 0.157 -> 0.099); generated licence copies (seed 42000) and
    # black-and-white scans (44000): recall 0.494 -> 0.682 and 0.494 -> 0.635, rims 5 -> 5 and
    # 12 -> 15; no other set changed, no false seal on any page without one.
    lineless: bool = True
    # The lines: runs at least `line_length` of the working long side along a row or column,
    # allowing `line_drift_px` of drift (a copy is a degree or two askew). A seal's ring is
    # level or upright over at most about 0.07 of it (2 sqrt(2 r t) for a ring of radius r and
    # width t grown by the drift).
    line_length: float = 0.08
    line_drift_px: int = 3


DEFAULT_GREY = GreyParams()


def toner_mask(hsv: Pixels, max_value: int = DEFAULT_GREY.max_value) -> Mask:
    """Boolean mask of the pixels of a white-balanced HSV page darker than `max_value`."""
    return hsv[..., 2] < max_value


def long_lines(mask: Mask, params: GreyParams = DEFAULT_GREY) -> Mask:
    """Boolean mask of the pixels of `mask` on long, nearly level or upright lines (see
    `GreyParams.line_length`)."""
    length = max(1, round(params.line_length * max(mask.shape)))
    ink = mask.astype(np.uint8)
    found = np.zeros(mask.shape, bool)
    for along, across in (((length, 1), (1, params.line_drift_px)), ((1, length), (params.line_drift_px, 1))):
        banded = cv2.dilate(ink, np.ones(across, np.uint8))  # kernel shapes are (rows, columns)
        found |= cv2.morphologyEx(banded, cv2.MORPH_OPEN, np.ones(along, np.uint8)) > 0
    return found & mask
