"""Scores of lines read straight (imgproc.seal.trust.lines) and their fit and report
(evaluation.seal.lines): pure, hand-made readings."""

from __future__ import annotations

from dataclasses import replace

import pytest
from imgproc.seal.records import SealEvidence, SealReading, SealRegion, Shape
from imgproc.seal.trust import DEFAULT_TRUST, answered
from imgproc.seal.trust.lines import calibrated, line_inputs, line_score

from evaluation.seal.cases import Region
from evaluation.seal.dataset import TruthPage, TruthSeal
from evaluation.seal.lines import LineCase, fit_lines, line_cases, line_report

RING = SealRegion(Shape.ROUND, (50.0, 50.0), (40.0, 40.0), 0.0, (10, 10, 90, 90), False, 0.9)
RECT = replace(RING, shape=Shape.RECT)
# A model that distrusts short lines and rectangles' main texts: intercept, logit of the
# confidence, log length, main text.
PARAMS = replace(DEFAULT_TRUST, line_weights=(-2.0, 0.2, 1.5, -1.0))


def test_the_inputs_are_the_confidence_s_logit_the_length_and_the_kind() -> None:
    assert line_inputs("合同 专用章", 0.5, False) == pytest.approx((0.0, 1.6094, 0.0), abs=1e-4)
    assert line_inputs("月", 1.0, True) == pytest.approx((9.2102, 0.0, 1.0), abs=1e-4)


def test_the_weights_one_on_the_logit_give_back_the_confidence() -> None:
    identity = replace(DEFAULT_TRUST, line_weights=(0.0, 1.0, 0.0, 0.0))
    assert line_score("合同专用章", 0.83, False, identity) == pytest.approx(0.83)


def test_a_one_character_main_text_read_surely_scores_under_a_long_inner_line() -> None:
    assert line_score("月", 0.9998, True, PARAMS) < 0.5 < line_score("合同专用章", 0.95, False, PARAMS)


def test_the_answer_carries_calibrated_lines_and_a_rectangle_s_main_text() -> None:
    round_seal = SealReading(RING, "上海星辰科技有限公司", 0.93, inner=[("合同专用章", 0.95)])
    rect = SealReading(RECT, "月", 0.9998, inner=[("专用", 0.9)])
    out = answered([SealEvidence(round_seal, ()), SealEvidence(rect, ())], PARAMS)
    assert out[0].reading.rim_score == 0.93  # a rim is scored on its frames, not here
    assert out[0].reading.inner[0][1] == line_score("合同专用章", 0.95, False, PARAMS)
    assert out[1].reading.rim_score == line_score("月", 0.9998, True, PARAMS)
    assert calibrated(replace(rect, rim_text=""), PARAMS).rim_score == 0.9998  # nothing read: as it was


def _region(page: str, reading: SealReading) -> Region:
    return Region(SealEvidence(reading, ()), True, page, page)


def test_lines_are_cases_where_their_seal_s_lines_are_known() -> None:
    known = TruthSeal((10, 10, 90, 90), "rectangle", "发票专用章", ("合同专用章",), ("91310000MA1FL1234X",))
    unknown = TruthSeal((10, 10, 90, 90), "round", "上海星辰科技有限公司")
    pages = [
        TruthPage("a", "real", "tuning", b"", (known,)),
        TruthPage("b", "real", "tuning", b"", (unknown,)),
    ]
    rect = SealReading(RECT, "发票专用章", 0.9, inner=[("合同专用章", 0.8), ("专用", 0.99)])
    cases = line_cases([_region("a", rect), _region("b", replace(rect, region=RING))], pages)
    assert cases == [
        LineCase("合同专用章", 0.8, False, True, "a"),
        LineCase("专用", 0.99, False, False, "a"),
        LineCase("发票专用章", 0.9, True, True, "a"),
    ]


def test_the_fit_learns_that_short_lines_are_wrong() -> None:
    cases = [LineCase("合同专用章", 0.9, False, True, f"g{i}") for i in range(10)]
    cases += [LineCase("月", 0.9, False, False, f"h{i}") for i in range(10)]
    params = replace(DEFAULT_TRUST, line_weights=fit_lines(cases, lambda line: None))
    assert line_score("月", 0.9, False, params) < 0.5 < line_score("合同专用章", 0.9, False, params)
    report = "\n".join(line_report(cases, params))
    assert "| **at least 0.90** | 10 of 20 | 10 | 1.000 (95% 0.72-1.00) |" in report
