"""Codes' scores (imgproc.seal.trust.lines.code_score) and their cases, fit and report
(evaluation.seal.cases, evaluation.seal.lines): pure, hand-made readings."""

from __future__ import annotations

from dataclasses import replace

import pytest
from imgproc.seal.records import SealEvidence, SealReading, SealRegion, Shape
from imgproc.seal.trust import DEFAULT_TRUST, answered
from imgproc.seal.trust.lines import checks_sign, code_inputs, code_score

from evaluation.seal.cases import CodeCase, code_cases
from evaluation.seal.codes import code_report, fit_codes, with_section
from evaluation.seal.dataset import TruthSeal

RING = SealRegion(Shape.ROUND, (50.0, 50.0), (40.0, 40.0), 0.0, (10, 10, 90, 90), False, 0.9)
SEAL_CODE = "5107030057772"  # 13 digits: no check characters
CREDIT = "91310000MA1FL12372"  # passes its checks
OLD_TAX_ID = "310000MA1FL1237"  # passes its checks
OLD_TAX_ID_WRONG = "310000MA1FL1238"  # fails them
TAX_NUMBER = "5107030057772101"  # 16 characters, region first: no check characters
# Every input weighs: intercept, logit of the confidence, check characters.
PARAMS = replace(DEFAULT_TRUST, code_weights=(-1.0, 0.5, 2.0))


@pytest.mark.parametrize(
    ("code", "sign"),
    [(CREDIT, 1.0), (OLD_TAX_ID, 1.0), (OLD_TAX_ID_WRONG, -1.0), (SEAL_CODE, 0.0), (TAX_NUMBER, 0.0)],
)
def test_the_check_characters_say_pass_fail_or_nothing(code: str, sign: float) -> None:
    assert checks_sign(code) == sign


def test_the_inputs_are_the_confidence_s_logit_and_the_checks() -> None:
    assert code_inputs(SEAL_CODE, 0.5) == pytest.approx((0.0, 0.0), abs=1e-4)
    assert code_inputs(CREDIT, 1.0) == pytest.approx((9.2102, 1.0), abs=1e-4)
    assert code_inputs(OLD_TAX_ID_WRONG, 0.1) == pytest.approx((-2.1972, -1.0), abs=1e-4)


def test_the_weights_one_on_the_logit_give_back_the_confidence() -> None:
    identity = replace(DEFAULT_TRUST, code_weights=(0.0, 1.0, 0.0))
    assert code_score(SEAL_CODE, 0.83, identity) == pytest.approx(0.83)


def test_each_input_moves_the_score() -> None:
    assert code_score(SEAL_CODE, 0.6, PARAMS) < code_score(SEAL_CODE, 0.95, PARAMS)  # confidence
    assert code_score(OLD_TAX_ID_WRONG, 0.9, PARAMS) < code_score(SEAL_CODE, 0.9, PARAMS)  # checks
    assert code_score(SEAL_CODE, 0.9, PARAMS) < code_score(OLD_TAX_ID, 0.9, PARAMS)


def test_the_served_score_is_a_probability_and_trusts_a_passing_code_more() -> None:
    scores = [code_score(code, 0.9) for code in (CREDIT, OLD_TAX_ID, OLD_TAX_ID_WRONG, SEAL_CODE)]
    assert all(0.0 <= score <= 1.0 for score in scores)
    assert code_score(OLD_TAX_ID_WRONG, 0.9) < code_score(OLD_TAX_ID, 0.9)


def test_the_answer_carries_each_code_calibrated() -> None:
    reading = SealReading(RING, "上海星辰科技有限公司", 0.93, codes=[(CREDIT, 0.97), (SEAL_CODE, 0.6)])
    out = answered([SealEvidence(reading, ())], PARAMS)[0].reading
    assert out.codes == [
        (CREDIT, code_score(CREDIT, 0.97, PARAMS)),
        (SEAL_CODE, code_score(SEAL_CODE, 0.6, PARAMS)),
    ]
    assert out.code_texts == (CREDIT, SEAL_CODE)


def test_codes_are_cases_where_their_seal_s_inside_is_known() -> None:
    reading = SealReading(RING, "上海星辰科技有限公司", 0.9, codes=[(CREDIT, 0.97), ("20240101123456", 0.8)])
    found = SealEvidence(reading, ())
    known = TruthSeal((10, 10, 90, 90), "round", "上海星辰科技有限公司", ("合同专用章",), (CREDIT,))
    assert code_cases(known, found, "r") == [
        CodeCase(CREDIT, 0.97, True, "r"),
        CodeCase("20240101123456", 0.8, False, "r"),  # a date read as a code counts against
    ]
    assert code_cases(replace(known, inner_texts=(), codes=()), found, "r") == []  # inside unlabelled


def test_the_fit_learns_that_a_code_failing_its_checks_is_wrong() -> None:
    cases = [CodeCase(OLD_TAX_ID, 0.9, True, f"g{i}") for i in range(10)]
    cases += [CodeCase(OLD_TAX_ID_WRONG, 0.9, False, f"h{i}") for i in range(10)]
    params = replace(DEFAULT_TRUST, code_weights=fit_codes(cases, lambda line: None))
    assert code_score(OLD_TAX_ID_WRONG, 0.9, params) < 0.5 < code_score(OLD_TAX_ID, 0.9, params)
    report = "\n".join(code_report(cases, params))
    assert "| **at least 0.90** | 10 of 20 | 10 | 1.000 (95% 0.72-1.00) |" in report


REPORT = "# Title\n\nintro\n\n## a: line scores\n\nlines\n\n## b: line scores\n\nother\n"


def test_the_code_section_goes_after_its_part_s_line_scores_then_is_replaced_in_place() -> None:
    added = with_section(REPORT, "## a: code scores", ["| t |"], "## a: line scores")
    assert added == REPORT.replace("lines\n\n", "lines\n\n## a: code scores\n\n| t |\n\n")
    again = with_section(added, "## a: code scores", ["| u |"], "## a: line scores")
    assert again == added.replace("| t |", "| u |")
    last = with_section(REPORT, "## b: code scores", ["| v |"], "## b: line scores")
    assert last == REPORT + "\n## b: code scores\n\n| v |\n"
