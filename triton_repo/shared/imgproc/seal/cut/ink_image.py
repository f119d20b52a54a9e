"""The ink image and ink mask of one seal's crop, with thresholds adapted to its own ink.

The ink image (`ink_gray_hsv`: red strokes dark, paper and other print white) is what the
classical path and the ink strips read: the detail comes from the green channel, where red
ink is dark (JPEG keeps colour at half resolution, so a hue- or saturation-based image blurs
thin strokes); the colour decides which pixels may be ink (those near the red mask); black or
blue print inside that area is inpainted from its surroundings, so red strokes it crossed
continue and paper stays white. The saturation floors are scaled to this seal's own ink
(`adapted_to`), so a faint impression keeps its thin strokes. A seal without colour (on a grey
photocopy) has toner for ink: its image is the crop's brightness, its mask the toner at the
crop's own level (`crop_toner`).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import cv2
import numpy as np

from imgproc.arrays import Mask, Pixels
from imgproc.imaging import WHITE

from ..ink import DEFAULT_INK, InkParams, red_mask_hsv


@dataclass(frozen=True)
class CutParams:
    """How much page is cut around a seal, and how its ink image is made."""

    # Of the seal's long semi-axis, kept around it: the ring's outer edge, and some paper.
    margin: float = 0.1
    # Saturation percentile of a seal's ink that `adapted_to` scales its floors to.
    contrast_percentile: float = 90.0
    # Around one seal, saturation floors may drop to this share of the seal's own ink...
    relative_saturation: float = 0.4
    # ...but never below this, which is above the tint of paper (for vermilion: of brown print).
    saturation_floor: int = 16
    vermilion_floor: int = 60
    # Pixels this close to faintly red pixels may be ink (anti-aliased edges are barely red)...
    near_kernel_px: int = 7
    gate_saturation: int = 12  # ...faintly red: at least this saturated (paper: about 5)
    # Black print inside the seal is grown by this many pixels (its anti-aliased edge) and
    # inpainted with this radius.
    print_edge_px: int = 1
    inpaint_radius_px: int = 3
    other_min_saturation: int = 60  # a saturated pixel of another hue is print (blue, green)
    # A dull pixel darker than faint ink is print too: grey edges of blurred black text.
    grey_max_saturation: int = 40
    grey_max_value: int = 190
    # Inpainting only guesses: a guess is lightened this share of the way to paper, so it never
    # reads as a firm stroke.
    guess_lightening: float = 0.25
    # Another seal stamped over this one (`rings`): its ring, inpainted, is the insets of its
    # outline inked over `ring_share` of its best-inked inset's share, searched down to
    # `ring_reach` of its short semi-axis (rings are 0.04-0.09 of it), and `ring_pad_px` more
    # each side (anti-aliasing, the fit's error); its ink sampled at `ring_samples` points a turn.
    # Generated joint notices (seed 40000, 65 seals found): rims 33 -> 34 (4 fixed, 3 broken),
    # CER 0.195 -> 0.176.
    other_rings: bool = True
    ring_share: float = 0.6
    ring_reach: float = 0.15
    ring_pad_px: int = 1
    ring_samples: int = 360
    # An oval whose rim went unread is read with this many of its crop's widths of the page at
    # each side (`surroundings`), for the invoice title its supervision seal is stamped across
    # (`repair`'s cues).
    cue_reach: float = 1.0


DEFAULT_CUT = CutParams()


def adapted_to(hsv: Pixels, ink: InkParams = DEFAULT_INK, params: CutParams = DEFAULT_CUT) -> InkParams:
    """Ink thresholds for the area around one seal, with saturation floors scaled to its ink.

    A faint impression has pale strokes that the page-wide floors cut; its ring tells how
    saturated this seal's ink is, so thin strokes down to a share of that still count.
    """
    mask = red_mask_hsv(hsv, ink)
    if not mask.any():
        return ink
    reference = float(np.percentile(hsv[..., 1][mask], params.contrast_percentile))
    floor = max(params.saturation_floor, round(params.relative_saturation * reference))
    return replace(
        ink,
        magenta_min_saturation=min(ink.magenta_min_saturation, floor),
        red_min_saturation=min(ink.red_min_saturation, floor),
        vermilion_min_saturation=min(ink.vermilion_min_saturation, max(params.vermilion_floor, floor)),
    )


def _other_print(hsv: Pixels, near: Mask, ink: InkParams, params: CutParams) -> Mask:
    """Black print, and print of another colour (blue, green), in the seal's area, grown by
    its anti-aliased edge."""
    hue, sat, val = hsv[..., 0], hsv[..., 1], hsv[..., 2]
    reddish = (hue >= ink.magenta_hue_min) | (hue <= ink.vermilion_hue_max)
    coloured = (sat >= params.other_min_saturation) & ~reddish
    grey = (sat < params.grey_max_saturation) & (val < params.grey_max_value)
    found = near & ((val < ink.min_value) | coloured | grey)
    size = params.print_edge_px * 2 + 1
    return cv2.dilate(found.astype(np.uint8), np.ones((size, size), np.uint8)) > 0


def ink_gray_hsv(
    rgb: Pixels, hsv: Pixels, ink: InkParams = DEFAULT_INK, params: CutParams = DEFAULT_CUT
) -> Pixels:
    """HxW uint8 ink image of an RGB image whose OpenCV HSV conversion is at hand: red strokes
    dark, paper and black print white (see the module docstring)."""
    # A loose saturation floor: pale parts of thin strokes count, paper (S ~ 5) does not.
    loose = replace(
        ink, magenta_min_saturation=params.gate_saturation, red_min_saturation=params.gate_saturation
    )
    size = params.near_kernel_px
    near = cv2.dilate(red_mask_hsv(hsv, loose).astype(np.uint8), np.ones((size, size), np.uint8)) > 0
    gray = np.where(near, rgb[..., 1], WHITE).astype(np.uint8)
    other = _other_print(hsv, near, ink, params)
    if other.any():
        filled = cv2.inpaint(gray, other.astype(np.uint8), params.inpaint_radius_px, cv2.INPAINT_TELEA)
        lighter = (
            filled.astype(np.float32) * (1.0 - params.guess_lightening) + WHITE * params.guess_lightening
        )
        gray = np.where(other, lighter, gray).astype(np.uint8)
    gray[~near] = WHITE
    return gray


def crop_toner(value: Pixels) -> Mask:
    """Boolean toner mask of a grey seal's crop (its HSV value channel), at the crop's own
    Otsu threshold: seals are found at several toner levels, and one fixed level cuts a pale
    seal's strokes apart or runs a dark one's into the print. Tuning part made grey, rims
    16 -> 17/25 (CER 19.9% -> 15.7%) against the finder's 200; at 180 it read 12, at 220 17."""
    level, _ = cv2.threshold(value, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    return value <= level  # Otsu's level is the dark class's top (OpenCV marks what lies above)
