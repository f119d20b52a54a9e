"""Red seal ink: the HSV mask, and separating the seal from the black print under it.

Seal ink is red, pink-red or vermilion; documents under it are black, and invoice forms are
often printed in a brownish orange that must not count as ink. The mask therefore takes three
hue bands, each with its own saturation floor: magenta-red (high hues) and pure red accept
faint, pale impressions; the orange-red band near brown only accepts strongly saturated
(vermilion) ink. A value floor drops black print. `ink_gray` then builds the recogniser's
image: the green channel near red ink (full-resolution detail, red strokes dark), with black
print inpainted away, so strokes it crossed continue and no black text is left.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import cv2
import numpy as np

WHITE = 255
HUE_MAX = 179  # OpenCV's 8-bit hue runs 0-179


@dataclass(frozen=True)
class RedInkThresholds:
    """HSV thresholds (OpenCV scale: hue 0-179, saturation and value 0-255)."""

    magenta_hue_min: int = 155
    magenta_min_saturation: int = 28
    red_hue_max: int = 7
    red_min_saturation: int = 28
    vermilion_hue_max: int = 18
    vermilion_min_saturation: int = 120
    min_value: int = 80
    # Saturation percentile of a seal's ink that `adapted_to` scales its floors to.
    contrast_percentile: float = 90.0
    # Pixels this close to faintly red pixels may be ink (anti-aliased edges are barely red).
    near_kernel_px: int = 7
    gate_saturation: int = 12
    # Black print inside the seal is grown by this many pixels (its anti-aliased edge) and
    # inpainted with this radius.
    print_edge_px: int = 1
    other_min_saturation: int = 60  # a saturated pixel of another hue is print (blue, green)
    # A dull pixel darker than faint ink is print too: grey edges of blurred black text.
    grey_max_saturation: int = 40
    grey_max_value: int = 190
    inpaint_radius_px: int = 3
    guess_lightening: float = 0.25
    # Around one seal, saturation floors may drop to this share of the seal's own ink...
    relative_saturation: float = 0.4
    # ...but never below this, which is above the tint of paper (for vermilion: of brown print).
    saturation_floor: int = 16
    vermilion_floor: int = 60


DEFAULT_INK = RedInkThresholds()


def to_hsv(rgb: np.ndarray) -> np.ndarray:
    """Convert an HxWx3 uint8 RGB image to OpenCV HSV."""
    return cv2.cvtColor(rgb, cv2.COLOR_RGB2HSV)


def red_mask_hsv(hsv: np.ndarray, thresholds: RedInkThresholds = DEFAULT_INK) -> np.ndarray:
    """Boolean HxW mask of red-ink pixels in an OpenCV HSV image."""
    hsv = np.ascontiguousarray(hsv)
    bands = (  # (lowest hue, highest hue, saturation floor), each taken from `min_value` up
        (thresholds.magenta_hue_min, HUE_MAX, thresholds.magenta_min_saturation),
        (0, thresholds.red_hue_max, thresholds.red_min_saturation),
        (thresholds.red_hue_max + 1, thresholds.vermilion_hue_max, thresholds.vermilion_min_saturation),
    )
    mask = np.zeros(hsv.shape[:2], np.uint8)
    for low, high, floor in bands:
        if low <= high:
            band = cv2.inRange(hsv, (low, floor, thresholds.min_value), (high, WHITE, WHITE))
            mask = cv2.bitwise_or(mask, band)
    return mask > 0


def red_mask(rgb: np.ndarray, thresholds: RedInkThresholds = DEFAULT_INK) -> np.ndarray:
    """Boolean HxW mask of red-ink pixels in an RGB image."""
    return red_mask_hsv(to_hsv(rgb), thresholds)


def adapted_to(hsv: np.ndarray, thresholds: RedInkThresholds = DEFAULT_INK) -> RedInkThresholds:
    """Thresholds for the area around one seal, with saturation floors scaled to its ink.

    A faint impression has pale strokes that the page-wide floors cut; its ring tells how
    saturated this seal's ink is, so thin strokes down to a share of that still count.
    """
    mask = red_mask_hsv(hsv, thresholds)
    if not mask.any():
        return thresholds
    reference = float(np.percentile(hsv[..., 1][mask], thresholds.contrast_percentile))
    floor = max(thresholds.saturation_floor, round(thresholds.relative_saturation * reference))
    return replace(
        thresholds,
        magenta_min_saturation=min(thresholds.magenta_min_saturation, floor),
        red_min_saturation=min(thresholds.red_min_saturation, floor),
        vermilion_min_saturation=min(
            thresholds.vermilion_min_saturation, max(thresholds.vermilion_floor, floor)
        ),
    )


def seal_only(rgb: np.ndarray, thresholds: RedInkThresholds = DEFAULT_INK) -> np.ndarray:
    """Copy of the RGB image with every pixel that is not red ink turned white."""
    out = rgb.copy()
    out[~red_mask(rgb, thresholds)] = WHITE
    return out


def _other_print(hsv: np.ndarray, near: np.ndarray, thresholds: RedInkThresholds) -> np.ndarray:
    """Black print, and print of another colour (blue, green), in the seal's area, grown by
    its anti-aliased edge."""
    hue, sat, val = hsv[..., 0], hsv[..., 1], hsv[..., 2]
    reddish = (hue >= thresholds.magenta_hue_min) | (hue <= thresholds.vermilion_hue_max)
    coloured = (sat >= thresholds.other_min_saturation) & ~reddish
    grey = (sat < thresholds.grey_max_saturation) & (val < thresholds.grey_max_value)
    found = near & ((val < thresholds.min_value) | coloured | grey)
    size = thresholds.print_edge_px * 2 + 1
    return cv2.dilate(found.astype(np.uint8), np.ones((size, size), np.uint8)) > 0


def ink_gray_hsv(rgb: np.ndarray, hsv: np.ndarray, thresholds: RedInkThresholds = DEFAULT_INK) -> np.ndarray:
    """`ink_gray` of an RGB image whose OpenCV HSV conversion is already at hand.

    The detail comes from the green channel, where red ink is dark: JPEG keeps colour at half
    resolution, so a hue- or saturation-based image blurs thin strokes. The colour decides
    which pixels may be ink (those near the red mask); black or blue print inside that area is
    inpainted from its surroundings, so red strokes it crossed continue and paper stays white.
    """
    # A loose saturation floor: pale parts of thin strokes count, paper (S ~ 5) does not.
    loose = replace(
        thresholds,
        magenta_min_saturation=thresholds.gate_saturation,
        red_min_saturation=thresholds.gate_saturation,
    )
    size = thresholds.near_kernel_px
    near = cv2.dilate(red_mask_hsv(hsv, loose).astype(np.uint8), np.ones((size, size), np.uint8)) > 0
    gray = np.where(near, rgb[..., 1], WHITE).astype(np.uint8)
    other = _other_print(hsv, near, thresholds)
    if other.any():
        filled = cv2.inpaint(gray, other.astype(np.uint8), thresholds.inpaint_radius_px, cv2.INPAINT_TELEA)
        # Inpainting only guesses: half way to paper, so a guess never reads as a firm stroke.
        lighter = (
            filled.astype(np.float32) * (1.0 - thresholds.guess_lightening)
            + WHITE * thresholds.guess_lightening
        )
        gray = np.where(other, lighter, gray).astype(np.uint8)
    gray[~near] = WHITE
    return gray


def ink_gray(rgb: np.ndarray, thresholds: RedInkThresholds = DEFAULT_INK) -> np.ndarray:
    """HxW uint8 image for recognition: red strokes dark, paper and black print white."""
    return ink_gray_hsv(rgb, to_hsv(rgb), thresholds)


def stretch_contrast(
    gray: np.ndarray, dark_percentile: float = 3.0, light_percentile: float = 90.0
) -> np.ndarray:
    """Linear stretch of a gray ink image: its darkest `dark_percentile` % become black and
    everything lighter than its `light_percentile` % (the paper) white.

    Thin rim strokes are paler than the thick border ring; stretching each strip on its own
    gives the recogniser dark text on white paper whatever the seal's pressure.
    """
    dark, light = (float(v) for v in np.percentile(gray, [dark_percentile, light_percentile]))
    if light - dark < 1.0:
        return gray
    scaled = (gray.astype(np.float32) - dark) * (WHITE / (light - dark))
    return scaled.clip(0, WHITE).astype(np.uint8)
