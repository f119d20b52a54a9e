"""A found region's score as a seal (imgproc.seal.trust.region): what it rests on, and which
regions the page's answer leaves out. Pure: hand-made readings."""

from __future__ import annotations

import json
import math
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from imgproc.seal.records import RegionSigns, SealCrop, SealEvidence, SealReading, SealRegion, Shape
from imgproc.seal.trust import DEFAULT_TRUST, page_reading
from imgproc.seal.trust.region import han_share, has_text, kept, region_signs, seal_inputs, seal_score
from imgproc.seal.words import NO_WORDS

RING = SealRegion(Shape.ROUND, (50.0, 50.0), (40.0, 40.0), 0.0, (10, 10, 90, 90), False, 0.8)
# A model that trusts inked outlines and read rims: intercept, inked share, rim score, log
# length, inner lines, codes, rectangular, cut; the script and the region's signs weigh nothing.
WEIGHTS = (-4.0, 3.0, 3.0, 1.0, 1.0, 1.0, -1.0, -1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0)
ZEROS = (0.0,) * len(WEIGHTS)
SCORES_JSON = Path(__file__).resolve().parents[2] / "gateway" / "routers" / "seal_scores.json"
PARAMS = replace(DEFAULT_TRUST, seal_weights=WEIGHTS)


def test_the_inputs_are_what_was_read_in_the_region() -> None:
    inner, codes = [("合同专用章", 0.9)], [("3101", 0.9)]
    reading = SealReading(RING, "上海星辰科技有限公司", 0.9, inner=inner, codes=codes)
    inputs = seal_inputs(reading)
    assert inputs[:9] == pytest.approx((0.8, 0.9, 2.3979, 1.0, 1.0, 0.0, 0.0, 1.0, 2.7726), abs=1e-4)
    assert len(inputs) == len(WEIGHTS) - 1 == len(DEFAULT_TRUST.seal_weights) - 1
    textless = SealReading(RING, "  ", 0.7)
    assert seal_inputs(textless)[1:3] == (0.0, 0.0) and not has_text(textless)


def test_a_read_seal_scores_higher_than_an_empty_red_mark() -> None:
    read = SealReading(RING, "上海星辰科技有限公司", 0.95, inner=[("合同专用章", 0.9)])
    mark = SealReading(replace(RING, border_coverage=0.2), "", 0.0)
    assert seal_score(read, PARAMS) > 0.9 > 0.1 > seal_score(mark, PARAMS)


def test_zero_weights_score_every_region_one_half_and_leave_none_out() -> None:
    zeros = replace(DEFAULT_TRUST, seal_weights=ZEROS, min_seal_score=0.0)
    mark = SealReading(RING, "", 0.0)
    assert seal_score(mark, zeros) == 0.5 and kept(replace(mark, score=0.5), zeros)


def test_the_served_weights_put_a_read_ring_above_an_empty_mark() -> None:
    # a seal's ring as the real ones look: its rim detected, text read through its inside
    seal = RegionSigns(page_share=0.02, ink_fill=0.2, ring_ink=0.6, detected=True, text_inside=0.4)
    read = SealReading(RING, "上海星辰科技有限公司", 0.95, signs=seal)
    mark = SealReading(replace(RING, border_coverage=0.2), "", 0.0)
    assert seal_score(read) > 0.9 and seal_score(mark) < DEFAULT_TRUST.textless_seal_score


def test_the_answer_leaves_out_textless_regions_that_score_low_and_keeps_read_ones() -> None:
    low_text = SealReading(RING, "月", 0.2, score=0.1)
    low_mark = SealReading(RING, "", 0.0, score=0.1)
    high_mark = SealReading(RING, "", 0.0, score=0.8)
    answer = page_reading(
        [SealEvidence(r, ()) for r in (low_text, low_mark, high_mark)],
        (),
        NO_WORDS,
        replace(PARAMS, min_seal_score=0.0),
    )
    assert answer.seals == [low_text, high_mark]


def test_a_read_region_under_the_least_seal_score_is_not_answered() -> None:
    params = replace(PARAMS, min_seal_score=0.3, textless_seal_score=0.5)
    sign = SealReading(RING, "K", 0.2, score=0.29)
    seal = SealReading(RING, "上海星辰科技有限公司", 0.9, score=0.31)
    mark = SealReading(RING, "", 0.0, score=0.4)
    answer = page_reading([SealEvidence(r, ()) for r in (sign, seal, mark)], (), NO_WORDS, params)
    assert [reading.rim_text for reading in answer.seals] == ["上海星辰科技有限公司"]


def _crop(mask: np.ndarray, page: tuple[int, int] = (400, 400)) -> SealCrop:
    """A crop of RING's size, its seal ink `mask`, cut from a blank page of `page` pixels."""
    region = replace(RING, box=(0, 0, 100, 100))
    pixels = np.full((100, 100, 3), 255, np.uint8)
    return SealCrop(region, region, pixels, mask.astype(np.uint8) * 255, mask, np.zeros((*page, 3), np.uint8))


def test_a_thin_ring_has_its_ink_on_the_ring_and_a_filled_disc_does_not() -> None:
    yy, xx = np.mgrid[0:100, 0:100]
    radius = np.hypot(xx - 50.0, yy - 50.0)
    ring = region_signs(_crop((radius <= 40) & (radius >= 36)), detected=True, text_inside=0.4)
    disc = region_signs(_crop(radius <= 40), detected=False, text_inside=0.0)
    assert ring.ring_ink > 0.95 and disc.ring_ink < 0.5
    assert ring.ink_fill < 0.25 < 0.95 < disc.ink_fill
    assert ring.detected and not disc.detected and ring.text_inside == 0.4
    # pi * 40 * 40 of a 400 x 400 page
    assert ring.page_share == pytest.approx(math.pi * 1600 / 160_000, rel=1e-6)


def test_a_region_filling_the_page_shares_all_of_it() -> None:
    assert region_signs(_crop(np.zeros((100, 100), bool), page=(60, 60)), False, 0.0).page_share == 1.0


def test_the_api_states_the_served_least_seal_scores() -> None:
    # the gateway's descriptions read them from what `python -m evaluation.seal.trust` wrote
    said = json.loads(SCORES_JSON.read_text(encoding="utf-8"))["seal"]
    assert (said["least"], said["textless"]) == (
        DEFAULT_TRUST.min_seal_score,
        DEFAULT_TRUST.textless_seal_score,
    )


def test_the_chinese_share_counts_characters_read_spaces_aside() -> None:
    assert han_share(["上海 星辰", "K"]) == pytest.approx(0.8)
    assert han_share(["315", "GPANGDONG"]) == 0.0 and han_share(["", " "]) == 0.0


def test_the_signs_enter_the_inputs() -> None:
    signs = RegionSigns(page_share=0.05, ink_fill=0.2, ring_ink=0.6, detected=True, text_inside=0.3)
    reading = SealReading(RING, "上海星辰K", 0.9, inner=[("合同专用章", 0.9)], signs=signs)
    assert seal_inputs(reading)[7:] == pytest.approx((0.9, math.log(10.0), 0.05, 0.2, 0.6, 1.0, 0.3))
    # a rectangle's frame is all ring, a seal's or not: its ring share is no input
    assert seal_inputs(replace(reading, region=replace(RING, shape=Shape.RECT)))[11] == 0.0
