"""Real seals made harder: the tuning part of seals-dev under the changes real documents bring.

Generated pages flatter the pipeline, and seals-dev has few real seals. Each seal of it seen
again smaller, turned, under a colour cast, as a grey photocopy, as a coarse JPEG or out of
focus is still a real seal, with real ink, real print across it and a real font, so a seal
that reads right as taken but not so changed shows where the pipeline is brittle on real
images. The truth moves with the image: boxes are scaled, or turned as the ellipse inscribed
in them turns (seals are round or oval), so the scorer still matches seals by overlap.

Only the tuning part is ever perturbed: the held-out part stays for reporting.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import replace

import cv2
import numpy as np
from imgproc.arrays import Pixels, as_pixels
from imgproc.imaging import decode_rgb
from imgproc.seal.geometry import ellipse_extent, turn_matrix

from evaluation.seal.dataset import Box, TruthPage

Place = Callable[[Box], Box]
# A perturbation: the changed image, and where a box of the original lies on it.
Perturbation = Callable[[Pixels], tuple[Pixels, Place]]

SMALL_SCALE = 0.5  # a low-resolution scan: seals of about 100-150 px
TURN_DEGREES = 10.0  # a page photographed or scanned askew
# R, G, B gains of a phone photo under cold light; none above 1, since a channel pushed past
# white loses the paper level that white balance needs (an overexposed photo, another matter)
COLD_CAST = (0.78, 0.90, 1.0)
JPEG_QUALITY = 30  # a page that was mailed and re-saved
BLUR_SIGMA = 1.4  # a phone photo slightly out of focus


def _scaled_box(box: Box) -> Box:
    x0, y0, x1, y1 = (round(v * SMALL_SCALE) for v in box)
    return x0, y0, x1, y1


def _small(rgb: Pixels) -> tuple[Pixels, Place]:
    height, width = rgb.shape[:2]
    size = (max(1, round(width * SMALL_SCALE)), max(1, round(height * SMALL_SCALE)))
    return as_pixels(cv2.resize(rgb, size, interpolation=cv2.INTER_AREA)), _scaled_box


def _turned(rgb: Pixels) -> tuple[Pixels, Place]:
    """The page turned by `TURN_DEGREES` on a canvas that holds it all, paper around it; a box
    goes where the ellipse inscribed in it lands (seals are round or oval)."""
    height, width = rgb.shape[:2]
    matrix, canvas = turn_matrix((width, height), -TURN_DEGREES)  # anticlockwise on screen
    paper = tuple(int(v) for v in np.median(rgb.reshape(-1, 3), axis=0))
    turned = as_pixels(cv2.warpAffine(rgb, matrix, canvas, flags=cv2.INTER_LINEAR, borderValue=paper))

    def place(box: Box) -> Box:
        x0, y0, x1, y1 = box
        cx, cy = matrix @ np.array([(x0 + x1) / 2, (y0 + y1) / 2, 1.0])
        half_w, half_h = ellipse_extent(((x1 - x0) / 2, (y1 - y0) / 2), TURN_DEGREES)
        return round(cx - half_w), round(cy - half_h), round(cx + half_w), round(cy + half_h)

    return turned, place


def _same(box: Box) -> Box:
    return box


def _in_place(change: Callable[[Pixels], Pixels]) -> Perturbation:
    """A perturbation that changes pixels only: every box stays where it is."""
    return lambda rgb: (change(rgb), _same)


def _cast(rgb: Pixels) -> Pixels:
    return np.clip(rgb.astype(np.float32) * np.array(COLD_CAST, np.float32), 0, 255).astype(np.uint8)


def _grey(rgb: Pixels) -> Pixels:
    return as_pixels(cv2.cvtColor(cv2.cvtColor(rgb, cv2.COLOR_RGB2GRAY), cv2.COLOR_GRAY2RGB))


def _jpeg(rgb: Pixels) -> Pixels:
    encoded = cv2.imencode(".jpg", rgb[:, :, ::-1], [cv2.IMWRITE_JPEG_QUALITY, JPEG_QUALITY])[1]
    return as_pixels(cv2.imdecode(encoded, cv2.IMREAD_COLOR))[:, :, ::-1]


def _blurred(rgb: Pixels) -> Pixels:
    return as_pixels(cv2.GaussianBlur(rgb, (0, 0), BLUR_SIGMA))


PERTURBATIONS: dict[str, Perturbation] = {
    "small": _small,
    "turned": _turned,
    "cast": _in_place(_cast),
    "grey": _in_place(_grey),
    "jpeg": _in_place(_jpeg),
    "blur": _in_place(_blurred),
}


def perturbed(page: TruthPage, name: str) -> TruthPage:
    """`page` with the named perturbation applied to its image and its truth (PNG)."""
    changed, place = PERTURBATIONS[name](decode_rgb(page.image))
    encoded = cv2.imencode(".png", cv2.cvtColor(changed, cv2.COLOR_RGB2BGR))[1].tobytes()
    seals = tuple(replace(seal, box=place(seal.box)) for seal in page.seals)
    ignore = tuple(place(box) for box in page.ignore)
    return replace(page, name=f"{page.name} {name}", image=encoded, seals=seals, ignore=ignore)


def perturbed_pages(pages: Iterable[TruthPage], name: str) -> Iterator[TruthPage]:
    """Each page under the named perturbation."""
    for page in pages:
        yield perturbed(page, name)
