"""One blob of find's closed ink mask, fitted: the seal its outline makes, if any.

The blob's contour is fitted with an ellipse and a minimum-area rectangle (`ellipse`),
ignoring contour points on the image edge (or the sheet's, in a photo) so that a seal cut by
the border is still fitted whole; the contour's points on its convex hull are tried too,
since an open ring also has an inner edge. A fit that matches the blob well is kept when its
ink passes `checks`; a rectangle's blob may also be a rectangular seal photographed at a
slant (`quad`). Where no plain fit is a seal, find cuts the blob along its printed rules and
asks again, then asks for a RANSAC ellipse through its outline (`robust_outline`), held to a
more completely inked ring.
"""

from __future__ import annotations

import cv2
import numpy as np

from imgproc.arrays import Floats, Ints, Mask, Pixels, as_floats, as_pixels

from ..geometry import sample_mask
from ..records import Outline, SealRegion, Shape, WorkingInk
from .checks import accept, accept_quad, plausible_size
from .ellipse import MIN_CONTOUR_POINTS, fit_ellipse, plain_fits, ransac_ellipse, refit, snapped
from .params import FitParams
from .quad import hull_quad


def _interior_points(contour: Ints, ink: WorkingInk, margin: int) -> Floats:
    """Contour points not within `margin` of the image's or the sheet's edge (where a cut seal
    is straight)."""
    height, width = ink.ink.shape
    pts = contour.reshape(-1, 2)
    keep = (pts[:, 0] >= margin) & (pts[:, 1] >= margin)
    keep &= (pts[:, 0] < width - margin) & (pts[:, 1] < height - margin)
    if ink.fitted is not None:
        keep &= sample_mask(ink.fitted, pts)
    return pts[keep].astype(np.float32)


def _on_hull(points: Floats, blob: Pixels, origin: Floats, params: FitParams) -> Floats:
    """The points on the blob's convex outline: an open ring (a seal cut by the page edge)
    also has an inner edge in its contour, which must not pull the fit inwards."""
    depth = as_floats(cv2.distanceTransform(np.pad(blob, 1), cv2.DIST_L2, 3))[1:-1, 1:-1]
    local = np.rint(points - origin).astype(int)
    rows = local[:, 1].clip(0, blob.shape[0] - 1)
    cols = local[:, 0].clip(0, blob.shape[1] - 1)
    on_hull: Floats = points[depth[rows, cols] <= params.hull_tolerance_px]
    return on_hull


def _from_points(
    points: Floats, blob: Pixels, origin: Floats, ink: WorkingInk, params: FitParams
) -> SealRegion | None:
    """The seal a plain fit of these outline points gives, or None when neither fit is one.

    The fit that matches the blob better is tried first; both can match well (the blob of a
    seal cut on every side is nearly the whole image), and then the other one may be the seal.
    """
    if len(points) < MIN_CONTOUR_POINTS:
        return None
    corner = (int(origin[0]), int(origin[1]))
    boxy = False
    for fit, iou in plain_fits(points, blob > 0, corner, ink.ink.shape):
        if iou < params.min_shape_iou or not plausible_size(fit, ink.ink.shape, params):
            continue  # saves the refit; `accept` checks the size of the refitted shape again
        boxy |= fit.shape is Shape.RECT
        if fit.shape is not Shape.RECT:
            fit = fit_ellipse(points, ink.thick, params.ransac)
        if (found := accept(fit, ink.ink, ink.thick, params, paper=ink.paper)) is not None:
            return found
        if fit.shape is not Shape.RECT and (found := _snapped(fit, ink, params)) is not None:
            return found
    # A blob a rectangle fits may be a rectangular seal at a slant: a quadrilateral.
    quad = hull_quad(points, params.quad) if boxy else None
    return accept_quad(quad, ink.ink, ink.thick, params, ink.paper) if quad is not None else None


def _snapped(fit: Outline, ink: WorkingInk, params: FitParams) -> SealRegion | None:
    """The seal an ellipse fit rejected outlines once moved onto the ring near it (`ellipse.snapped`),
    held to the robust fits' coverage; None where `params.snap` is off."""
    moved = snapped(fit, ink.thick, params.ransac) if params.snap else None
    if moved is None:
        return None
    return accept(moved, ink.ink, ink.thick, params, robust=True, paper=ink.paper)


def robust_outline(points: Floats, outline: Floats, ink: WorkingInk, params: FitParams) -> SealRegion | None:
    """The seal a RANSAC ellipse through these points gives, or None. A blob whose `outline`
    (all its contour points) is narrower than a seal in some direction, a line of text, is
    not tried."""
    if len(points) < MIN_CONTOUR_POINTS or min(cv2.minAreaRect(outline)[1]) < params.min_size_px:
        return None
    fit = ransac_ellipse(points, ink.thick, params.ransac)
    if fit is None:
        return None
    fit = refit(fit, points, params.ransac)
    return accept(fit, ink.ink, ink.thick, params, robust=True, paper=ink.paper)


def _blob(contour: Ints, shape: tuple[int, ...], margin: int) -> tuple[Pixels, Floats]:
    """The contour's filled convex hull on a canvas around it, and the canvas origin (x, y)."""
    x, y, w, h = cv2.boundingRect(contour)
    x0, y0 = max(0, x - margin), max(0, y - margin)
    x1, y1 = min(shape[1], x + w + margin), min(shape[0], y + h + margin)
    blob = np.zeros((y1 - y0, x1 - x0), np.uint8)
    # The hull, not the contour: a ring broken by faint ink still outlines a whole disc.
    cv2.fillConvexPoly(blob, cv2.convexHull(contour) - np.array([x0, y0], np.int32), (1,))
    return blob, np.array([x0, y0], np.float32)


def _best(found: list[SealRegion | None]) -> SealRegion | None:
    return max((r for r in found if r is not None), key=lambda r: r.border_coverage, default=None)


def plain_outline(
    contour: Ints, ink: WorkingInk, params: FitParams
) -> tuple[SealRegion | None, list[Floats]]:
    """The seal a plain fit of a closed-mask contour gives (or None), and the point sets tried.

    Both the whole contour and its points on the convex hull are tried: lines touching the
    seal are best rejected from the former, the inner edge of a ring cut open by the page
    edge from the latter. The fit whose outline is inked more wins.
    """
    points = _interior_points(contour, ink, params.edge_margin_px)
    if len(points) < MIN_CONTOUR_POINTS:
        return None, []
    blob, origin = _blob(contour, ink.ink.shape, params.blob_margin_px)
    sets = [points, _on_hull(points, blob, origin, params)]
    return _best([_from_points(p, blob, origin, ink, params) for p in sets]), sets


def hull_area(contour: Ints) -> float:
    """Area of the contour's convex hull (a ring broken by faint ink still outlines a disc)."""
    return float(cv2.contourArea(cv2.convexHull(contour)))


def big_enough(contour: Ints, params: FitParams) -> bool:
    """Whether the blob's hull holds at least a disc of the smallest seal's size."""
    return hull_area(contour) >= (params.min_size_px / 2.0) ** 2 * np.pi


def sheet_interior(sheet: Mask, params: FitParams) -> Mask:
    """The part of a sheet's mask not within `edge_margin_px` of its edge, where contour points
    are fitted (`_interior_points`)."""
    side = 2 * params.edge_margin_px + 1
    return as_pixels(cv2.erode(sheet.astype(np.uint8), np.ones((side, side), np.uint8))) > 0
