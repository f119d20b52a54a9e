"""Fitting a seal's outline: ellipse or rectangle, robust to what touches the seal.

A seal's contour is rarely a clean ellipse: table rules, text and the red form print run
into it, and a seal cut by the page edge leaves an open ring. The least-squares fit is kept
when most contour points agree with it; otherwise ellipses through five contour points are
tried (RANSAC with a fixed seed, so a page always gives the same answer): points spread over
the whole contour, or over a stretch of it (a seal merged with a title keeps a stretch of
clean ring). The one whose outline lies on ink the most wins (the largest of those about as
good), refitted on the points that agree with it. The five-point conics are solved and
scored all at once, as arrays.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import cv2
import numpy as np

from imgproc.arrays import Floats, Ints, Mask

from ..geometry import ellipse_extent, inside_image, rect_extent, render, rotation
from ..records import Box, Outline, Shape

if TYPE_CHECKING:
    from cv2.typing import RotatedRect

MIN_CONTOUR_POINTS = 5  # cv2.fitEllipse needs five
SINGULAR = 1e-12  # a determinant this small: repeated points, or a conic that is no ellipse


@dataclass(frozen=True)
class RansacParams:
    """Robust ellipse fitting."""

    tolerance: float = 0.05  # relative radial distance of a contour point that agrees with a fit
    min_inlier_fraction: float = 0.85  # below this the least-squares fit is not trusted
    rounds: int = 300  # RANSAC hypotheses per blob
    sample: int = 5  # points per hypothesis: five fix a conic
    arc_share: float = 0.5  # of the rounds, sampled from a stretch of the contour...
    arc_span: tuple[float, float] = (0.25, 0.6)  # ...this share of it long
    tie: float = 0.02  # hypotheses this close to the best inked share count as as good
    seed: int = 0  # of the hypotheses' draws: fixed, so a page always gives the same seals
    outline_samples: int = 180  # per hypothesis; a ring is a few pixels wide, so this is dense
    outline_inset_px: float = 1.5  # where a hypothesis looks for the ring, inside its outer edge
    max_aspect: float = 2.2  # a hypothesis more elongated than this is no seal
    centre_reach: float = 0.5  # of the contour's extent: how far beside it a centre may lie
    # `snapped`: the ring is sought this far (a share of the radius) in and out of a fit.
    snap_reach: float = 0.2


DEFAULT_RANSAC = RansacParams()


def as_fit(shape: Shape, box: RotatedRect) -> Outline:
    """An OpenCV rotated box as a fit whose first axis is the long one."""
    (cx, cy), (w, h), angle = box
    if h > w:
        w, h, angle = h, w, angle + 90.0
    return Outline(shape, (float(cx), float(cy)), (w / 2.0, h / 2.0), float(angle) % 180.0)


def box_of(fit: Outline, width: int, height: int) -> Box:
    """The outline's bounding box (x0, y0, x1, y1), exclusive ends, clipped to a width x height image."""
    extent = rect_extent if fit.shape is Shape.RECT else ellipse_extent
    half_x, half_y = extent(fit.axes, fit.angle_deg)
    x, y = fit.center
    x0, y0 = max(0, int(np.floor(x - half_x))), max(0, int(np.floor(y - half_y)))
    return x0, y0, min(width, int(np.ceil(x + half_x)) + 1), min(height, int(np.ceil(y + half_y)) + 1)


def iou(a: Mask, b: Mask) -> float:
    """Intersection over union of two boolean masks."""
    union = np.count_nonzero(a | b)
    return np.count_nonzero(a & b) / union if union else 0.0


def _blob_iou(fit: Outline, blob: Mask, origin: tuple[int, int], page: tuple[int, ...]) -> float:
    """IoU of a fit (clipped to the page) with a blob given on a canvas whose top-left pixel is
    `origin`; rendered on a window holding both, so a fit larger than the canvas counts whole."""
    fx0, fy0, fx1, fy1 = box_of(fit, page[1], page[0])
    x0, y0 = min(fx0, origin[0]), min(fy0, origin[1])
    x1, y1 = max(fx1, origin[0] + blob.shape[1]), max(fy1, origin[1] + blob.shape[0])
    window = np.zeros((y1 - y0, x1 - x0), bool)
    bx, by = origin[0] - x0, origin[1] - y0
    window[by : by + blob.shape[0], bx : bx + blob.shape[1]] = blob
    return iou(window, render(fit, window.shape, (x0, y0)))


def finite(fit: Outline) -> bool:
    """Whether a fit's centre and axes are numbers: OpenCV's least-squares ellipse of a few
    points on two rows (a speck's contour) has an infinite centre and a NaN axis."""
    return bool(np.all(np.isfinite((*fit.center, *fit.axes))))


def plain_fits(
    points: Floats, blob: Mask, origin: tuple[int, int], page: tuple[int, ...]
) -> list[tuple[Outline, float]]:
    """The plain ellipse and rectangle fits of (x, y) page points with their IoU with the blob
    (a boolean canvas whose top-left pixel is `origin`), the better first."""
    plain = [as_fit(Shape.OVAL, cv2.fitEllipse(points)), as_fit(Shape.RECT, cv2.minAreaRect(points))]
    scored = [(fit, _blob_iou(fit, blob, origin, page)) for fit in plain if finite(fit)]
    return sorted(scored, key=lambda item: item[1], reverse=True)


def radial_distance(fit: Outline, points: Floats) -> Floats:
    """Each point's distance from the centre in units of the ellipse radius in its direction."""
    local = (points - np.asarray(fit.center)) @ rotation(fit.angle_deg)
    distance: Floats = np.hypot(local[:, 0] / fit.axes[0], local[:, 1] / fit.axes[1])
    return distance


def _inliers(fit: Outline, points: Floats, params: RansacParams) -> Mask:
    near: Mask = np.abs(radial_distance(fit, points) - 1.0) <= params.tolerance
    return near


def _conics(samples: Floats) -> Floats:
    """Rows (A, B, C, D, E, F) of the conic A x^2 + B xy + C y^2 + D x + E y + F = 0 through
    each set of five points (all zero where there is none); samples has shape (sets, 5, 2)."""
    x, y = samples[..., 0], samples[..., 1]
    design = np.stack([x * x, x * y, y * y, x, y, np.ones_like(x)], axis=-1)
    # F = -1: centred points make a conic through the origin (F = 0) all but impossible.
    # Repeated points (a contour doubles back along a thin stroke) make a system singular.
    square = design[..., :5].copy()
    singular = np.abs(np.linalg.det(square)) < SINGULAR
    square[singular] = np.eye(5)
    quadric = np.linalg.solve(square, np.ones((*design.shape[:2], 1)))[..., 0]
    quadric[singular] = 0.0  # no conic: dropped as not an ellipse
    return np.concatenate([quadric, -np.ones((len(quadric), 1))], axis=1)


def _ellipses(conics: Floats) -> Floats:
    """Rows (cx, cy, a, b, angle_deg) of the conics that are real ellipses (others dropped)."""
    conics = conics * np.sign(conics[:, 0] + conics[:, 2])[:, None]  # a + c > 0: level < 0 inside
    a, b, c, d, e, f = conics.T
    det = 4.0 * a * c - b * b
    ok = det > SINGULAR  # an ellipse: a hyperbola or parabola has det <= 0
    a, b, c, d, e, f, det = (v[ok] for v in (a, b, c, d, e, f, det))
    cx, cy = (b * e - 2.0 * c * d) / det, (b * d - 2.0 * a * e) / det
    level = a * cx * cx + b * cx * cy + c * cy * cy + d * cx + e * cy + f
    root = np.hypot(a - c, b)
    small, large = (a + c - root) / 2.0, (a + c + root) / 2.0  # eigenvalues of [[a, b/2], [b/2, c]]
    with np.errstate(invalid="ignore", divide="ignore"):
        major, minor = np.sqrt(-level / small), np.sqrt(-level / large)
    angle = np.rad2deg(0.5 * np.arctan2(-b, c - a)) % 180.0  # the direction of the small eigenvalue
    rows = np.stack([cx, cy, major, minor, angle], axis=1)
    finite: Floats = rows[np.all(np.isfinite(rows), axis=1)]
    return finite


def _picks(count: int, params: RansacParams) -> Ints:
    """Indices (rounds x sample) of contour points for RANSAC: one point from each of equal
    stretches of the whole contour (spread samples fit stably), or, for `arc_share` of the
    rounds, of a random stretch of it (a seal merged with print keeps a stretch of clean ring)."""
    rng = np.random.default_rng(params.seed)  # fixed: the same page gives the same seals
    arcs = round(params.arc_share * params.rounds)
    offsets = (np.arange(params.sample) + rng.random((params.rounds, params.sample))) / params.sample
    starts = np.zeros(params.rounds)
    spans = np.ones(params.rounds)
    starts[:arcs] = rng.random(arcs)
    spans[:arcs] = rng.uniform(*params.arc_span, arcs)
    return ((starts[:, None] + offsets * spans[:, None]) * count).astype(int) % count


def _hypotheses(points: Floats, params: RansacParams) -> Floats:
    """RANSAC ellipses as rows (cx, cy, a, b, angle_deg) through samples of the contour. The
    points are centred and scaled first, which keeps the five-point systems well conditioned."""
    mean, spread = points.mean(axis=0), max(float(points.std()), 1.0)
    rows = _ellipses(_conics((points[_picks(len(points), params)] - mean) / spread))
    rows[:, :4] *= spread
    rows[:, :2] += mean
    return rows


def _sane(rows: Floats, points: Floats, params: RansacParams) -> Mask:
    """Hypotheses centred near the contour (within `centre_reach` of its extent beside it: an
    arc of a ring cut by the page edge has its centre beside it), no larger than that reach,
    and not too elongated."""
    low, high = points.min(axis=0), points.max(axis=0)
    reach = params.centre_reach * (high - low)
    low, high = low - reach, high + reach
    inside = np.all((rows[:, :2] >= low) & (rows[:, :2] <= high), axis=1)
    small = rows[:, 2] <= float(np.max(high - low))
    sane: Mask = inside & small & (rows[:, 3] > 0) & (rows[:, 2] <= params.max_aspect * rows[:, 3])
    return sane


def _outline_ink(rows: Floats, ink: Mask, params: RansacParams) -> Floats:
    """Per hypothesis, the share of its visible outline (just inside its outer edge) on ink."""
    t = np.linspace(0.0, 2.0 * np.pi, params.outline_samples, endpoint=False)
    a, b = rows[:, 2:3] - params.outline_inset_px, rows[:, 3:4] - params.outline_inset_px
    x, y = a * np.cos(t), b * np.sin(t)  # (hypotheses, samples) in each seal's frame
    theta = np.deg2rad(rows[:, 4:5])
    cos, sin = np.cos(theta), np.sin(theta)
    points = np.stack([x * cos - y * sin + rows[:, 0:1], x * sin + y * cos + rows[:, 1:2]], axis=-1)
    inside = inside_image(points, ink.shape[1], ink.shape[0])
    cols = np.clip(np.rint(points[..., 0]).astype(int), 0, ink.shape[1] - 1)
    lines = np.clip(np.rint(points[..., 1]).astype(int), 0, ink.shape[0] - 1)
    inked = ink[lines, cols] & inside
    share: Floats = inked.sum(axis=1) / np.maximum(inside.sum(axis=1), 1)
    return share


def ransac_ellipse(points: Floats, ink: Mask, params: RansacParams) -> Outline | None:
    """The ellipse through contour samples whose outline runs on ink the most, or None.

    Lines and text touching a seal drag a least-squares fit off the ring; hypotheses through
    samples of the contour, judged by how much of their outline is inked, are not.
    """
    if len(points) <= params.sample:
        return None
    rows = _hypotheses(points, params)
    rows = rows[_sane(rows, points, params)]
    if not len(rows):
        return None
    score = _outline_ink(rows, ink, params)
    # Of the ellipses about as well inked as the best, the largest: a double ring's outer one,
    # not an ellipse through the dense print inside a seal.
    near_best = np.nonzero(score >= score.max() - params.tie)[0]
    best = rows[near_best[np.argmax(rows[near_best, 2] * rows[near_best, 3])]]
    return Outline(
        Shape.OVAL, (float(best[0]), float(best[1])), (float(best[2]), float(best[3])), float(best[4])
    )


def refit(fit: Outline, points: Floats, params: RansacParams) -> Outline:
    """The least-squares ellipse of the points that agree with `fit` (itself when too few do)."""
    near = _inliers(fit, points, params)
    if near.sum() < MIN_CONTOUR_POINTS:
        return fit
    again = as_fit(Shape.OVAL, cv2.fitEllipse(points[near]))
    return again if finite(again) else fit


def fit_ellipse(points: Floats, ink: Mask, params: RansacParams) -> Outline:
    """Least-squares ellipse, by RANSAC when too few points agree with it, refitted on inliers."""
    fit = as_fit(Shape.OVAL, cv2.fitEllipse(points))
    if _inliers(fit, points, params).mean() < params.min_inlier_fraction:
        fit = ransac_ellipse(points, ink, params) or fit
    return refit(fit, points, params)


def ring_points(fit: Outline, ink: Mask, params: RansacParams) -> Floats:
    """float32[N, 2]: along each of `outline_samples` rays from the fit's centre, through its
    outline, the outermost ink within `snap_reach` of the outline (rays without ink left out):
    the ring is a seal's outermost ink, wherever the contour the fit came from strayed.
    Empty for a degenerate fit (not finite, under a pixel, or far larger than the image)."""
    size = (*fit.center, *fit.axes)
    if not np.all(np.isfinite(size)) or min(fit.axes) < 1.0 or max(fit.axes) > 2.0 * max(ink.shape):
        return np.zeros((0, 2), np.float32)
    t = np.linspace(0.0, 2.0 * np.pi, params.outline_samples, endpoint=False)
    frame = np.stack([fit.axes[0] * np.cos(t), fit.axes[1] * np.sin(t)], axis=1) @ rotation(fit.angle_deg).T
    radius = np.hypot(frame[:, 0], frame[:, 1])[:, None]
    # One step a pixel on the longest ray (the guard above keeps every radius at least 1).
    shares = np.arange(-params.snap_reach, params.snap_reach, 1.0 / float(radius.max()))
    along = radius * (1.0 + shares[None, :])  # (rays, steps) px from the centre
    unit = frame / radius
    xs = np.rint(fit.center[0] + unit[:, 0:1] * along).astype(int)
    ys = np.rint(fit.center[1] + unit[:, 1:2] * along).astype(int)
    inside = (xs >= 0) & (ys >= 0) & (xs < ink.shape[1]) & (ys < ink.shape[0])
    hit = np.zeros(xs.shape, bool)
    hit[inside] = ink[ys[inside], xs[inside]]
    rays = np.nonzero(hit.any(axis=1))[0]
    last = hit.shape[1] - 1 - np.argmax(hit[rays, ::-1], axis=1)
    ring: Floats = np.stack([xs[rays, last], ys[rays, last]], axis=1).astype(np.float32)
    return ring


def snapped(fit: Outline, ink: Mask, params: RansacParams) -> Outline | None:
    """The ellipse through the ring around `fit` (`ring_points`, robustly: rules crossing the
    ring give outliers), or None. A fit dragged off a ring by a table merged with it lies
    near the ring, and the ring shows along most rays from its centre."""
    points = ring_points(fit, ink, params)
    found = ransac_ellipse(points, ink, params) if len(points) > params.sample else None
    return refit(found, points, params) if found is not None else None
