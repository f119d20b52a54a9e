"""Blobs of the closed ink mask, and the seals each outlines (usually none or one).

The mask is closed so that a seal's ring, text and star merge into one blob, and each blob's
outer contour is handed to fit. A blob no plain shape fits (a seal merged with print it
touches) is cut along the printed rules in it (`rules`) and its pieces handed over again;
failing that, fit tries a RANSAC ellipse through its outline. Where a seal is found, what
its outline leaves of the blob's may be the ring of another stamped over it (`fit.overlap`).
"""

from __future__ import annotations

import cv2
import numpy as np

from imgproc.arrays import Floats, Ints, Mask, Pixels, as_ints, as_pixels

from ..fit import FitParams, big_enough, overlapping, plain_outline, robust_outline
from ..records import SealRegion, WorkingInk
from .params import FindParams


def close_side(shape: tuple[int, ...], params: FindParams, factor: float) -> int:
    """The closing width (px) at `factor` times the usual on a mask of this shape."""
    return max(params.min_close_px, round(factor * params.close_fraction * max(shape)))


def blob_contours(
    mask: Mask, params: FindParams, factor: float, page: tuple[int, ...] | None = None
) -> list[Ints]:
    """The outer contours of the mask closed at `factor` times the closing width of a page of
    shape `page` (its own), also of a blob inside another's hole (a seal on a page photographed
    on a brown table is inside the table's blob). A wide closing is done on the mask shrunk so
    the kernel stays small (its cost grows with the kernel's area)."""
    side = close_side(page or mask.shape, params, factor)
    shrink = max(1, side // params.max_kernel_px)
    small: Pixels = mask.astype(np.uint8)
    if shrink > 1:
        size = (max(1, mask.shape[1] // shrink), max(1, mask.shape[0] // shrink))
        small = (as_pixels(cv2.resize(small * 255, size, interpolation=cv2.INTER_AREA)) > 0).astype(np.uint8)
    kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (round(side / shrink),) * 2)
    closed = cv2.morphologyEx(small, cv2.MORPH_CLOSE, kernel)
    contours, hierarchy = cv2.findContours(closed, cv2.RETR_CCOMP, cv2.CHAIN_APPROX_NONE)
    if hierarchy is None:
        return []
    outer = [as_ints(c) for c, link in zip(contours, hierarchy[0], strict=True) if link[3] < 0]
    return [c * shrink + shrink // 2 for c in outer] if shrink > 1 else outer


def _without_rules(contour: Ints, ink: WorkingInk, params: FindParams, factor: float) -> list[Ints]:
    """The blob's ink with the printed rules in it cut out, closed again into contours (none
    when the blob holds no rule)."""
    x, y, w, h = cv2.boundingRect(contour)
    rules = ink.rules[y : y + h, x : x + w]
    inside = np.zeros((h, w), np.uint8)
    cv2.drawContours(inside, [contour], -1, (1,), -1, offset=(-x, -y))
    within = inside > 0
    if not (rules & within).any():
        return []
    cut = ink.ink[y : y + h, x : x + w] & within & ~rules
    pieces = blob_contours(cut, params, factor, ink.ink.shape)
    return [piece + np.array([x, y], np.int32) for piece in pieces]


def candidates(
    contour: Ints, ink: WorkingInk, params: FindParams, fit: FitParams, factor: float, cut: bool = True
) -> list[SealRegion]:
    """The seals a closed-mask contour outlines (usually none or one).

    A blob no plain shape fits is first cut along the printed rules in it (a seal stamped on a
    table is one blob with the table); failing that (the flat side of a close-up's ring can
    pass for a rule), a robust ellipse is tried through the whole blob.
    """
    plain, sets = plain_outline(contour, ink, fit)
    if plain is not None:
        return _with_overlapping(plain, sets, ink, fit)
    pieces = _without_rules(contour, ink, params, factor) if cut else []
    cut_out = [
        r
        for piece in pieces
        if big_enough(piece, fit)
        for r in candidates(piece, ink, params, fit, factor, False)
    ]
    if cut_out:
        return cut_out
    # Through the points on the hull: the seal's outer edge is there, the print's dents are not.
    robust = robust_outline(sets[-1], sets[0], ink, fit) if fit.robust and sets else None
    return _with_overlapping(robust, sets, ink, fit) if robust is not None else []


def _with_overlapping(
    region: SealRegion, sets: list[Floats], ink: WorkingInk, fit: FitParams
) -> list[SealRegion]:
    """The seal a blob's fit found, and any seals stamped over it in the same blob (their
    rings' arcs outside it are in the blob's contour, `sets[0]`: see `fit.overlap`)."""
    return [region, *overlapping(sets[0], region, ink, fit)]
