"""One blob of the closed red mask, and the seals it outlines (usually none or one).

The blob's contour is fitted with an ellipse and a minimum-area rectangle (`fit`), ignoring
contour points on the image edge (or the sheet's, in a photo: `paper`) so that a seal cut by
the border is still fitted whole; the contour's points on its convex hull are tried too,
since an open ring also has an inner edge.
A fit that matches the blob well is kept when its ink passes `checks`; a rectangle's blob may
also be a rectangular seal photographed at a slant (`quad`). A blob no plain shape fits (a
seal merged with print it touches) is cut along the printed rules in it (`rules`) and its
pieces tried again; failing that, a RANSAC ellipse through its outline is tried, held to a
more completely inked ring.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from .checks import accept, accept_quad, plausible_size
from .fit import MIN_CONTOUR_POINTS, Fit, fit_ellipse, plain_fits, ransac_ellipse, refit, snapped
from .params import FindParams
from .quad import hull_quad
from .shapes import SealRegion, Shape, sample_mask


@dataclass(frozen=True)
class WorkingInk:
    """The working-size red mask; grown a pixel (faint, speckled rings read as continuous);
    the printed rules in it (cut out of a blob that no shape fits); and the sheet a photo shows
    (`paper`), and the part of it not within the edge margin of its edge (`fitted`), both None
    where the paper fills the image."""

    ink: np.ndarray
    thick: np.ndarray
    rules: np.ndarray
    paper: np.ndarray | None = None
    fitted: np.ndarray | None = None


def close_side(shape: tuple[int, ...], params: FindParams, factor: float) -> int:
    """The closing width (px) at `factor` times the usual on a mask of this shape."""
    return max(params.min_close_px, round(factor * params.close_fraction * max(shape)))


def blob_contours(
    mask: np.ndarray, params: FindParams, factor: float, page: tuple[int, ...] | None = None
) -> list[np.ndarray]:
    """The outer contours of the mask closed at `factor` times the closing width of a page of
    shape `page` (its own), also of a blob inside another's hole (a seal on a page photographed
    on a brown table is inside the table's blob). A wide closing is done on the mask shrunk so
    the kernel stays small (its cost grows with the kernel's area)."""
    side = close_side(page or mask.shape, params, factor)
    shrink = max(1, side // params.max_kernel_px)
    small = mask.astype(np.uint8)
    if shrink > 1:
        size = (max(1, mask.shape[1] // shrink), max(1, mask.shape[0] // shrink))
        small = (cv2.resize(small * 255, size, interpolation=cv2.INTER_AREA) > 0).astype(np.uint8)
    kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (round(side / shrink),) * 2)
    closed = cv2.morphologyEx(small, cv2.MORPH_CLOSE, kernel)
    contours, hierarchy = cv2.findContours(closed, cv2.RETR_CCOMP, cv2.CHAIN_APPROX_NONE)
    if hierarchy is None:
        return []
    outer = [c for c, link in zip(contours, hierarchy[0], strict=True) if link[3] < 0]
    return [c * shrink + shrink // 2 for c in outer] if shrink > 1 else outer


def _interior_points(contour: np.ndarray, ink: WorkingInk, margin: int) -> np.ndarray:
    """Contour points not within `margin` of the image's or the sheet's edge (where a cut seal
    is straight)."""
    height, width = ink.ink.shape
    pts = contour.reshape(-1, 2)
    keep = (pts[:, 0] >= margin) & (pts[:, 1] >= margin)
    keep &= (pts[:, 0] < width - margin) & (pts[:, 1] < height - margin)
    if ink.fitted is not None:
        keep &= sample_mask(ink.fitted, pts)
    return pts[keep].astype(np.float32)


def _on_hull(points: np.ndarray, blob: np.ndarray, origin: np.ndarray, params: FindParams) -> np.ndarray:
    """The points on the blob's convex outline: an open ring (a seal cut by the page edge)
    also has an inner edge in its contour, which must not pull the fit inwards."""
    depth = cv2.distanceTransform(np.pad(blob, 1), cv2.DIST_L2, 3)[1:-1, 1:-1]
    local = np.rint(points - origin).astype(int)
    rows = local[:, 1].clip(0, blob.shape[0] - 1)
    cols = local[:, 0].clip(0, blob.shape[1] - 1)
    return points[depth[rows, cols] <= params.hull_tolerance_px]


def _from_points(
    points: np.ndarray, blob: np.ndarray, origin: np.ndarray, ink: WorkingInk, params: FindParams
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
            fit = fit_ellipse(points, ink.thick, params.fit)
        if (found := accept(fit, ink.ink, ink.thick, params, paper=ink.paper)) is not None:
            return found
        if fit.shape is not Shape.RECT and (found := _snapped(fit, ink, params)) is not None:
            return found
    # A blob a rectangle fits may be a rectangular seal at a slant: a quadrilateral.
    quad = hull_quad(points, params.quad) if boxy else None
    return accept_quad(quad, ink.ink, ink.thick, params, ink.paper) if quad is not None else None


def _snapped(fit: Fit, ink: WorkingInk, params: FindParams) -> SealRegion | None:
    """The seal an ellipse fit rejected outlines once moved onto the ring near it (`fit.snapped`),
    held to the robust fits' coverage; None where `params.snap` is off."""
    moved = snapped(fit, ink.thick, params.fit) if params.snap else None
    if moved is None:
        return None
    return accept(moved, ink.ink, ink.thick, params, robust=True, paper=ink.paper)


def _robust(
    points: np.ndarray, outline: np.ndarray, ink: WorkingInk, params: FindParams
) -> SealRegion | None:
    """The seal a RANSAC ellipse through these points gives, or None. A blob whose `outline`
    (all its contour points) is narrower than a seal in some direction, a line of text, is
    not tried."""
    if len(points) < MIN_CONTOUR_POINTS or min(cv2.minAreaRect(outline)[1]) < params.min_size_px:
        return None
    fit = ransac_ellipse(points, ink.thick, params.fit)
    if fit is None:
        return None
    fit = refit(fit, points, params.fit)
    return accept(fit, ink.ink, ink.thick, params, robust=True, paper=ink.paper)


def _blob(contour: np.ndarray, shape: tuple[int, ...], margin: int) -> tuple[np.ndarray, np.ndarray]:
    """The contour's filled convex hull on a canvas around it, and the canvas origin (x, y)."""
    x, y, w, h = cv2.boundingRect(contour)
    x0, y0 = max(0, x - margin), max(0, y - margin)
    x1, y1 = min(shape[1], x + w + margin), min(shape[0], y + h + margin)
    blob = np.zeros((y1 - y0, x1 - x0), np.uint8)
    # The hull, not the contour: a ring broken by faint ink still outlines a whole disc.
    cv2.fillConvexPoly(blob, cv2.convexHull(contour) - np.array([x0, y0], np.int32), 1)
    return blob, np.array([x0, y0], np.float32)


def _best(found: list[SealRegion | None]) -> SealRegion | None:
    return max((r for r in found if r is not None), key=lambda r: r.border_coverage, default=None)


def _plain(
    contour: np.ndarray, ink: WorkingInk, params: FindParams
) -> tuple[SealRegion | None, list[np.ndarray]]:
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


def _without_rules(
    contour: np.ndarray, ink: WorkingInk, params: FindParams, factor: float
) -> list[np.ndarray]:
    """The blob's ink with the printed rules in it cut out, closed again into contours (none
    when the blob holds no rule)."""
    x, y, w, h = cv2.boundingRect(contour)
    rules = ink.rules[y : y + h, x : x + w]
    inside = np.zeros((h, w), np.uint8)
    cv2.drawContours(inside, [contour], -1, 1, -1, offset=(-x, -y))
    inside = inside > 0
    if not (rules & inside).any():
        return []
    cut = ink.ink[y : y + h, x : x + w] & inside & ~rules
    pieces = blob_contours(cut, params, factor, ink.ink.shape)
    return [piece + np.array([x, y], np.int32) for piece in pieces]


def candidates(
    contour: np.ndarray, ink: WorkingInk, params: FindParams, factor: float, cut: bool = True
) -> list[SealRegion]:
    """The seals a closed-mask contour outlines (usually none or one).

    A blob no plain shape fits is first cut along the printed rules in it (a seal stamped on a
    table is one blob with the table); failing that (the flat side of a close-up's ring can
    pass for a rule), a robust ellipse is tried through the whole blob.
    """
    plain, sets = _plain(contour, ink, params)
    if plain is not None:
        return [plain]
    pieces = _without_rules(contour, ink, params, factor) if cut else []
    cut_out = [
        r
        for piece in pieces
        if big_enough(piece, params)
        for r in candidates(piece, ink, params, factor, False)
    ]
    if cut_out:
        return cut_out
    # Through the points on the hull: the seal's outer edge is there, the print's dents are not.
    robust = _robust(sets[-1], sets[0], ink, params) if params.robust and sets else None
    return [robust] if robust is not None else []


def hull_area(contour: np.ndarray) -> float:
    """Area of the contour's convex hull (a ring broken by faint ink still outlines a disc)."""
    return float(cv2.contourArea(cv2.convexHull(contour)))


def big_enough(contour: np.ndarray, params: FindParams) -> bool:
    """Whether the blob's hull holds at least a disc of the smallest seal's size."""
    return hull_area(contour) >= (params.min_size_px / 2.0) ** 2 * np.pi
