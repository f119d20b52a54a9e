"""Pure tests of how real rim strips are labelled (training/seal_rec/real_strips.py) and folded
by repository (training/seal_rec/folds.py)."""

from __future__ import annotations

from training.seal_rec.folds import FOLDS, fold_of
from training.seal_rec.real_strips import aligned, cyclic_parts, max_edits

RIM = "南京谐诚机电工程有限公司"


def test_a_strip_started_elsewhere_is_labelled_with_the_rim_from_there() -> None:
    assert aligned(RIM, ["有限公司南京谐诚机电工程"]) == ("有限公司南京谐诚机电工程", 0)


def test_a_strip_cut_short_is_labelled_with_what_it_holds_and_a_misread_character_kept_apart() -> None:
    assert aligned(RIM, ["京谐诚机电工程有限公"]) == ("京谐诚机电工程有限公", 0)
    assert aligned(RIM, ["南京谐城机电工程有限公司"]) == (RIM, 1)  # 城 for 诚: the label keeps 诚


def test_with_a_length_credit_a_rim_every_reader_cut_short_by_one_is_labelled_whole_from_its_start() -> None:
    assert aligned("石家庄铁道大学", ["家庄铁道大学"]) == ("家庄铁道大学", 0)
    assert aligned("石家庄铁道大学", ["家庄铁道大学"], 1.0) == ("石家庄铁道大学", 1)
    assert aligned(RIM, ["有限公司南京谐诚机电工程"], 1.0) == ("有限公司南京谐诚机电工程", 0)
    assert aligned(RIM, ["京谐诚机电工程有限公司"], 1.0) == (RIM, 1)
    assert aligned(RIM, ["京谐诚机电工程有限公"], 1.0) == (RIM, 2)  # two more characters, two edits


def test_no_label_for_a_strip_far_from_every_part_of_its_rim_or_holding_under_half_of_it() -> None:
    assert aligned(RIM, ["ABCDEFGHIJKL"]) is None
    assert aligned(RIM, ["谐诚机电工"]) is None  # 5 of 12 characters
    assert max_edits(4) == 0 and max_edits(12) == 2


def test_no_label_when_two_parts_fit_equally() -> None:
    assert aligned("甲乙丙丁戊甲乙丙丁己", ["甲乙丙丁庚"]) is None  # 甲乙丙丁戊 or 甲乙丙丁己, one edit each
    assert aligned("甲乙丙丁戊", ["丁戊甲乙丙"]) == ("丁戊甲乙丙", 0)


def test_cyclic_parts_go_round_the_rim() -> None:
    parts = cyclic_parts("甲乙丙丁")
    assert "丁甲乙" in parts and "甲乙丙丁" in parts and "丙丁甲乙" in parts
    assert all(len(p) >= 3 for p in parts)


def test_a_repository_has_one_fold() -> None:
    groups = [f"owner{k}/repo" for k in range(60)]
    assert all(fold_of(g) == fold_of(g) for g in groups)
    assert {fold_of(g) for g in groups} == set(range(FOLDS))
