"""The sheet of paper in a photograph: where a seal's ring can be seen at all.

A phone photo of a page often shows the desk around the sheet, and a seal stamped at the
sheet's edge runs off the paper. Its ring then ends at the paper's edge as it would at the
image's, but the finder counted the part over the desk as visible and un-inked, and the
straight chord along the paper's edge as the seal's outline. So the paper is found (the
largest connected region of bright, dull pixels on the white-balanced page, print and seals
inside it taken in by its convex hull: a sheet is flat and convex, seen in perspective or
not), and the finder treats what lies off it as it treats what lies off the image. Where the
paper fills (almost) the whole image, a scan or a crop, there is no sheet edge to find; nor
where much paper-bright lies off the region (a close-up of a seal: its inside is the largest
bright region, cut off by its ring from the paper around it).
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from imgproc.arrays import Mask, Pixels, as_pixels

from ..ink import in_range


@dataclass(frozen=True)
class PaperParams:
    """What paper looks like on the white-balanced page, and when a sheet is told apart."""

    enabled: bool = True  # off: the whole image is taken for paper (a scan, a crop)
    max_side: int = 320  # worked out this small: only the sheet's outline matters
    # Paper on the white-balanced page (balance makes its high percentile white); generated
    # desks are 50-170 bright and wood is saturated.
    min_value: int = 170
    max_saturation: int = 50
    min_share: float = 0.25  # a bright region smaller than this share of the image is no sheet
    # Off a sheet lies the desk, at most this share of it paper-bright: in a close-up of a seal
    # the largest bright region is the seal's inside, and paper lies around its ring.
    max_bright_outside: float = 0.1
    # A sheet covering this share of the image fills it: nothing is off the paper.
    whole: float = 0.97


DEFAULT_PAPER = PaperParams()


def paper_mask(hsv: Pixels, params: PaperParams = DEFAULT_PAPER) -> Mask | None:
    """Boolean mask, at the page's size, of the sheet in an OpenCV HSV page; None where the
    paper fills the image (no sheet edge) or no sheet is told apart."""
    if not params.enabled:
        return None
    height, width = hsv.shape[:2]
    scale = min(1.0, params.max_side / max(height, width))
    size = (max(1, round(width * scale)), max(1, round(height * scale)))
    step = max(1, max(height, width) // (2 * params.max_side))  # rows and columns read: cheap
    small = as_pixels(
        cv2.resize(np.ascontiguousarray(hsv[::step, ::step]), size, interpolation=cv2.INTER_AREA)
    )
    bright = in_range(small, (0, 0, params.min_value), (255, params.max_saturation, 255))
    count, labels, stats, _ = cv2.connectedComponentsWithStats(bright, connectivity=8)
    if count < 2:
        return None
    largest = 1 + int(np.argmax(stats[1:, cv2.CC_STAT_AREA]))
    if stats[largest, cv2.CC_STAT_AREA] < params.min_share * bright.size:
        return None
    outline, _ = cv2.findContours(
        (labels == largest).astype(np.uint8), cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE
    )
    hull = cv2.convexHull(np.concatenate(outline))
    sheet = np.zeros(bright.shape, np.uint8)
    cv2.fillConvexPoly(sheet, hull, (1,))
    outside = sheet == 0
    fills = sheet.mean() >= params.whole
    if fills or np.count_nonzero(bright[outside]) > params.max_bright_outside * np.count_nonzero(outside):
        return None
    return as_pixels(cv2.resize(sheet, (width, height), interpolation=cv2.INTER_NEAREST)) > 0
