"""Another seal's ring across this one's crop: two seals stamped over each other.

Where a second seal is stamped over the first (a notice issued jointly), its ring runs through
the first's rim and interior: a thick curved stroke across the characters, which the
recognisers read as a character of its own or let swallow the ones it crosses. The ring is
where the other seal's fit says (found on the page with it), as wide as its ink says: along
its outline moved inwards a pixel at a time, the insets inked most of the way round. Those
pixels of the crop are inpainted from around them (the first seal's strokes continue through
them; the ink of both is darker where they cross, and that is gone too), before the ink image
and mask are made. The other seal's characters stay: they are thinner, and lie inside its ring.
"""

from __future__ import annotations

import cv2
import numpy as np

from imgproc.arrays import Mask, Pixels, as_pixels

from ..geometry import TWO_PI, ellipse_offset_points, sample_mask, visible
from ..records import SealRegion
from .ink_image import CutParams


def ring_insets(region: SealRegion, ink: Mask, params: CutParams) -> tuple[float, float] | None:
    """The insets (px inwards from the outline) between which `region`'s ring lies in the
    boolean `ink` (same pixels): those inked over `ring_share` of the best-inked inset's
    visible share; None where no part of the outline is in `ink`."""
    depth = max(2, round(params.ring_reach * region.axes[1]))
    insets = np.arange(-params.ring_pad_px, depth + 1, dtype=float)
    t = np.linspace(0.0, TWO_PI, params.ring_samples, endpoint=False)
    points = ellipse_offset_points(region.center, region.axes, region.angle_deg, t[None, :], insets[:, None])
    seen = visible(points, ink.shape[1], ink.shape[0])
    if not seen.any():
        return None
    share = (sample_mask(ink, points) & seen).sum(axis=1) / np.maximum(seen.sum(axis=1), 1)
    inked = np.nonzero(share >= params.ring_share * share.max())[0]
    first, last = int(inked[0]), int(inked[0])
    while last + 1 < len(insets) and share[last + 1] >= params.ring_share * share.max():
        last += 1
    return float(insets[first]) - params.ring_pad_px, float(insets[last]) + params.ring_pad_px


def ring_mask(region: SealRegion, band: tuple[float, float], shape: tuple[int, ...]) -> Mask:
    """Boolean mask, of `shape`, of the ring of `region` between the insets `band`."""
    canvas = np.zeros(shape[:2], np.uint8)
    outer, inner = band
    a, b = region.axes
    size = (2.0 * (a - (outer + inner) / 2.0), 2.0 * (b - (outer + inner) / 2.0))
    if min(size) <= 0:
        return canvas > 0
    thickness = max(1, round(inner - outer))
    cv2.ellipse(canvas, (region.center, size, region.angle_deg), (1,), thickness)
    return canvas > 0


def without_rings(rgb: Pixels, ink: Mask, others: list[SealRegion], params: CutParams) -> Pixels:
    """The RGB crop with the rings of `others` (crop pixels), found in its boolean `ink`,
    inpainted; the crop itself where there are none."""
    rings = np.zeros(rgb.shape[:2], bool)
    for other in others:
        band = ring_insets(other, ink, params)
        if band is not None:
            rings |= ring_mask(other, band, rgb.shape) & ink
    if not rings.any():
        return rgb
    grown = cv2.dilate(rings.astype(np.uint8), np.ones((3, 3), np.uint8))
    return as_pixels(cv2.inpaint(rgb, grown, params.inpaint_radius_px, cv2.INPAINT_TELEA))
