"""Fitting a seal's outline: ellipse or rectangle, robust to what touches the seal.

A seal's contour is rarely a clean ellipse: table rules, text and the red form print run
into it, and a seal cut by the page edge leaves an open ring. The least-squares fit is kept
when most contour points agree with it; otherwise ellipses through spread samples of the
contour are tried (RANSAC with a fixed seed, so a page always gives the same answer) and the
one whose outline lies on ink the most wins, refitted on the points that agree with it.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from .shapes import Shape, ellipse_offset_points, inside_image, rotation, sample_mask

MIN_CONTOUR_POINTS = 5  # cv2.fitEllipse needs five


@dataclass(frozen=True)
class FitParams:
    """Robust ellipse fitting."""

    tolerance: float = 0.05  # relative radial distance of a contour point that agrees with a fit
    min_inlier_fraction: float = 0.85  # below this the least-squares fit is not trusted
    rounds: int = 300
    sample: int = 5
    seed: int = 0
    outline_samples: int = 360
    outline_inset_px: float = 1.5  # where a hypothesis looks for the ring, inside its outer edge
    max_aspect: float = 2.2


DEFAULT_FIT = FitParams()


@dataclass(frozen=True)
class Fit:
    """A fitted outline; `axes` are semi-axes (half sides), the first the longer."""

    shape: Shape
    center: tuple[float, float]
    axes: tuple[float, float]
    angle_deg: float


def as_fit(shape: Shape, box: tuple[tuple[float, float], tuple[float, float], float]) -> Fit:
    """An OpenCV rotated box as a fit whose first axis is the long one."""
    (cx, cy), (w, h), angle = box
    if h > w:
        w, h, angle = h, w, angle + 90.0
    return Fit(shape, (float(cx), float(cy)), (w / 2.0, h / 2.0), float(angle) % 180.0)


def render(fit: Fit, size: tuple[int, int]) -> np.ndarray:
    """Boolean mask of the filled outline on a canvas of `size` (rows, columns)."""
    canvas = np.zeros(size, np.uint8)
    full = (fit.axes[0] * 2.0, fit.axes[1] * 2.0)
    if fit.shape == "rect":
        corners = cv2.boxPoints((fit.center, full, fit.angle_deg))
        cv2.fillPoly(canvas, [np.rint(corners).astype(np.int32)], 1)
    else:
        cv2.ellipse(canvas, (fit.center, full, fit.angle_deg), 1, -1)
    return canvas > 0


def iou(a: np.ndarray, b: np.ndarray) -> float:
    """Intersection over union of two boolean masks."""
    union = np.count_nonzero(a | b)
    return np.count_nonzero(a & b) / union if union else 0.0


def best_plain_fit(points: np.ndarray, blob: np.ndarray) -> tuple[Fit, float]:
    """The plain ellipse or rectangle fit that matches the blob better, and its IoU."""
    plain = [as_fit("oval", cv2.fitEllipse(points)), as_fit("rect", cv2.minAreaRect(points))]
    scored = [(fit, iou(blob, render(fit, blob.shape))) for fit in plain]
    return max(scored, key=lambda item: item[1])


def _radial_distance(fit: Fit, points: np.ndarray) -> np.ndarray:
    """Each point's distance from the centre in units of the ellipse radius in its direction."""
    local = (points - np.asarray(fit.center)) @ rotation(fit.angle_deg)
    return np.hypot(local[:, 0] / fit.axes[0], local[:, 1] / fit.axes[1])


def _inliers(fit: Fit, points: np.ndarray, params: FitParams) -> np.ndarray:
    return np.abs(_radial_distance(fit, points) - 1.0) <= params.tolerance


def _sane(fit: Fit, points: np.ndarray, params: FitParams) -> bool:
    """A hypothesis no larger than the contour, centred inside it and not too elongated."""
    low, high = points.min(axis=0), points.max(axis=0)
    inside = bool(np.all(np.asarray(fit.center) >= low) and np.all(np.asarray(fit.center) <= high))
    small = fit.axes[0] <= float(np.max(high - low))
    return inside and small and 0 < fit.axes[1] and fit.axes[0] <= params.max_aspect * fit.axes[1]


def _outline_ink(fit: Fit, ink: np.ndarray, params: FitParams) -> float:
    """Share of the visible outline (just inside its outer edge) that lies on ink."""
    t = np.linspace(0.0, 2.0 * np.pi, params.outline_samples, endpoint=False)
    inset = np.full(t.shape, params.outline_inset_px)
    points = ellipse_offset_points(fit.center, fit.axes, fit.angle_deg, t, inset)
    inside = inside_image(points, ink.shape[1], ink.shape[0])
    return float(sample_mask(ink, points[inside]).mean()) if inside.any() else 0.0


def _ransac_ellipse(points: np.ndarray, ink: np.ndarray, params: FitParams) -> Fit:
    """The ellipse through contour samples whose outline runs on ink the most.

    Lines and text touching a seal drag a least-squares fit off the ring; hypotheses from
    spread samples of the contour, judged by how much of their outline is inked, are not.
    """
    rng = np.random.default_rng(params.seed)  # fixed: the same page gives the same seals
    best, best_score = as_fit("oval", cv2.fitEllipse(points)), -1.0
    stretch = len(points) / params.sample
    for _ in range(params.rounds):
        # One point from each of equal stretches of the contour: spread samples fit stably.
        picks = (np.arange(params.sample) + rng.random(params.sample)) * stretch
        fit = as_fit("oval", cv2.fitEllipse(points[picks.astype(int)]))
        if _sane(fit, points, params) and (score := _outline_ink(fit, ink, params)) > best_score:
            best, best_score = fit, score
    return best


def fit_ellipse(points: np.ndarray, ink: np.ndarray, params: FitParams) -> Fit:
    """Least-squares ellipse, by RANSAC when too few points agree with it, refitted on inliers."""
    fit = as_fit("oval", cv2.fitEllipse(points))
    if _inliers(fit, points, params).mean() < params.min_inlier_fraction and len(points) > params.sample:
        fit = _ransac_ellipse(points, ink, params)
    near = _inliers(fit, points, params)
    return as_fit("oval", cv2.fitEllipse(points[near])) if near.sum() >= MIN_CONTOUR_POINTS else fit
