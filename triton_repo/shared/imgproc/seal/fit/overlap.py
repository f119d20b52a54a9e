"""Seals stamped over each other (a notice issued jointly by two or three bodies): one blob of
ink, two or three rings.

Rings that cross close into one blob, whose outer contour is the arcs of each ring that lie
outside the others. A fit of the blob finds one ring (the one whose outline is inked best);
the contour points well outside it are the other ring's outer arc, or the print the seal
touches. Where they are a long enough share of the contour, a RANSAC ellipse through them,
held to the robust fits' coverage, is another seal (the overlap is ink of both, so its ring
is inked all round); what lies outside both is tried again for a third. Two fits are the same
seal unless each has a good share of its outline outside the other (`distinct`): a big seal's
character, a double ring's inner ring, a refit of the same ring lie inside it.
"""

from __future__ import annotations

import numpy as np

from imgproc.arrays import Floats, Mask

from ..geometry import outline_points
from ..records import Outline, SealRegion, WorkingInk
from .checks import accept
from .ellipse import MIN_CONTOUR_POINTS, radial_distance, ransac_ellipse, refit
from .params import DEFAULT_OVERLAP, FitParams, OverlapParams


def _shares(fit: Outline, other: Outline, params: OverlapParams) -> tuple[float, float]:
    """Shares of `fit`'s outline clearly outside and clearly inside the ellipse `other` (further
    than `params.outside` from its outline, in relative radial distance)."""
    distance = radial_distance(other, outline_points(fit, params.samples, 0.0))
    return float((distance > 1.0 + params.outside).mean()), float((distance < 1.0 - params.outside).mean())


def outside_share(fit: Outline, other: Outline, params: OverlapParams = DEFAULT_OVERLAP) -> float:
    """Share of `fit`'s outline that lies clearly outside the ellipse `other`."""
    return _shares(fit, other, params)[0]


def distinct(fit: Outline, other: Outline, params: OverlapParams = DEFAULT_OVERLAP) -> bool:
    """Whether two fits are two seals (stamped over each other), not one found twice."""
    if not (fit.is_elliptic and other.is_elliptic):
        return False
    least = params.min_apart
    return outside_share(fit, other, params) >= least and outside_share(other, fit, params) >= least


def crossing(fit: Outline, other: Outline, params: OverlapParams = DEFAULT_OVERLAP) -> bool:
    """Whether two fits are seals stamped over each other: each outline runs partly outside
    the other and partly inside it (seals side by side, or touching, do not cross, nor do the
    letters of a title)."""
    if not (fit.is_elliptic and other.is_elliptic):
        return False
    for shares in (_shares(fit, other, params), _shares(other, fit, params)):
        if shares[0] < params.min_apart or shares[1] < params.min_inside:
            return False
    return True


def _outside_all(points: Floats, found: list[SealRegion], params: OverlapParams) -> Mask:
    """Boolean mask of the points outside every found seal."""
    keep = np.ones(len(points), bool)
    for region in found:
        keep &= radial_distance(region, points) > 1.0 + params.outside
    return keep


def overlapping(points: Floats, first: SealRegion, ink: WorkingInk, params: FitParams) -> list[SealRegion]:
    """The other seals stamped over `first` in the blob whose contour points are `points` (at
    find's working scale), in the order found; empty where its contour is `first`'s alone."""
    overlap = params.overlap
    found = [first]
    while overlap.enabled and first.is_elliptic and len(found) < overlap.max_seals:
        rest = points[_outside_all(points, found, overlap)]
        if len(rest) < max(MIN_CONTOUR_POINTS, overlap.min_share * len(points)):
            break
        fit = ransac_ellipse(rest, ink.thick, params.ransac)
        region = (
            None
            if fit is None
            else accept(
                refit(fit, rest, params.ransac), ink.ink, ink.thick, params, robust=True, paper=ink.paper
            )
        )
        if region is None or not all(distinct(region, seal, overlap) for seal in found):
            break
        found.append(region)
    return found[1:]
