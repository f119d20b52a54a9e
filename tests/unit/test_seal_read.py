"""Choosing among seal readings (imgproc.seal.read): pure, no models."""

from __future__ import annotations

import numpy as np
import pytest
from imgproc.seal.read.choose import (
    best_in_pool,
    best_index,
    best_orientation,
    counted_score,
    with_other_readings,
)
from imgproc.seal.read.repeats import restored_repeats, stretched_image
from imgproc.seal.read.windows import (
    anchored_windows,
    dropped_windows,
    end_windows,
    filled,
)
from imgproc.text import Decoded

from tests.support.readings import decoded


def options(line: Decoded) -> Decoded:
    """`line` carrying its characters as their only alternatives (as if asked for them)."""
    return Decoded(line.chars, line.probs, line.steps, line.length, line.options())


def evenly(text: str, prob: float, pitch: int = 4, skip: tuple[int, ...] = ()) -> Decoded:
    """`text` emitted one character every `pitch` steps, with a blank pitch before each index in
    `skip` (a character dropped there)."""
    steps, at = [], 0
    for index in range(len(text)):
        at += pitch * (2 if index in skip else 1)
        steps.append(at)
    return Decoded(tuple(text), (prob,) * len(text), tuple(steps), at + pitch)


def test_best_index_weighs_confidence_by_prior() -> None:
    readings = [decoded("上海星辰科技有限公司", 0.8), decoded("司公限有", 0.95)]
    assert best_index(readings, [1.0, 0.5]) == 0
    assert best_index(readings, [0.5, 1.0]) == 1
    assert best_index([decoded("甲", 0.9), decoded("乙", 0.9)], [1.0, 1.0]) == 0  # first on a tie


def test_a_reading_that_skipped_what_the_others_read_counts_its_skips_as_unsure() -> None:
    """Dev seed 3000, page 10: under print, one recogniser kept only the three characters it
    was sure of, and its mean confidence beat the whole rim's."""
    lines = [
        decoded("扬州博远通轨设备国团南限公司", 0.8),
        decoded("有公司", 0.88),
        decoded("杨州博远通设器团公司", 0.73),
    ]
    assert best_in_pool(lines, [0.9, 1.0, 0.9], [0, 0, 0])[0] == 0
    assert best_in_pool(lines[:2], [0.9, 1.0], [0, 1])[0] == 1  # other groups (arcs) are not compared
    assert counted_score(lines[1], 10.0) == pytest.approx(0.88 * 3 / 10)
    assert counted_score(lines[0], 10.0) == pytest.approx(0.8)  # a longer one: its own mean


def test_the_other_readings_become_alternatives_of_the_chosen_one() -> None:
    line = with_other_readings(options(decoded("珠海县档菜馆", 0.95)), [decoded("珠海档案馆", 0.9)])
    assert line.text == "珠海县档菜馆"
    assert line.alternatives[4] == (("菜", 0.95), ("案", 0.9))
    assert line.alternatives[2] == (("县", 0.95),)  # nothing the second saw lines up with 县


def test_what_another_reading_saw_between_characters_becomes_an_insertion() -> None:
    line = with_other_readings(options(decoded("义乌光信息", 0.97)), [decoded("南义乌晨光信", 0.88)])
    assert line.text == "义乌光信息"
    assert line.insertions == ((("南", 0.88),), (), (("晨", 0.88),), (), (), ())


def test_a_character_another_reading_saw_between_two_brings_its_alternatives() -> None:
    """义乌 of 义乌金桥: PP-OCRv4 skipped 乌, PP-OCRv6 read it as 岛 with 乌 among its
    alternatives; the word list can only choose 乌 where that alternative came along."""
    seen = ((("义", 0.99),), (("岛", 0.78), ("乌", 0.05)), (("金", 0.99),), (("桥", 0.99),))
    other = Decoded(tuple("义岛金桥"), (0.99, 0.78, 0.99, 0.99), alternatives=seen)
    line = with_other_readings(options(decoded("义金桥", 0.95)), [other])
    assert line.insertions[1] == (("岛", 0.78), ("乌", 0.05))


def test_no_alternatives_are_added_when_none_were_asked_for() -> None:
    assert (
        with_other_readings(decoded("珠海县档菜馆", 0.95), [decoded("珠海县档案馆", 0.9)]).alternatives == ()
    )


def _dropped(line: Decoded) -> int:
    """How many places of `line` a window is read again at (a wide blank strip, 8 px a step)."""
    return len(dropped_windows(line, np.full((48, 2000), 255, np.uint8), 8.0 * line.length))


def test_dropped_characters_are_the_places_a_pitch_is_missing() -> None:
    assert _dropped(evenly("南昌瑞祥软件有限公司", 0.99)) == 0
    assert _dropped(evenly("南昌瑞祥件有限公司", 0.99, skip=(4,))) == 1
    assert _dropped(evenly("南昌瑞件有限公司", 0.99, skip=(3, 6))) == 2
    assert _dropped(evenly("南昌", 0.99, skip=(1,))) == 0  # too short to have a pitch
    assert _dropped(decoded("南昌瑞祥件", 0.99)) == 0  # no steps known


def test_the_window_of_a_skipped_character_is_a_pitch_and_a_fifth_wide() -> None:
    line = evenly("南昌瑞祥件有限公司", 0.99, pitch=4, skip=(4,))
    strip = np.full((48, 400), 255, np.uint8)
    px = 8.0 * line.length  # 8 strip columns per step
    (window,) = dropped_windows(line, strip, px)
    assert (window.place, window.count) == (3, 1)
    assert window.image.shape == (48, round(1.2 * 4 * 8))
    assert filled(line, [window], [decoded("软", 0.7)]).text == "南昌瑞祥软件有限公司"


def test_two_skipped_characters_are_read_from_one_window() -> None:
    line = evenly("六安电机有限公司", 0.99, pitch=4, skip=(2,))  # 江淮 skipped: a triple pitch
    line = Decoded(
        line.chars, line.probs, tuple(s + (4 if i >= 2 else 0) for i, s in enumerate(line.steps)), 60
    )
    (window,) = dropped_windows(line, np.full((48, 500), 255, np.uint8), 8.0 * 60)
    assert window.count == 2 and window.image.shape[1] == round(2.2 * 4 * 8)
    assert filled(line, [window], [decoded("江淮", 0.8)]).text == "六安江淮电机有限公司"


@pytest.mark.parametrize(("reread", "prob"), [("软", 0.3), ("软件", 0.9), ("7", 0.9), ("", 0.0)])
def test_a_window_is_put_in_only_as_that_many_sure_chinese_characters(reread: str, prob: float) -> None:
    line = evenly("南昌瑞祥件有限公司", 0.99, skip=(4,))
    windows = dropped_windows(line, np.full((48, 400), 255, np.uint8), 8.0 * line.length)
    assert filled(line, windows, [decoded(reread, prob)]).text == "南昌瑞祥件有限公司"


def test_no_window_is_cut_past_the_strip() -> None:
    # Steps past the strip's width (a garbage reading emitted in its batch's padding): the
    # window there would be empty, which the recogniser's resize refuses.
    line = evenly("南昌瑞祥件有限公司", 0.99, skip=(4,))
    windows = dropped_windows(line, np.full((48, 20), 255, np.uint8), 8.0 * line.length)
    assert windows == []


def test_an_evenly_read_rim_has_no_window() -> None:
    line = evenly("南昌瑞祥软件有限公司", 0.99)
    assert dropped_windows(line, np.zeros((48, 400), np.uint8), 8.0 * line.length) == []


def test_a_character_a_pitch_before_the_first_is_read_from_its_own_window() -> None:
    """南 of 南宁, crossed by print at the rim's start, was skipped with no neighbour before it."""
    line = Decoded(tuple("宁绿洲文化传媒"), (0.99,) * 7, (8, 12, 16, 20, 24, 28, 32), 40)
    strip = np.zeros((48, 400), np.uint8)  # ink all along
    front, back = end_windows(line, strip, 8.0 * line.length)  # 8 strip columns per step
    assert (front.place, front.steps, back.place, back.steps) == (-1, (4,), 6, (36,))
    assert front.image.shape == (48, round(1.2 * 4 * 8))
    assert filled(line, [front, back], [decoded("南", 0.47), decoded("", 0.0)]).text == "南宁绿洲文化传媒"
    assert filled(line, [front], [decoded("南", 0.3)]).text == "宁绿洲文化传媒"  # too unsure
    assert filled(line, [front], [decoded("南京", 0.9)]).text == "宁绿洲文化传媒"  # not one character


def test_no_end_window_reaches_past_the_strip_or_is_cut_blank_or_without_a_pitch() -> None:
    line = Decoded(tuple("宁绿洲文化"), (0.99,) * 5, (2, 6, 10, 14, 18), 20)
    (back,) = end_windows(line, np.zeros((48, 400), np.uint8), 8.0 * 20)  # nothing before step 2
    assert back.place == 4
    assert end_windows(line, np.zeros((48, 170), np.uint8), 8.0 * 20) == []  # nor after step 18
    assert end_windows(line, np.full((48, 400), 255, np.uint8), 8.0 * 20) == []  # paper only
    assert end_windows(decoded("宁绿洲", 0.99), np.zeros((48, 400), np.uint8), 320.0) == []


@pytest.mark.parametrize(("seen", "expected"), [(0.56, "北京荣盛投资有限公司"), (0.3, "北京荣投资有限公司")])
def test_a_skipped_place_its_window_leaves_unread_takes_what_another_reading_saw_there(
    seen: float, expected: str
) -> None:
    """盛 of 北京荣盛投资: skipped by the surest reading, unread from its window alone, seen by
    the colour strip's reading; put in when seen as surely as a window must read."""
    line = with_other_readings(
        options(evenly("北京荣投资有限公司", 0.99, skip=(3,))), [decoded("北京荣盛投资有限公司", seen)]
    )
    windows = dropped_windows(line, np.full((48, 400), 255, np.uint8), 8.0 * line.length)
    assert filled(line, windows, [decoded("", 0.0)]).text == expected


def test_a_character_past_an_end_is_put_in_where_a_window_over_the_end_characters_reads_them_too() -> None:
    """石 of 石家庄, left outside the detector's polygon: read alone from the unwrapped strip
    that goes on past the rim's start it is é, read with 家庄 after it, 石."""
    line = evenly("家庄光明科技", 0.99)  # steps 4, 8, ... 24 of 28
    strip = np.zeros((48, 400), np.uint8)  # unwrapped 40 columns further at each end
    front, back = anchored_windows(line, strip, 8.0 * line.length, offset=40.0)
    assert (front.place, front.steps, front.anchor, back.place, back.steps, back.anchor) == (
        -1,
        (0,),
        ("家", "庄"),
        5,
        (28,),
        ("科", "技"),
    )
    # From 1.6 pitches before the first character's centre to half a pitch past the second's.
    assert front.image.shape == (48, round((8 + 0.5 + 2.0) * 8) - round((4 + 0.5 - 6.4) * 8))
    reads = [decoded("石家庄", 0.9), decoded("科技", 0.99)]
    assert filled(line, [front, back], reads).text == "石家庄光明科技"
    assert filled(line, [back], [decoded("科技园", 0.8)]).text == "家庄光明科技园"
    assert filled(line, [front], [decoded("石家压", 0.9)]).text == "家庄光明科技"  # not the anchor
    assert filled(line, [front], [decoded("石石家庄", 0.9)]).text == "家庄光明科技"  # two, not one
    assert filled(line, [front], [decoded("石家庄", 0.4, 0.9, 0.9)]).text == "家庄光明科技"  # unsure


def test_one_place_past_an_end_takes_one_character_whichever_window_reads_it() -> None:
    line = Decoded(tuple("家庄光明科技"), (0.99,) * 6, (12, 16, 20, 24, 28, 32), 40)
    strip = np.zeros((48, 400), np.uint8)
    (plain, _), (anchored, _) = end_windows(line, strip, 8.0 * 40), anchored_windows(line, strip, 8.0 * 40)
    assert plain.place == anchored.place == -1
    reads = [decoded("石", 0.8), decoded("后家庄", 0.9)]
    assert filled(line, [plain, anchored], reads).text == "石家庄光明科技"
    assert filled(line, [plain, anchored], [decoded("", 0.0), reads[1]]).text == "后家庄光明科技"


def test_no_anchored_window_reaches_past_the_strip_or_anchors_on_a_short_line() -> None:
    line = evenly("家庄光明科技", 0.99)
    (back,) = anchored_windows(line, np.zeros((48, 400), np.uint8), 8.0 * 28)  # none before step 4
    assert back.place == 5
    assert anchored_windows(line, np.zeros((48, 240), np.uint8), 8.0 * 28) == []  # nor past step 31
    paper_past_the_end = np.zeros((48, 400, 3), np.uint8)
    paper_past_the_end[:, round((24 + 0.5 + 2) * 8) :] = 255
    assert anchored_windows(line, paper_past_the_end, 8.0 * 28) == []  # nothing to read there
    assert anchored_windows(decoded("家庄", 0.99), np.zeros((48, 400), np.uint8), 320.0, offset=40.0) == []


def test_what_another_reading_saw_past_an_end_is_not_put_in_for_an_unread_end_window() -> None:
    line = with_other_readings(options(evenly("宁绿洲文化传媒", 0.99)), [decoded("宁绿洲文化传媒社", 0.9)])
    (back,) = end_windows(line, np.zeros((48, 400), np.uint8), 8.0 * line.length)
    assert filled(line, [back], [decoded("", 0.0)]).text == "宁绿洲文化传媒"


def test_a_character_too_unsure_past_an_end_is_left_to_the_word_list() -> None:
    """合 of 合肥, under print before the rim's first character: read as 金 0.37 from the window
    past the start, with 合 among its look-alikes. Not put in, but offered as an insertion there,
    which the word-list correction takes only where it completes a word (合肥)."""
    line = options(evenly("肥晨光食品", 0.99, skip=(0,)))  # steps 8, 12, ... 24 of 28
    (front, back) = end_windows(line, np.zeros((48, 400), np.uint8), 8.0 * line.length)
    unsure = Decoded(("金",), (0.37,), alternatives=((("金", 0.37), ("会", 0.29), ("合", 0.1)),))
    result = filled(line, [front, back], [unsure, decoded("", 0.0)])
    assert result.text == "肥晨光食品"
    assert result.gaps()[0] == unsure.alternatives[0]
    assert result.gaps()[1:] == ((),) * 5
    assert filled(line, [front], [decoded("金会", 0.37)]).gaps()[0] == ()  # two: no one character
    skipped = options(evenly("北京荣投资", 0.99, skip=(3,)))
    between = dropped_windows(skipped, np.zeros((48, 400), np.uint8), 8.0 * skipped.length)
    assert filled(skipped, between, [unsure]).gaps() == ((),) * 6  # only past an end


def test_filling_keeps_alternatives_in_step_with_the_characters() -> None:
    line = options(evenly("南昌瑞祥件有限公司", 0.99, skip=(4,)))
    windows = dropped_windows(line, np.full((48, 400), 255, np.uint8), 8.0 * line.length)
    reread = Decoded(("软",), (0.8,), alternatives=((("软", 0.8), ("欤", 0.1)),))
    result = filled(line, windows, [reread])
    assert result.text == "南昌瑞祥软件有限公司"
    assert [choices[0][0] for choices in result.alternatives] == list(result.chars)
    assert result.alternatives[4] == reread.alternatives[0]


def test_a_rect_orientation_that_reads_clearly_better_replaces_the_first() -> None:
    assert best_orientation([[("认", 0.55), ("好", 0.6)], [("现金收讫", 0.97)]]) == [("现金收讫", 0.97)]


def test_a_reversed_orientation_reading_alike_does_not_win() -> None:
    """The direction classifier turns each line of an upside-down crop, so both orientations
    read the same lines with the same scores, in reverse order: the first (page-upright) stays."""
    lines = [("转账收讫", 0.97), ("嘉兴锦程物流有限公司", 0.99)]
    assert best_orientation([lines, lines[::-1]]) == lines


@pytest.mark.parametrize(
    ("read", "wide", "kept"),
    [
        ("3201119880908361X01", "32011119880908361X01", "32011119880908361X01"),  # a 1 merged
        ("9144030019", "91440030019", "91440030019"),
        ("3201119880908361X01", "3201119880908361X01", "3201119880908361X01"),  # the same
        ("3201119880908361X01", "3201119880908361Y01", "3201119880908361X01"),  # another character
        ("32011119880908361X01", "3201119880908361X01", "32011119880908361X01"),  # fewer repeats
        ("9144030019", "91440300195", "9144030019"),  # a character added, not repeated
    ],
)
def test_a_code_read_wider_only_restores_repeats_ctc_merged(read: str, wide: str, kept: str) -> None:
    assert restored_repeats(evenly(read, 0.9), evenly(wide, 0.95)).text == kept


def test_a_line_is_stretched_along_itself_only() -> None:
    image = np.zeros((48, 100, 3), np.uint8)
    assert stretched_image(image, 1.5).shape == (48, 150, 3)
