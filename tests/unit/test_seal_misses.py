"""Misses put in the class of the stage that can fix them, and figures by class
(evaluation.seal.misses), on hand-made truth and answers: pure."""

from __future__ import annotations

import pytest

from evaluation.seal.dataset import TruthPage, TruthSeal
from evaluation.seal.misses import (
    FALSE_SEAL,
    FITTED,
    MISREAD,
    NOT_FOUND,
    OVER_PRINT,
    SHORT_END,
    SHORT_START,
    STRAY,
    WRONG_START,
    by_class,
    misses,
    stage_of,
)
from evaluation.seal.scoring import FoundSeal, score_page

BOX = (10, 10, 110, 110)
RIM = "南京谐诚机电工程有限公司"


def _page(over_print: bool = False, kind: str = "contract") -> TruthPage:
    truth = TruthSeal(BOX, "round", RIM, over_print=over_print)
    return TruthPage("page", "corpus", "tuning", b"", (truth,), kind=kind, capture="scan")


@pytest.mark.parametrize(
    ("read", "shape", "stage"),
    [
        ("机电工程有限公司南京谐诚", "round", WRONG_START),
        ("谐诚机电工程有限公司", "round", SHORT_START),
        ("南京谐诚机电工程有限", "round", SHORT_END),
        ("A南京谐诚机电工程有限公司", "round", STRAY),
        ("南京谐城机电工程有限公司", "round", MISREAD),
        ("", "round", FITTED),
        ("月", "round", FITTED),
        (RIM, "rect", FITTED),
    ],
)
def test_a_wrong_rim_falls_in_the_class_of_the_stage_that_can_fix_it(
    read: str, shape: str, stage: str
) -> None:
    result = score_page(_page(), [FoundSeal(BOX, shape, read)])
    assert stage_of(result.seals[0]) == stage


def test_a_misreading_over_print_is_told_apart_and_a_missed_seal_is_not_found() -> None:
    over = score_page(_page(over_print=True), [FoundSeal(BOX, "round", "南京谐城机电工程有限公司")])
    assert stage_of(over.seals[0]) == OVER_PRINT
    assert stage_of(score_page(_page(), []).seals[0]) == NOT_FOUND


def test_the_miss_list_has_every_wrong_rim_and_false_seal_and_no_right_one() -> None:
    right = score_page(
        _page(), [FoundSeal(BOX, "round", RIM), FoundSeal((300, 300, 400, 400), "round", "某某")]
    )
    assert [stage for stage, _ in misses([right])] == [FALSE_SEAL]


def test_figures_by_class_count_each_seal_once_in_its_class() -> None:
    results = [
        score_page(_page(kind="contract"), [FoundSeal(BOX, "round", RIM)]),
        score_page(_page(kind="invoice"), []),
    ]
    table = by_class(results)
    assert {k: (v.seals, v.found, v.exact) for k, v in table["document"].items()} == {
        "contract": (1, 1, 1),
        "invoice": (1, 0, 0),
    }
    assert table["shape"]["round"].seals == 2
