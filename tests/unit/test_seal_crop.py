"""One seal cut out of the page (imgproc.seal.crop): pure, no models."""

from __future__ import annotations

import numpy as np
from imgproc.seal.cut import beside, cut_seal
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
