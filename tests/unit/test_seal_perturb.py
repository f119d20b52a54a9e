"""The harness's perturbations of real pages (evaluation.seal.perturb): pure, no models."""

from __future__ import annotations

import cv2
import numpy as np
import pytest
from imgproc.imaging import decode_rgb

from evaluation.seal.dataset import TruthPage, TruthSeal, box_iou
from evaluation.seal.perturb import PERTURBATIONS, perturbed

RED = (200, 30, 40)


def _page_with_a_ring(center: tuple[int, int] = (300, 200), axes: tuple[int, int] = (90, 60)) -> TruthPage:
    rgb = np.full((400, 640, 3), 250, np.uint8)
    cv2.ellipse(rgb, center, axes, 0, 0, 360, RED, 6)
    box = (center[0] - axes[0], center[1] - axes[1], center[0] + axes[0], center[1] + axes[1])
    image = cv2.imencode(".png", rgb[:, :, ::-1])[1].tobytes()
    return TruthPage("ring", "real", "tuning", image, (TruthSeal(box, "oval", "某某有限公司"),))


def _ring_box(rgb: np.ndarray) -> tuple[int, int, int, int]:
    """The box of the red (or, grey, the dark) pixels of a page."""
    ink = (rgb.astype(int).max(axis=2) - rgb.astype(int).min(axis=2) > 60) | (rgb.max(axis=2) < 150)
    ys, xs = np.nonzero(ink)
    return int(xs.min()), int(ys.min()), int(xs.max()) + 1, int(ys.max()) + 1


@pytest.mark.parametrize("name", sorted(PERTURBATIONS))
def test_the_truth_moves_with_the_image(name: str) -> None:
    page = _page_with_a_ring()
    changed = perturbed(page, name)
    assert changed.name == f"ring {name}" and changed.seals[0].rim_text == "某某有限公司"
    assert box_iou(changed.seals[0].box, _ring_box(decode_rgb(changed.image))) > 0.85


def test_small_halves_the_page_and_grey_leaves_no_colour() -> None:
    page = _page_with_a_ring()
    assert decode_rgb(perturbed(page, "small").image).shape[:2] == (200, 320)
    grey = decode_rgb(perturbed(page, "grey").image).astype(int)
    assert np.all(grey.max(axis=2) == grey.min(axis=2))
