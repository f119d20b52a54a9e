"""One seal cut out of the page (imgproc.seal.cut): pure, no models; the rings of seals stamped
over it taken out."""

from __future__ import annotations

import cv2
import numpy as np
from imgproc.seal.cut import DEFAULT_CUT, beside, cut_seal
from imgproc.seal.cut.rings import ring_insets
from imgproc.seal.records import SealRegion, Shape


def page() -> np.ndarray:
    """An RGB page whose every pixel says where it is: red its column, green its row."""
    rows, cols = np.mgrid[0:200, 0:400]
    return np.stack([cols % 256, rows, np.zeros_like(rows)], axis=-1).astype(np.uint8)


def test_the_page_beside_a_seal_is_its_crops_rows_reaching_further_at_each_side() -> None:
    """An invoice's title runs on past the supervision seal stamped across it."""
    region = SealRegion(Shape.OVAL, (200.0, 100.0), (30.0, 20.0), 0.0, (170, 80, 230, 120), False, 1.0)
    crop = cut_seal(page(), region)
    height, width = crop.bgr.shape[:2]
    wide = beside(crop, 1.0)
    assert wide.shape == (height, 3 * width, 3)
    np.testing.assert_array_equal(wide[:, width : 2 * width], crop.bgr)  # BGR, as the crop
    assert beside(crop, 0.0) is crop.bgr


def test_the_page_beside_a_seal_at_its_edge_stops_there() -> None:
    region = SealRegion(Shape.OVAL, (30.0, 100.0), (25.0, 20.0), 0.0, (5, 80, 55, 120), False, 1.0)
    crop = cut_seal(page(), region)
    wide = beside(crop, 1.0)
    assert wide.shape[1] == crop.bgr.shape[1] * 2 + 2  # the crop's 2 columns left of it, none more
    assert int(wide[0, 0, 2]) == 0  # the page's first column (red, last in BGR)


RED = (220, 30, 40)  # RGB


def seal_page(width: int = 600, height: int = 400) -> np.ndarray:
    image = np.full((height, width, 3), 255, np.uint8)
    cv2.circle(image, (250, 200), 120, RED, 6)
    for t in np.linspace(0.3, 2 * np.pi - 0.3, 16):  # rim text, as radial bars
        unit = np.array([np.cos(t), np.sin(t)]) * 120
        inner, outer = np.array([250, 200]) + 0.65 * unit, np.array([250, 200]) + 0.82 * unit
        cv2.line(image, tuple(int(v) for v in inner), tuple(int(v) for v in outer), RED, 4)
    return image


def circle(x: float, y: float, r: float) -> SealRegion:
    return SealRegion(
        Shape.ROUND, (x, y), (r, r), 0.0, (int(x - r), int(y - r), int(x + r), int(y + r)), False, 1.0
    )


def test_a_rings_insets_are_where_its_ink_is_inked_all_round() -> None:
    ink = np.zeros((400, 600), bool)
    cv2.circle(ink.view(np.uint8), (300, 200), 116, 1, 8)  # a ring 8 px wide inside radius 120
    band = ring_insets(circle(300, 200, 120), ink, DEFAULT_CUT)
    assert band is not None
    assert band[0] <= 0.5 and 7.0 <= band[1] <= 10.0


def test_the_ring_of_a_seal_stamped_over_this_one_is_taken_out_of_its_crop_and_its_own_ink_stays() -> None:
    image = seal_page()
    cv2.circle(image, (440, 210), 120, RED, 6)  # another seal's ring, crossing this one's rim
    crop = cut_seal(image, circle(250, 200, 120), others=[circle(440, 210, 120)])
    alone = cut_seal(image, circle(250, 200, 120))
    x0, y0 = 250 - 132, 200 - 132  # the crop's corner: the seal plus its margin
    across = (322 - x0, 210 - y0)  # where the other ring crosses this seal's interior (x = 440 - 118)
    assert alone.mask[across[1], across[0]] and not crop.mask[across[1], across[0]]
    assert crop.mask[200 - y0, 250 + 120 - 3 - x0]  # this seal's own ring stays
    assert cut_seal(image, circle(250, 200, 120), others=[]).mask.sum() == alone.mask.sum()
