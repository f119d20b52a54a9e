"""What is unwrapped for the recognisers (imgproc.seal.strips): pure, no models."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
from imgproc.seal.crop import SealCrop
from imgproc.seal.locate import SealText
from imgproc.seal.shapes import SealRegion, Shape
from imgproc.seal.strips import rim_strips
from imgproc.seal.unwrap import Band, TextArc

REGION = SealRegion(Shape.OVAL, (60.0, 60.0), (50.0, 35.0), 0.0, (10, 25, 110, 95), False, 1.0)


def crop() -> SealCrop:
    rng = np.random.default_rng(0)
    bgr = rng.integers(0, 256, (120, 120, 3), dtype=np.uint8)
    return SealCrop(REGION, REGION, bgr, bgr[..., 1].copy(), np.ones((120, 120), bool))


def test_a_rim_facing_down_the_page_is_read_turned_as_well() -> None:
    """Under an invoice title that hides a supervision seal's rim, its lower line (tops
    inwards) is what the detector finds as the rim: that reads only turned."""
    lower = TextArc(Band(3.0, 12.0), 0.1, 0.3)  # perimeter shares run clockwise from the right
    down = SealText(lower, (), (), np.array([0.0, 1.0]))
    strips = rim_strips(crop(), down)
    assert [(s.group, s.from_ink) for s in strips] == [(0, True), (0, False), (1, True), (1, False)]
    np.testing.assert_array_equal(strips[2].image, strips[0].image[::-1, ::-1])
    assert len(rim_strips(crop(), replace(down, up=np.array([0.0, -1.0])))) == 2
    assert len(rim_strips(crop(), replace(down, up=np.array([1.0, 0.0])))) == 2  # stamped on its side
