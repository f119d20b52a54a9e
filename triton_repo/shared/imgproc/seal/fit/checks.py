"""Whether a fitted outline is a seal, judged on the ink alone.

A seal has a border ring: some inset of its fitted outline lies on ink almost all the way
round (red text lines and table fragments are not rings), and that ring is thin (the stroke
of a big red letter O is still solid a little way inside). Inside the border there is some
ink, but not solid ink (not an empty red circle, not a filled logo). A large rectangle whole
inside the page, or nearly empty, is a form's frame. These checks are what make a fit a seal,
whichever way it was found; `accept_quad` applies them to a quadrilateral border (`quad`).
"""

from __future__ import annotations

from dataclasses import replace

import cv2
import numpy as np

from imgproc.arrays import Floats, Mask

from ..geometry import (
    TWO_PI,
    ellipse_offset_points,
    outline_points,
    rect_outline_points,
    sample_mask,
    visible,
)
from ..records import Outline, SealRegion, Shape
from .ellipse import as_fit, box_of, render
from .params import FitParams
from .quad import quad_fill, quad_outlines


def inset_coverages(
    region: SealRegion,
    ink: Mask,
    insets: Floats,
    params: FitParams,
    paper: Mask | None = None,
) -> Floats:
    """Per inset, the share of the visible outline moved that far inwards that lies on ink
    (visible: in the image and on the `paper`, where a photo shows the sheet's edge)."""
    if region.is_elliptic:
        t = np.linspace(0.0, TWO_PI, params.border_samples, endpoint=False)
        points = ellipse_offset_points(
            region.center, region.axes, region.angle_deg, t[None, :], insets[:, None]
        )
    else:
        points = rect_outline_points(
            region.center, region.axes, region.angle_deg, params.border_samples, insets
        )
    inside = visible(points, ink.shape[1], ink.shape[0], paper)
    inked = sample_mask(ink, points) & inside
    shares: Floats = inked.sum(axis=1) / np.maximum(inside.sum(axis=1), 1)
    return shares


def coverage(
    region: SealRegion, ink: Mask, params: FitParams, paper: Mask | None = None
) -> tuple[float, float]:
    """Best fraction of an inset outline that hits ink, and the visible fraction of the outline."""
    band = max(1, round(params.border_band_fraction * region.axes[1]))
    best = float(inset_coverages(region, ink, np.arange(band + 1, dtype=float), params, paper).max())
    outline = outline_points(region, params.border_samples, 0.0)
    return best, float(visible(outline, ink.shape[1], ink.shape[0], paper).mean())


def thin_ring(region: SealRegion, ink: Mask, params: FitParams, paper: Mask | None = None) -> bool:
    """Whether the border is a thin ring: a seal's text and gaps lie a little way inside it,
    while the stroke of a big red letter O is still solid there."""
    if not region.shape.is_elliptic:
        return True
    insets = np.asarray(params.stroke_checks) * region.axes[1]
    return float(inset_coverages(region, ink, insets, params, paper).min()) < params.solid_stroke


def interior_fill(fit: Outline, ink: Mask, params: FitParams) -> float:
    """Share of the interior (the fit shrunk by `interior_scale`) that is ink."""
    inner = fit.scaled(params.interior_scale)
    x0, y0, x1, y1 = box_of(inner, ink.shape[1], ink.shape[0])
    if x1 <= x0 or y1 <= y0:
        return 0.0
    inside = render(inner, (y1 - y0, x1 - x0), (x0, y0))
    return np.count_nonzero(ink[y0:y1, x0:x1] & inside) / max(1, np.count_nonzero(inside))


def fill_ok(fit: Outline, fill: float, params: FitParams) -> bool:
    """Whether a fit's interior holds some ink but is not filled (a rectangle less so)."""
    most = min(params.max_ink_fill, params.max_rect_fill) if fit.shape is Shape.RECT else params.max_ink_fill
    return params.min_ink_fill <= fill <= most


def shape_name(fit: Outline, params: FitParams) -> Shape:
    """rect, or round when the ellipse is nearly a circle, else oval."""
    if fit.shape is Shape.RECT:
        return Shape.RECT
    return Shape.ROUND if fit.axes[0] <= params.round_max_aspect * fit.axes[1] else Shape.OVAL


def plausible_size(fit: Outline, page: tuple[int, ...], params: FitParams) -> bool:
    """Big enough to be a seal on a page of this shape, and not too elongated for its shape."""
    a, b = fit.axes
    limit = params.max_rect_aspect if fit.shape is Shape.RECT else params.max_ellipse_aspect
    big = 2.0 * b >= params.min_size_px and 2.0 * a >= params.min_page_share * max(page)
    return big and a <= limit * b


def _form_frame(fit: Outline, fill: float, visible: float, page: tuple[int, ...], params: FitParams) -> bool:
    """Whether a rectangle is a form's frame (a table): large, and (all but) whole inside the
    page or holding little ink. A rectangular seal that large is a close-up, which runs off the image
    and is filled with its big characters."""
    large = fit.shape is Shape.RECT and 2.0 * fit.axes[0] > params.max_whole_rect_share * max(page)
    return large and (visible >= params.whole_visible or fill < params.min_large_rect_fill)


def needed_coverage(fit: Outline, robust: bool, params: FitParams) -> float:
    """The share of the outline that must be inked: more for a fit found by RANSAC."""
    plain = params.min_rect_coverage if fit.shape is Shape.RECT else params.min_ellipse_coverage
    return max(plain, params.robust_coverage) if robust else plain


def accept(
    fit: Outline,
    ink: Mask,
    thick: Mask,
    params: FitParams,
    robust: bool = False,
    paper: Mask | None = None,
) -> SealRegion | None:
    """The seal `fit` outlines when its ink passes every check, else None. `thick` is the ink
    grown slightly, so that speckled, faint rings read as continuous; `paper`, the sheet a
    photo shows (None: the whole image), outside which the ring cannot be seen."""
    height, width = ink.shape
    if not plausible_size(fit, ink.shape, params):  # a refit can shrink onto one character
        return None
    needed = needed_coverage(fit, robust, params)
    region = SealRegion(
        shape_name(fit, params), fit.center, fit.axes, fit.angle_deg, box_of(fit, width, height), False, 0.0
    )
    fill = interior_fill(fit, ink, params)
    if not fill_ok(fit, fill, params):
        return None
    inked, seen = coverage(region, thick, params, paper)
    if inked < needed or seen < params.min_visible_fraction or not thin_ring(region, ink, params, paper):
        return None
    if _form_frame(fit, fill, seen, ink.shape, params):
        return None
    return replace(region, border_coverage=inked, cut=seen < 1.0)


def accept_quad(
    quad: Floats, ink: Mask, thick: Mask, params: FitParams, paper: Mask | None = None
) -> SealRegion | None:
    """The rectangular seal a quadrilateral border outlines (a seal photographed at a slant),
    reported as the rectangle around it, when its ink passes the checks; else None."""
    fit = as_fit(Shape.RECT, cv2.minAreaRect(quad.astype(np.float32)))
    fill = quad_fill(quad, ink, params.interior_scale)
    if not plausible_size(fit, ink.shape, params) or not fill_ok(fit, fill, params):
        return None
    band = max(1, round(params.border_band_fraction * fit.axes[1]))
    points = quad_outlines(quad, params.quad.samples, np.arange(band + 1, dtype=float))
    inside = visible(points, ink.shape[1], ink.shape[0], paper)
    seen = float(inside[0].mean())
    if seen < params.min_visible_fraction or _form_frame(fit, fill, seen, ink.shape, params):
        return None
    inked = float(
        ((sample_mask(thick, points) & inside).sum(axis=1) / np.maximum(inside.sum(axis=1), 1)).max()
    )
    if inked < params.min_rect_coverage:
        return None
    box = box_of(fit, ink.shape[1], ink.shape[0])
    return SealRegion(Shape.RECT, fit.center, fit.axes, fit.angle_deg, box, seen < 1.0, inked)
