"""Finding seals on a page: red-ink blobs that are bordered ellipses or rectangles.

The red mask is analysed at a bounded working size, closed so that a seal's ring, text and
star merge into one blob, and each blob's contour is fitted (see `fit`) with an ellipse and a
minimum-area rectangle, ignoring contour points on the image edge so that a seal cut by the
border is still fitted whole; the contour's points on its convex hull are tried too, since an
open ring also has an inner edge. A blob is kept when it matches one of the two shapes well,
is not too elongated, has some but not solid ink inside its border (not an empty red circle,
not a filled logo), when some inset of the fitted outline is almost entirely inked (the
border ring every seal has, and red text lines and table fragments lack) and when that ring
is thin (the stroke of a big red letter O is not). A second, wider closing then adds large
seals whose pale or patchy ring the first pass saw in pieces, with a patchier ring allowed,
and a third, narrower one seals that the first merged with other red ink they touch.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import cv2
import numpy as np

from .fit import DEFAULT_FIT, MIN_CONTOUR_POINTS, Fit, FitParams, best_plain_fit, fit_ellipse, render
from .ink import DEFAULT_INK, RedInkThresholds, red_mask
from .shapes import SealRegion, Shape, inside_image, outline_points, sample_mask

_DILATE = np.ones((3, 3), np.uint8)


@dataclass(frozen=True)
class FindParams:
    """Thresholds for `find_seals`; pixel sizes are at the working scale."""

    work_max_side: int = 1280
    close_fraction: float = 0.008
    # A second pass closes this many times wider, for seals whose ring is broken by pale or
    # patchy ink into pieces that the first pass sees apart; it adds only seals not found yet.
    wide_close: float = 3.0
    wide_coverage: float = 0.7  # ...and accepts a patchier ring (of the outline inked) there,
    # in shapes at least this many closing widths across: closing fills a smaller one solid
    # (a big red printed character becomes a disc), so its outline says nothing.
    wide_min_widths: float = 4.0
    # A third pass closes this much narrower, for seals stamped against other red ink (a red
    # letterhead title) that the first pass merges into one blob no shape fits.
    tight_close: float = 0.5
    min_close_px: int = 3
    min_size_px: int = 36
    max_ellipse_aspect: float = 2.2
    max_rect_aspect: float = 4.0
    round_max_aspect: float = 1.15
    min_shape_iou: float = 0.82
    interior_scale: float = 0.8  # the interior is the fitted shape scaled by this
    min_ink_fill: float = 0.005  # share of the interior that is ink (faint seals have little)
    max_ink_fill: float = 0.9
    min_ellipse_coverage: float = 0.9
    min_rect_coverage: float = 0.9
    border_band_fraction: float = 0.12  # of the short semi-axis, searched inwards for the ring
    stroke_checks: tuple[float, ...] = (0.15, 0.25)  # insets where a seal's ring has ended...
    solid_stroke: float = 0.65  # ...so at least one of them is inked less than this
    border_samples: int = 360
    min_visible_fraction: float = 0.5  # of the outline that must lie inside the image
    edge_margin_px: int = 3  # contour points this close to the image edge are not fitted
    hull_tolerance_px: float = 2.0  # contour points this close to the convex hull are fitted
    fit: FitParams = DEFAULT_FIT


DEFAULT_FIND = FindParams()


def _working_mask(mask: np.ndarray, params: FindParams) -> tuple[np.ndarray, float]:
    """Mask shrunk to the working size (thin strokes kept), and the scale applied."""
    scale = min(1.0, params.work_max_side / max(mask.shape))
    small = mask.astype(np.uint8) * 255
    if scale < 1.0:
        size = (max(1, round(mask.shape[1] * scale)), max(1, round(mask.shape[0] * scale)))
        small = cv2.resize(small, size, interpolation=cv2.INTER_AREA)
    return small > 0, scale


def _close_side(mask: np.ndarray, params: FindParams, factor: float) -> int:
    return max(params.min_close_px, round(factor * params.close_fraction * max(mask.shape)))


def _close(mask: np.ndarray, params: FindParams, factor: float = 1.0) -> np.ndarray:
    side = _close_side(mask, params, factor)
    kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (side, side))
    return cv2.morphologyEx(mask.astype(np.uint8), cv2.MORPH_CLOSE, kernel)


def _interior_points(contour: np.ndarray, width: int, height: int, margin: int) -> np.ndarray:
    """Contour points not within `margin` of the image edge (where a cut seal is straight)."""
    pts = contour.reshape(-1, 2)
    keep = (pts[:, 0] >= margin) & (pts[:, 1] >= margin)
    keep &= (pts[:, 0] < width - margin) & (pts[:, 1] < height - margin)
    return pts[keep].astype(np.float32)


def _inset_coverage(region: SealRegion, ink: np.ndarray, inset: float, params: FindParams) -> float:
    """Share of the visible outline, moved `inset` px inwards, that lies on ink."""
    points = outline_points(region, params.border_samples, inset)
    inside = inside_image(points, ink.shape[1], ink.shape[0])
    return float(sample_mask(ink, points[inside]).mean()) if inside.any() else 0.0


def _coverage(region: SealRegion, ink: np.ndarray, params: FindParams) -> tuple[float, float]:
    """Best fraction of an inset outline that hits ink, and the visible fraction of the outline."""
    band = max(1, round(params.border_band_fraction * region.axes[1]))
    best = max(_inset_coverage(region, ink, float(inset), params) for inset in range(band + 1))
    outline = outline_points(region, params.border_samples, 0.0)
    return best, float(inside_image(outline, ink.shape[1], ink.shape[0]).mean())


def _thin_ring(region: SealRegion, ink: np.ndarray, params: FindParams) -> bool:
    """Whether the border is a thin ring: a seal's text and gaps lie a little way inside it,
    while the stroke of a big red letter O is still solid there."""
    if region.shape == "rect":
        return True
    b = region.axes[1]
    return (
        min(_inset_coverage(region, ink, f * b, params) for f in params.stroke_checks) < params.solid_stroke
    )


def _region(fit: Fit, shape: Shape, blob: np.ndarray) -> SealRegion:
    ys, xs = np.nonzero(blob)
    box = (int(xs.min()), int(ys.min()), int(xs.max()) + 1, int(ys.max()) + 1)
    return SealRegion(shape, fit.center, fit.axes, fit.angle_deg, box, False, 0.0)


def _shape_name(fit: Fit, params: FindParams) -> Shape:
    if fit.shape == "rect":
        return "rect"
    return "round" if fit.axes[0] <= params.round_max_aspect * fit.axes[1] else "oval"


def _plausible(fit: Fit, iou: float, params: FindParams) -> bool:
    a, b = fit.axes
    limit = params.max_rect_aspect if fit.shape == "rect" else params.max_ellipse_aspect
    return iou >= params.min_shape_iou and 2.0 * b >= params.min_size_px and a <= limit * b


def _on_hull(points: np.ndarray, blob: np.ndarray, params: FindParams) -> np.ndarray:
    """The points on the blob's convex outline: an open ring (a seal cut by the page edge)
    also has an inner edge in its contour, which must not pull the fit inwards."""
    depth = cv2.distanceTransform(np.pad(blob, 1).astype(np.uint8), cv2.DIST_L2, 3)[1:-1, 1:-1]
    near = depth[points[:, 1].astype(int), points[:, 0].astype(int)] <= params.hull_tolerance_px
    return points[near] if near.sum() >= MIN_CONTOUR_POINTS else points


def _from_points(
    points: np.ndarray, blob: np.ndarray, ink: np.ndarray, thick: np.ndarray, params: FindParams
) -> SealRegion | None:
    """The seal fitted to these outline points, or None when the fit is not a seal."""
    fit, iou = best_plain_fit(points, blob > 0)
    if not _plausible(fit, iou, params):
        return None
    if fit.shape != "rect":
        fit = fit_ellipse(points, thick, params.fit)
    return _accept(_region(fit, _shape_name(fit, params), blob > 0), fit, ink, thick, params)


def _candidate(contour: np.ndarray, ink: np.ndarray, params: FindParams) -> SealRegion | None:
    """The seal a closed-mask contour outlines, or None when it is not a seal.

    Both the whole contour and its points on the convex hull are tried: lines touching the
    seal are best rejected from the former, the inner edge of a ring cut open by the page
    edge from the latter. The fit whose outline is inked more wins.
    """
    height, width = ink.shape
    # The hull, not the contour: a ring broken by faint ink still outlines a whole disc.
    blob = np.zeros(ink.shape, np.uint8)
    cv2.fillConvexPoly(blob, cv2.convexHull(contour), 1)
    points = _interior_points(contour, width, height, params.edge_margin_px)
    if len(points) < MIN_CONTOUR_POINTS:
        return None
    # Dilated so that speckled, faint rings still read as continuous.
    thick = cv2.dilate(ink.astype(np.uint8), _DILATE) > 0
    found = [_from_points(p, blob, ink, thick, params) for p in (points, _on_hull(points, blob, params))]
    return max((r for r in found if r is not None), key=lambda r: r.border_coverage, default=None)


def _accept(
    region: SealRegion, fit: Fit, ink: np.ndarray, thick: np.ndarray, params: FindParams
) -> SealRegion | None:
    # Ink inside the border (not on it): a seal has text there, a red letter O has nothing,
    # and a filled logo has nothing else.
    shrunk = replace(fit, axes=(fit.axes[0] * params.interior_scale, fit.axes[1] * params.interior_scale))
    inside = render(shrunk, ink.shape)
    fill = np.count_nonzero(ink & inside) / max(1, np.count_nonzero(inside))
    coverage, visible = _coverage(region, thick, params)
    needed = params.min_rect_coverage if region.shape == "rect" else params.min_ellipse_coverage
    if not params.min_ink_fill <= fill <= params.max_ink_fill or coverage < needed:
        return None
    if visible < params.min_visible_fraction or not _thin_ring(region, ink, params):
        return None
    return replace(region, border_coverage=coverage, cut=visible < 1.0)


def _rescale(region: SealRegion, scale: float, width: int, height: int) -> SealRegion:
    if scale == 1.0:
        return region
    x0, y0, x1, y1 = (v / scale for v in region.box)
    box = (max(0, int(x0)), max(0, int(y0)), min(width, int(np.ceil(x1))), min(height, int(np.ceil(y1))))
    center = (region.center[0] / scale, region.center[1] / scale)
    axes = (region.axes[0] / scale, region.axes[1] / scale)
    return SealRegion(region.shape, center, axes, region.angle_deg, box, region.cut, region.border_coverage)


def _closed_candidates(ink: np.ndarray, params: FindParams, factor: float) -> list[SealRegion]:
    contours, _ = cv2.findContours(_close(ink, params, factor), cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    min_area = (params.min_size_px / 2.0) ** 2 * np.pi
    found = [_candidate(c, ink, params) for c in contours if cv2.contourArea(cv2.convexHull(c)) >= min_area]
    return [r for r in found if r is not None]


def _centre_inside(region: SealRegion, other: SealRegion) -> bool:
    x0, y0, x1, y1 = other.box
    return x0 <= region.center[0] <= x1 and y0 <= region.center[1] <= y1


def _add_new(found: list[SealRegion], more: list[SealRegion]) -> None:
    """Append the regions of `more` that are not one of `found` (neither centre in the other)."""
    for region in more:
        if not any(_centre_inside(region, seal) or _centre_inside(seal, region) for seal in found):
            found.append(region)


def find_seals_in_mask(mask: np.ndarray, params: FindParams = DEFAULT_FIND) -> list[SealRegion]:
    """Seals outlined by a boolean red-ink mask, largest first; empty when there are none."""
    ink, scale = _working_mask(mask, params)
    found = _closed_candidates(ink, params, 1.0)
    wide = replace(params, min_ellipse_coverage=params.wide_coverage, min_rect_coverage=params.wide_coverage)
    min_width = params.wide_min_widths * _close_side(ink, params, params.wide_close)
    _add_new(
        found, [r for r in _closed_candidates(ink, wide, params.wide_close) if 2 * r.axes[1] >= min_width]
    )
    _add_new(found, _closed_candidates(ink, params, params.tight_close))
    seals = [_rescale(r, scale, mask.shape[1], mask.shape[0]) for r in found]
    return sorted(seals, key=lambda r: r.axes[0] * r.axes[1], reverse=True)


def find_seals(
    rgb: np.ndarray, thresholds: RedInkThresholds = DEFAULT_INK, params: FindParams = DEFAULT_FIND
) -> list[SealRegion]:
    """Seals on an RGB page, largest first; empty when there are none."""
    return find_seals_in_mask(red_mask(rgb, thresholds), params)
