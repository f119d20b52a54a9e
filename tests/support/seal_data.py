"""Facts shared by the seal test and the seal evaluation harness: the real dev set, box matching."""

from __future__ import annotations

from pathlib import Path

Box = tuple[int, int, int, int]

# ../shared/datasets/seals-dev beside the project (read there, never copied in).
SEALS_DEV = Path(__file__).resolve().parents[3] / "shared" / "datasets" / "seals-dev"
SYNTHETIC_DEV = frozenset({"seal_010.png"})  # a synthetic demo image
RENDERED_DEV = frozenset({"seal_012.jpg", "seal_013.jpeg", "seal_014.jpeg"})  # digital renders
MATCH_IOU = 0.5  # a found seal matches a true one when their boxes overlap this much


def dev_group(file: str) -> str:
    """Which part of seals-dev an image belongs to: real, synthetic or rendered."""
    return "synthetic" if file in SYNTHETIC_DEV else "rendered" if file in RENDERED_DEV else "real"


def box_iou(a: Box, b: Box) -> float:
    """Intersection over union of two (x0, y0, x1, y1) boxes."""
    ix = max(0, min(a[2], b[2]) - max(a[0], b[0]))
    iy = max(0, min(a[3], b[3]) - max(a[1], b[1]))
    union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - ix * iy
    return ix * iy / union if union else 0.0
