"""What is unwrapped for the recognisers (imgproc.seal.strips): pure, no models."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from imgproc.seal.geometry import arc_length
from imgproc.seal.records import Band, SealCrop, SealRegion, SealText, Shape, TextArc
from imgproc.seal.unwrap import DEFAULT_UNWRAP
from imgproc.seal.unwrap.strips import extended, rim_strips

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


def test_a_rim_is_unwrapped_again_past_its_ends_as_far_at_each_end() -> None:
    """For the reader to look past the end characters (`read.anchored_windows`)."""
    arc = TextArc(Band(3.0, 12.0), 0.6, 0.5)
    more = DEFAULT_UNWRAP.beyond * 9.0 / arc_length(REGION, 7.5)
    longer = extended(crop(), arc)
    assert (longer.start, longer.span) == pytest.approx((0.6 - more, 0.5 + 2.0 * more))
    for strip in rim_strips(crop(), SealText(arc, (), (), np.array([0.0, -1.0]))):
        image, offset = strip.past_ends()
        assert image.shape[0] == strip.image.shape[0] and image.ndim == strip.image.ndim
        # The strip less its white frame at each end (`strips.framed`), at the strip's scale.
        height = DEFAULT_UNWRAP.height
        frame = 2 * round(DEFAULT_UNWRAP.blank * height)
        scale = DEFAULT_UNWRAP.squeeze * height / (height + 2 * round(DEFAULT_UNWRAP.blank_rows * height))
        assert offset == pytest.approx(more / arc.span * (strip.image.shape[1] - frame * scale), abs=1.0)


def test_an_arc_nearly_all_round_goes_on_only_to_the_middle_of_its_gap() -> None:
    nearly = TextArc(Band(3.0, 12.0), 0.3, 0.96)
    longer = extended(crop(), nearly)
    assert 0.96 < longer.span < 1.0 and longer.start == pytest.approx(0.3 - (longer.span - 0.96) / 2.0)
    whole = SealText(TextArc(Band(3.0, 12.0), 0.0, 1.0), (), (), np.array([0.0, -1.0]))
    assert all(strip.past_ends() == (strip.image, 0.0) for strip in rim_strips(crop(), whole))
