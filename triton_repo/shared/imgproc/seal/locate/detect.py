"""The learned seal text detector's tensors: a seal crop in, a text probability map out.

The detector is PaddleX's PP-OCRv4 mobile seal text detector (Triton model
`seal_text_detection`), a DB network trained on circular and oval stamps that marks their
curved text lines. It was trained on upright seals, so an oval's crop is turned first so
that its long axis is level (`level_turn`; a round seal says nothing about its way up and
is left as it is). Seals stamped turned far from upright show their inner lines (the
purpose line, the tax ID) turned too, and the detector misses or merges them with the rim;
such a seal's crop is read once more turned so its own up points up (`upright_turn`).
`seal_det_input` builds its input as PaddleX does: BGR, short side
brought to `DetParams.side` with both sides multiples of 32, ImageNet mean and deviation;
`text_map` turns its output back into a probability map over the unturned crop.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from imgproc.arrays import Floats, Pixels, as_floats, as_pixels
from imgproc.imaging import WHITE

from ..geometry import render, turn_matrix
from ..records import SealRegion

IMAGENET_MEAN = np.array([0.485, 0.456, 0.406], np.float32)  # PaddleX's NormalizeImage, BGR input
IMAGENET_STD = np.array([0.229, 0.224, 0.225], np.float32)
SIZE_MULTIPLE = 32  # the network downsamples by 32: input sides are multiples of it


@dataclass(frozen=True)
class DetParams:
    """The detector's input size, and when a seal's crop is detected again upright."""

    side: int = 736  # short side of its input: PaddleX's default for this model
    # A seal found without inner lines whose up (from its rim) is further than this many
    # degrees from the page's is detected again turned upright, for its inner lines only.
    # Generated seeds 7000/8000: inner lines 52 -> 62 of 98 and 73 -> 77 of 109; rims, codes,
    # the real tuning part and its perturbations unchanged (real seals are seldom turned so far).
    upright_after_deg: float = 30.0
    # The inside whose mean text probability is the region's `text_inside` (trust's seal score
    # rests on it): within the outline scaled by this, where a seal's rim text and inner lines
    # lie and its ring does not. A seal is engraved with text all through it; a red logo, a
    # badge or an emblem is not. On the real tuning parts its mean is 0.40 on the real round and
    # oval regions, 0.06 on the false; added to the seal score it lowered the log loss left out
    # by repository 0.145 -> 0.135 (the whole outline, 1.0: 0.142; the rim's band 0.6-0.9: 0.138).
    inside_scale: float = 0.8


DEFAULT_DET = DetParams()


def level_turn(region: SealRegion) -> float:
    """Degrees to turn a crop (clockwise on screen) so an oval's long axis is level, the way
    that turns least; 0 for round seals, whose axes say nothing."""
    if not region.shape.has_axes:
        return 0.0
    return -((region.angle_deg + 90.0) % 180.0 - 90.0)


def upright_turn(up: Floats) -> float:
    """Degrees to turn a crop (clockwise on screen, as `level_turn`) so that the image
    direction `up` points up the page, in (-180, 180]."""
    turn = -90.0 - float(np.degrees(np.arctan2(up[1], up[0])))
    return 180.0 - (180.0 - turn) % 360.0


def _snapped(height: int, width: int, side: int) -> tuple[int, int]:
    ratio = side / min(height, width)
    return (
        max(SIZE_MULTIPLE, round(height * ratio / SIZE_MULTIPLE) * SIZE_MULTIPLE),
        max(SIZE_MULTIPLE, round(width * ratio / SIZE_MULTIPLE) * SIZE_MULTIPLE),
    )


def seal_det_input(bgr: Pixels, turn: float, params: DetParams = DEFAULT_DET) -> Floats:
    """float32[1, 3, H, W] detector input of a BGR seal crop turned by `turn` degrees."""
    matrix, canvas = turn_matrix((bgr.shape[1], bgr.shape[0]), turn)
    turned = (
        as_pixels(cv2.warpAffine(bgr, matrix, canvas, flags=cv2.INTER_LINEAR, borderValue=(WHITE,) * 3))
        if turn
        else bgr
    )
    height, width = _snapped(turned.shape[0], turned.shape[1], params.side)
    scaled = as_pixels(cv2.resize(turned, (width, height))).astype(np.float32) * np.float32(1.0 / 255.0)
    return np.ascontiguousarray(((scaled - IMAGENET_MEAN) / IMAGENET_STD).transpose(2, 0, 1)[None])


def text_map(output: Floats, crop_shape: tuple[int, ...], turn: float) -> Floats:
    """The detector's output as a float32 probability map over the (unturned) crop."""
    height, width = crop_shape[:2]
    matrix, canvas = turn_matrix((width, height), turn)
    prob = as_floats(cv2.resize(np.asarray(output, np.float32).reshape(output.shape[-2:]), canvas))
    if not turn:
        return prob
    return as_floats(
        cv2.warpAffine(prob, matrix, (width, height), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP)
    )


def text_inside(prob: Floats, region: SealRegion, params: DetParams = DEFAULT_DET) -> float:
    """The detector's mean probability (`text_map`, over the crop) within `region`'s outline
    scaled by `DetParams.inside_scale`: how much of a seal's inside reads as text."""
    inside = render(region.scaled(params.inside_scale), prob.shape[:2])
    return float(prob[inside].mean()) if inside.any() else 0.0
