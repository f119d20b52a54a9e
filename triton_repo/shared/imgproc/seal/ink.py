"""Seal ink: what red ink looks like, and when an image has no colour at all.

Seal ink is red, pink-red or vermilion; documents under it are black, and invoice forms are
often printed in a brownish orange that must not count as ink. The mask therefore takes three
hue bands, each with its own saturation floor: magenta-red (high hues) and pure red accept
faint, pale impressions; the orange-red band near brown only accepts strongly saturated
(vermilion) ink. A value floor drops black print. A photocopy or a grey scan has no colour
left (`is_grey`): its seals are toner like the print around them. Finding (on the page) and
cutting (around one seal) both read ink through these definitions.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from imgproc.arrays import Mask, Pixels, as_pixels
from imgproc.imaging import WHITE

HUE_MAX = 179  # OpenCV's 8-bit hue runs 0-179


@dataclass(frozen=True)
class InkParams:
    """Red ink in HSV (OpenCV scale: hue 0-179, saturation and value 0-255), and grey images."""

    # Magenta-red: hues from here to the top of the circle, faint impressions included.
    magenta_hue_min: int = 155
    magenta_min_saturation: int = 28  # above the tint of white paper (S ~ 5) and of JPEG noise
    red_hue_max: int = 7  # pure red: hues up to here...
    red_min_saturation: int = 28  # ...as faint as magenta
    # Vermilion: the hues between red and brown, where invoice forms' brownish-orange print
    # lies too, so only strongly saturated ink counts.
    vermilion_hue_max: int = 18
    vermilion_min_saturation: int = 120
    min_value: int = 80  # darker pixels are black print, whatever their hue
    # An image is grey (a photocopy, a grey scan) when fewer than `max_coloured` of its pixels,
    # read every `grey_stride` rows and columns, are at least `coloured_saturation` saturated
    # and `coloured_min_value` bright: a page with a red seal on it has thousands.
    grey_stride: int = 4
    coloured_saturation: int = 50
    coloured_min_value: int = 80
    max_coloured: float = 0.001


DEFAULT_INK = InkParams()


def to_hsv(rgb: Pixels) -> Pixels:
    """Convert an HxWx3 uint8 RGB image to OpenCV HSV."""
    return as_pixels(cv2.cvtColor(rgb, cv2.COLOR_RGB2HSV))


def in_range(image: Pixels, low: tuple[int, ...], high: tuple[int, ...]) -> Pixels:
    """`cv2.inRange` with one bound a channel: 255 where every channel lies within, else 0."""
    # OpenCV reads a tuple as one value a channel; its stubs allow only arrays.
    return as_pixels(cv2.inRange(image, low, high))  # type: ignore[call-overload]


def red_mask_hsv(hsv: Pixels, params: InkParams = DEFAULT_INK) -> Mask:
    """Boolean HxW mask of red-ink pixels in an OpenCV HSV image."""
    hsv = np.ascontiguousarray(hsv)
    bands = (  # (lowest hue, highest hue, saturation floor), each taken from `min_value` up
        (params.magenta_hue_min, HUE_MAX, params.magenta_min_saturation),
        (0, params.red_hue_max, params.red_min_saturation),
        (params.red_hue_max + 1, params.vermilion_hue_max, params.vermilion_min_saturation),
    )
    mask = np.zeros(hsv.shape[:2], np.uint8)
    for low, high, floor in bands:
        if low <= high:
            band = in_range(hsv, (low, floor, params.min_value), (high, WHITE, WHITE))
            mask = as_pixels(cv2.bitwise_or(mask, band))
    return mask > 0


def median_hue(hsv: Pixels, mask: Mask) -> float | None:
    """The median hue of the `mask`ed pixels of an OpenCV HSV image, magenta counted below red
    (negative) so that red ink's hues run on across zero; None where nothing is masked."""
    hues = hsv[..., 0][mask].astype(np.int16)
    if hues.size == 0:
        return None
    return float(np.median(np.where(hues > HUE_MAX // 2, hues - (HUE_MAX + 1), hues)))


def red_mask(rgb: Pixels, params: InkParams = DEFAULT_INK) -> Mask:
    """Boolean HxW mask of red-ink pixels in an RGB image."""
    return red_mask_hsv(to_hsv(rgb), params)


def without_ink(rgb: Pixels, min_saturation: int, params: InkParams = DEFAULT_INK, halo: int = 0) -> Pixels:
    """The RGB image with its seal ink taken out: what a page's reader reads of the black print
    a seal is stamped over (an issuer's name under its seal), which red strokes through it
    break into other characters. Only red and magenta ink at least `min_saturation` saturated
    is taken out, not vermilion: an invoice form's labels are printed in a brownish orange the
    reader must still read.

    Each ink pixel, and those within `halo` pixels of the ink (its pale, blurred edge), keeps
    only what red ink does not explain: its brightest channel, made grey and scaled so that the
    ink's own brightest channel (its median) is white. Ink turns white, black print crossed by
    ink stays dark, and the dark-red pixels where a black stroke's edge meets ink stay part of
    the stroke: made plain white, they cut the strokes printed under a seal's star apart."""
    hsv = to_hsv(rgb)
    red = in_range(hsv, (0, min_saturation, params.min_value), (params.red_hue_max, WHITE, WHITE))
    magenta = in_range(
        hsv, (params.magenta_hue_min, min_saturation, params.min_value), (HUE_MAX, WHITE, WHITE)
    )
    ink = as_pixels(cv2.bitwise_or(red, magenta))
    if not cv2.countNonZero(ink):
        return rgb.copy()
    # OpenCV throughout: a 12-megapixel page in tens of milliseconds, not hundreds.
    brightest = as_pixels(cv2.max(cv2.max(rgb[..., 0], rgb[..., 1]), rgb[..., 2]))
    scale = WHITE / max(_median(brightest, ink), 1.0)
    if halo > 0:
        side = 2 * halo + 1
        ink = as_pixels(cv2.dilate(ink, np.ones((side, side), np.uint8)))
    levels = np.arange(WHITE + 1, dtype=np.float32) * scale
    grey = cv2.cvtColor(cv2.LUT(brightest, np.clip(levels, 0, WHITE).astype(np.uint8)), cv2.COLOR_GRAY2RGB)
    return as_pixels(cv2.copyTo(grey, ink, rgb.copy()))


def _median(gray: Pixels, mask: Pixels) -> float:
    """The median of an 8-bit image's values under a mask (`np.median`'s), from their
    histogram: the mean of the two middle values where their count is even."""
    ranks = cv2.calcHist([gray], [0], mask, [WHITE + 1], [0, WHITE + 1]).ravel().cumsum()
    count = int(ranks[-1])
    low, high = np.searchsorted(ranks, [(count - 1) // 2 + 1, count // 2 + 1])
    return (float(low) + float(high)) / 2


def is_grey(hsv: Pixels, params: InkParams = DEFAULT_INK) -> bool:
    """Whether an OpenCV HSV image has (almost) no colour: a photocopy or a grey scan."""
    grid = np.ascontiguousarray(hsv[:: params.grey_stride, :: params.grey_stride])
    coloured = in_range(grid, (0, params.coloured_saturation, params.coloured_min_value), (WHITE,) * 3)
    return bool(np.count_nonzero(coloured) < params.max_coloured * coloured.size)


def stretch_contrast(gray: Pixels, dark_percentile: float, light_percentile: float) -> Pixels:
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
