"""The one seal scorer (evaluation.seal.scoring) on hand-made truth and answers: pure."""

from __future__ import annotations

import pytest

from evaluation.seal.dataset import TruthPage, TruthSeal
from evaluation.seal.scoring import (
    ELLIPTIC,
    FoundSeal,
    Summary,
    edit_kind,
    score_page,
    summarize,
    wilson_interval,
)

BOX = (10, 10, 110, 110)
TRUTH = TruthSeal(BOX, "round", "清华大学", ("国情研究院",), ("1100000215683",))
PAGE = TruthPage("page", "real", "tuning", b"", (TRUTH,))


def _summary(found: FoundSeal) -> Summary:
    return summarize([score_page(PAGE, [found])], ELLIPTIC)


def test_a_right_rim_with_a_missed_code_is_a_line_miss_not_a_rim_miss() -> None:
    summary = _summary(FoundSeal(BOX, "round", "清华大学", ("国情研究院",), ("102290036915",)))
    assert (summary.exact, summary.rims, summary.misses) == (1, 1, [])
    assert summary.inner == [1, 1] and summary.codes == [0, 1]
    assert len(summary.line_misses) == 1 and "1100000215683" in summary.line_misses[0]


def test_a_wrong_rim_is_listed_once_among_the_rim_misses() -> None:
    summary = _summary(FoundSeal(BOX, "round", "华大学", (), ()))
    assert summary.exact == 0 and len(summary.misses) == 1 and summary.line_misses == []


def test_a_seal_read_in_full_is_in_neither_list() -> None:
    summary = _summary(FoundSeal(BOX, "round", "清华大学", ("国情研究院",), ("1100000215683",)))
    assert summary.misses == [] and summary.line_misses == [] and summary.codes == [1, 1]


def test_lines_that_are_no_true_line_are_counted_stray() -> None:
    """A line read in pieces, or print read as a line, is stray; a true line read twice is not."""
    pieces = FoundSeal(BOX, "round", "清华大学", ("国情研究院", "国情"), ("11000002", "15683"))
    assert _summary(pieces).stray == 3
    whole = FoundSeal(BOX, "round", "清华大学", ("国情研究院", "国情研究院"), ("1100000215683",))
    assert _summary(whole).stray == 0 and _summary(FoundSeal(BOX, "round", "华大学", (), ())).stray == 0
    assert "stray lines 3;" in _summary(pieces).line()


def test_the_wilson_interval_holds_the_rate_and_narrows_with_more_trials() -> None:
    low, high = wilson_interval(15, 21)
    assert (low, high) == (pytest.approx(0.500, abs=0.005), pytest.approx(0.862, abs=0.005))
    narrower = wilson_interval(150, 210)
    assert low < narrower[0] < 15 / 21 < narrower[1] < high
    assert wilson_interval(0, 10)[0] == 0.0 and wilson_interval(10, 10)[1] == pytest.approx(1.0)
    assert wilson_interval(0, 0) == (0.0, 1.0)


@pytest.mark.parametrize(
    ("read", "kind"),
    [
        ("合肥晨光食品有限公司", ""),
        ("肥晨光食品有限公司", "dropped start"),
        ("合肥晨光食品有限公", "dropped end"),
        ("合肥晨品有限公司", "dropped inside"),
        ("合肥晨光食品有限公司社", "added end"),
        ("分肥晨光食品有限公司", "wrong start"),
        ("合肥晨光食吕有限公司", "wrong inside"),
        ("肥晨光食吕有限公司", "dropped start + wrong inside"),
        ("有公司", "garbage"),
        ("", "unread"),
    ],
)
def test_edit_kind_says_what_is_wrong_and_where(read: str, kind: str) -> None:
    assert edit_kind("合肥晨光食品有限公司", read) == kind
