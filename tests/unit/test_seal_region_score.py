"""A found region's score as a seal (imgproc.seal.trust.region): what it rests on, and which
regions the page's answer leaves out. Pure: hand-made readings."""

from __future__ import annotations

from dataclasses import replace

import pytest
from imgproc.seal.records import SealEvidence, SealReading, SealRegion, Shape
from imgproc.seal.trust import DEFAULT_TRUST, page_reading
from imgproc.seal.trust.region import has_text, kept, seal_inputs, seal_score
from imgproc.seal.words import NO_WORDS

RING = SealRegion(Shape.ROUND, (50.0, 50.0), (40.0, 40.0), 0.0, (10, 10, 90, 90), False, 0.8)
# A model that trusts inked outlines and read rims: intercept, inked share, rim score, log
# length, inner lines, codes, rectangular, cut.
WEIGHTS = (-4.0, 3.0, 3.0, 1.0, 1.0, 1.0, -1.0, -1.0)
PARAMS = replace(DEFAULT_TRUST, seal_weights=WEIGHTS)


def test_the_inputs_are_what_was_read_in_the_region() -> None:
    reading = SealReading(RING, "上海星辰科技有限公司", 0.9, inner=[("合同专用章", 0.9)], codes=["3101"])
    assert seal_inputs(reading) == pytest.approx((0.8, 0.9, 2.3979, 1.0, 1.0, 0.0, 0.0), abs=1e-4)
    textless = SealReading(RING, "  ", 0.7)
    assert seal_inputs(textless)[1:3] == (0.0, 0.0) and not has_text(textless)


def test_a_read_seal_scores_higher_than_an_empty_red_mark() -> None:
    read = SealReading(RING, "上海星辰科技有限公司", 0.95, inner=[("合同专用章", 0.9)])
    mark = SealReading(replace(RING, border_coverage=0.2), "", 0.0)
    assert seal_score(read, PARAMS) > 0.9 > 0.1 > seal_score(mark, PARAMS)


def test_zero_weights_score_every_region_one_half_and_leave_none_out() -> None:
    zeros = replace(DEFAULT_TRUST, seal_weights=(0.0,) * 8)
    mark = SealReading(RING, "", 0.0)
    assert seal_score(mark, zeros) == 0.5 and kept(replace(mark, score=0.5), zeros)


def test_the_served_weights_put_a_read_ring_above_an_empty_mark() -> None:
    read = SealReading(RING, "上海星辰科技有限公司", 0.95)
    mark = SealReading(replace(RING, border_coverage=0.2), "", 0.0)
    assert seal_score(read) > 0.9 and seal_score(mark) < DEFAULT_TRUST.textless_seal_score


def test_the_answer_leaves_out_textless_regions_that_score_low_and_keeps_read_ones() -> None:
    low_text = SealReading(RING, "月", 0.2, score=0.1)
    low_mark = SealReading(RING, "", 0.0, score=0.1)
    high_mark = SealReading(RING, "", 0.0, score=0.8)
    answer = page_reading(
        [SealEvidence(r, ()) for r in (low_text, low_mark, high_mark)], (), NO_WORDS, PARAMS
    )
    assert answer.seals == [low_text, high_mark]
