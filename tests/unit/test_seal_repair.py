"""The seal BLS's decisions (imgproc.seal.reading) with fake recognisers: pure, no Triton."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pytest
from imgproc.seal.pipeline import RimStrip, SealCrops
from imgproc.seal.reading import (
    RimReading,
    best_rim,
    dropped_characters,
    fill_dropped,
    fix_legal_form,
    is_code,
    most_confident,
    read_seal,
    trim_code_ends,
    trim_rim_ends,
    trim_unsure_ends,
)
from imgproc.seal.shapes import SealRegion
from imgproc.text import Decoded


def region(shape: str, box: tuple[int, int, int, int]) -> SealRegion:
    x0, y0, x1, y1 = box
    centre, axes = ((x0 + x1) / 2, (y0 + y1) / 2), ((x1 - x0) / 2, (y1 - y0) / 2)
    return SealRegion(
        shape=shape,
        center=centre,
        axes=axes,
        angle_deg=0.0,
        box=box,
        cut=False,
        border_coverage=1.0,  # type: ignore[arg-type]
    )


REGION = region("round", (10, 10, 90, 90))


def strip(value: int) -> np.ndarray:
    return np.full((48, 200), value, np.uint8)


def decoded(text: str, *probs: float) -> Decoded:
    """`text` read with the given per-character probabilities (one value: all of them)."""
    return Decoded(tuple(text), probs if len(probs) == len(text) else probs * len(text))


def fake_recognise(table: dict[int, tuple[str, float]]):  # type: ignore[no-untyped-def]
    """Reads each image as the text its fill value names, every character equally sure."""

    def recognise(images: Sequence[np.ndarray]) -> list[Decoded]:
        return [decoded(*table[int(image[0, 0])]) for image in images]

    return recognise


def test_best_rim_weighs_confidence_by_prior() -> None:
    crops = SealCrops(REGION, rim=[RimStrip(strip(1), 1.0), RimStrip(strip(2), 0.5)])
    recognise = fake_recognise({1: ("上海星辰科技有限公司", 0.8), 2: ("司公限有", 0.95)})
    best = best_rim(crops, recognise)
    assert best is not None and best.strip is crops.rim[0].image
    assert (best.line.text, best.line.score) == ("上海星辰科技有限公司", pytest.approx(0.8))


def test_fill_dropped_rereads_the_skipped_character_alone() -> None:
    """A rim read with one place at twice the pitch: the window around it is read again."""
    pitch, step_px = 4, 8.0  # 4 steps of 8 strip columns: characters 32 columns apart
    line = evenly("南昌瑞祥件有限公司", 0.99, pitch=pitch, skip=(4,))
    image = np.full((48, round((line.length + 1) * step_px)), 255, np.uint8)
    seen: list[tuple[int, int]] = []

    def recognise(images: Sequence[np.ndarray]) -> list[Decoded]:
        seen.extend(image.shape for image in images)
        return [decoded("软", 0.7) for _ in images]

    filled = fill_dropped(RimReading(line, image, step_px), recognise)
    assert filled.text == "南昌瑞祥软件有限公司"
    assert seen == [(48, round(1.2 * pitch * step_px))]  # one window, 1.2 pitches wide
    assert list(filled.steps) == sorted(filled.steps)


@pytest.mark.parametrize(("reread", "prob"), [("软", 0.3), ("软件", 0.9), ("7", 0.9), ("", 0.0)])
def test_fill_dropped_leaves_the_place_unless_one_sure_chinese_character_is_read(
    reread: str, prob: float
) -> None:
    line = evenly("南昌瑞祥件有限公司", 0.99, skip=(4,))
    image = np.full((48, 400), 255, np.uint8)
    filled = fill_dropped(
        RimReading(line, image, 8.0), lambda images: [decoded(reread, prob) for _ in images]
    )
    assert filled.text == "南昌瑞祥件有限公司"


def test_fill_dropped_rereads_two_skipped_characters_in_one_window() -> None:
    line = evenly("六安电机有限公司", 0.99, pitch=4, skip=(2,))  # 江淮 skipped: a triple pitch
    line = Decoded(
        line.chars, line.probs, tuple(s + (4 if i >= 2 else 0) for i, s in enumerate(line.steps)), 60
    )
    image = np.full((48, 500), 255, np.uint8)
    widths: list[int] = []

    def recognise(images: Sequence[np.ndarray]) -> list[Decoded]:
        widths.extend(image.shape[1] for image in images)
        return [decoded("江淮", 0.8) for _ in images]

    filled = fill_dropped(RimReading(line, image, 8.0), recognise)
    assert filled.text == "六安江淮电机有限公司"
    assert widths == [round(2.2 * 4 * 8)]


def test_fill_dropped_calls_nothing_for_an_evenly_read_rim() -> None:
    def no_call(images: Sequence[np.ndarray]) -> list[Decoded]:
        raise AssertionError("re-read a rim with nothing skipped")

    line = evenly("南昌瑞祥软件有限公司", 0.99)
    assert fill_dropped(RimReading(line, np.zeros((48, 400), np.uint8), 8.0), no_call) == line


def test_most_confident_keeps_the_surer_reading_of_each_image() -> None:
    first = fake_recognise({1: ("上海星辰科技", 0.9), 2: ("天津公司", 0.6)})
    second = fake_recognise({1: ("上海星晨科技", 0.7), 2: ("天津君和公司", 0.8)})
    lines = most_confident(first, second)([strip(1), strip(2)])
    assert [line.text for line in lines] == ["上海星辰科技", "天津君和公司"]


def test_most_confident_offers_the_other_readings_as_alternatives() -> None:
    first = fake_recognise({1: ("珠海县档菜馆", 0.95)})
    second = fake_recognise({1: ("珠海档案馆", 0.9)})  # one character short, one different
    [line] = most_confident(first, with_options(second))([strip(1)])
    assert line.text == "珠海县档菜馆"
    assert line.alternatives[4] == (("菜", 0.95), ("案", 0.9))
    assert line.alternatives[2] == (("县", 0.95),)  # nothing the second saw lines up with 县


def test_most_confident_offers_what_another_reading_saw_between_characters_as_insertions() -> None:
    first = fake_recognise({1: ("义乌光信息", 0.97)})
    second = fake_recognise({1: ("南义乌晨光信", 0.88)})
    [line] = most_confident(with_options(first), second)([strip(1)])
    assert line.text == "义乌光信息"
    assert line.insertions == ((("南", 0.88),), (), (("晨", 0.88),), (), (), ())


def test_most_confident_adds_no_alternatives_when_none_were_asked_for() -> None:
    first = fake_recognise({1: ("珠海县档菜馆", 0.95)})
    second = fake_recognise({1: ("珠海县档案馆", 0.9)})
    assert most_confident(first, second)([strip(1)])[0].alternatives == ()


def test_fill_dropped_keeps_alternatives_in_step_with_the_characters() -> None:
    line = evenly("南昌瑞祥件有限公司", 0.99, skip=(4,))
    line = Decoded(line.chars, line.probs, line.steps, line.length, line.options())
    image = np.full((48, 400), 255, np.uint8)
    reread = Decoded(("软",), (0.8,), alternatives=((("软", 0.8), ("欤", 0.1)),))
    filled = fill_dropped(RimReading(line, image, 8.0), lambda images: [reread for _ in images])
    assert filled.text == "南昌瑞祥软件有限公司"
    assert [options[0][0] for options in filled.alternatives] == list(filled.chars)
    assert filled.alternatives[4] == reread.alternatives[0]


def test_read_seal_corrects_the_rim_after_trimming_its_ends() -> None:
    crops = SealCrops(REGION, rim=[RimStrip(strip(1), 1.0)])
    seen: list[str] = []

    def correct(line: Decoded) -> Decoded:
        seen.append(line.text)
        return Decoded(tuple("天津公司"), line.probs)

    reading = read_seal(
        crops,
        lambda images: [decoded("天津公可9", 0.9, 0.9, 0.9, 0.9, 0.3)],
        lambda image: [],
        correct=correct,
    )
    assert seen == ["天津公可"]  # the unsure 9 was cut first
    assert reading.rim_text == "天津公司"


def with_options(recognise):  # type: ignore[no-untyped-def]
    """`recognise` whose lines carry their characters as their only alternatives."""

    def offered(images: Sequence[np.ndarray]) -> list[Decoded]:
        return [Decoded(line.chars, line.probs, alternatives=line.options()) for line in recognise(images)]

    return offered


def evenly(text: str, prob: float, pitch: int = 4, skip: tuple[int, ...] = ()) -> Decoded:
    """`text` emitted one character every `pitch` steps, with a blank pitch before each index in
    `skip` (a character dropped there)."""
    steps, at = [], 0
    for index in range(len(text)):
        at += pitch * (2 if index in skip else 1)
        steps.append(at)
    return Decoded(tuple(text), (prob,) * len(text), tuple(steps), at + pitch)


def test_dropped_characters_are_the_places_a_pitch_is_missing() -> None:
    assert dropped_characters(evenly("南昌瑞祥软件有限公司", 0.99)) == 0
    assert dropped_characters(evenly("南昌瑞祥件有限公司", 0.99, skip=(4,))) == 1
    assert dropped_characters(evenly("南昌瑞件有限公司", 0.99, skip=(3, 6))) == 2
    assert dropped_characters(evenly("南昌", 0.99, skip=(1,))) == 0  # too short to have a pitch
    assert dropped_characters(decoded("南昌瑞祥件", 0.99)) == 0  # no steps known


@pytest.mark.parametrize(
    ("read", "fixed"),
    [
        ("东莞星辰服装有限资任公司", "东莞星辰服装有限责任公司"),  # a wrong character
        ("南宁市立达通讯设备限公司", "南宁市立达通讯设备有限公司"),  # a dropped one, not 备 -> 有
        ("广州美嘉信息技术有限任公司", "广州美嘉信息技术有限责任公司"),  # the longer form wins
        ("成都晨光股份有限公国", "成都晨光股份有限公司"),
        ("深圳市德瑞欣电子有限公", "深圳市德瑞欣电子有限公司"),
        ("贵阳市富临环保科技股信有限公司", "贵阳市富临环保科技股份有限公司"),  # 有限公司 is exact
        ("南京金桥份有限公司", "南京金桥股份有限公司"),
    ],
)
def test_fix_legal_form_restores_a_misread_ending(read: str, fixed: str) -> None:
    assert fix_legal_form(read) == fixed


@pytest.mark.parametrize(
    "text",
    [
        "上海集思有限公司",
        "天津公司",
        "兰州区档案馆",
        "四川顺丰速运有限公司绵阳分公司",
        "现金收讫",
        "",
        "成都科技有限公司",  # two edits from 股份有限公司: a plain limited company
        "武汉股份有限公司",
        "大连万达有限责任公司",
    ],
)
def test_fix_legal_form_leaves_exact_and_distant_endings(text: str) -> None:
    assert fix_legal_form(text) == text


def test_trim_unsure_ends_cuts_only_the_ends() -> None:
    line = decoded("9天津公3司0", 0.3, 0.9, 0.9, 0.95, 0.2, 0.9, 0.45)
    trimmed = trim_unsure_ends(line)
    assert trimmed.text == "天津公3司"  # the unsure "3" inside stays: cutting it would misplace the rest
    assert trimmed.probs == (0.9, 0.9, 0.95, 0.2, 0.9)


def test_trim_unsure_ends_of_an_all_unsure_line_is_empty() -> None:
    trimmed = trim_unsure_ends(decoded("噪点", 0.1, 0.4))
    assert (trimmed.text, trimmed.score) == ("", 0.0)


def test_trim_code_ends_drops_code_digits_and_loose_punctuation() -> None:
    assert trim_code_ends(decoded("8098重庆康华医药有限公司21,", 0.9)).text == "重庆康华医药有限公司"
    assert trim_code_ends(decoded("中农舜耕(北京)科技有限公司", 0.9)).text == "中农舜耕(北京)科技有限公司"


def test_trim_code_ends_drops_a_code_misread_with_letters_from_the_end_only() -> None:
    assert trim_code_ends(decoded("中农舜耕(北京)科技有限公司340h", 0.9)).text == "中农舜耕(北京)科技有限公司"
    assert trim_code_ends(decoded("TCL科技集团股份有限公司", 0.9)).text == "TCL科技集团股份有限公司"


def test_trim_code_ends_leaves_a_line_without_chinese() -> None:
    assert trim_code_ends(decoded("2024-05", 0.9)).text == "2024-05"


def test_trim_rim_ends_alternates_until_nothing_is_left_to_cut() -> None:
    line = decoded("T8098重庆康华公司", 0.3, 0.9, 0.9, 0.9, 0.9, 0.4, 0.9, 0.9, 0.9, 0.9, 0.9)
    assert trim_rim_ends(line).text == "庆康华公司"  # "T" unsure, then the code, then "重" unsure


def test_read_seal_trims_a_stray_mark_off_the_rim() -> None:
    crops = SealCrops(REGION, rim=[RimStrip(strip(1), 1.0)])

    def recognise(images: Sequence[np.ndarray]) -> list[Decoded]:
        return [decoded("天津公司9", 0.9, 0.9, 0.9, 0.9, 0.3)]

    reading = read_seal(crops, recognise, lambda image: [])
    assert (reading.rim_text, reading.rim_score) == ("天津公司", pytest.approx(0.9))


def test_codes_are_split_from_inner_lines() -> None:
    assert is_code(("91310115MA1K4AB12C", 0.9))
    assert not is_code(("合同专用章", 0.99))
    assert not is_code(("91310115MA1K4AB12C", 0.2))


def test_read_seal_collects_rim_inner_and_codes() -> None:
    crops = SealCrops(REGION, rim=[RimStrip(strip(1), 1.0)], code=strip(3), inner=[strip(9)])
    recognise = fake_recognise({1: ("天津君和缘商贸有限公司", 0.97), 3: ("1234567890123", 0.9)})

    def read_lines(image: np.ndarray) -> list[tuple[str, float]]:
        return [("发票专用章", 0.95), ("91120000MA05", 0.9), ("噪", 0.1)]

    reading = read_seal(crops, recognise, read_lines)
    assert reading.rim_text == "天津君和缘商贸有限公司"
    assert reading.inner == [("发票专用章", 0.95)]
    assert reading.codes == ["91120000MA05", "1234567890123"]


def test_rect_seal_reports_its_first_line_as_main_text() -> None:
    rect = SealCrops(region("rect", (10, 30, 90, 70)), inner=[strip(0)])
    reading = read_seal(
        rect, fake_recognise({}), lambda image: [("北京某某有限公司", 0.9), ("财务专用章", 0.8)]
    )
    assert (reading.rim_text, reading.inner) == ("北京某某有限公司", [("财务专用章", 0.8)])


def test_no_text_at_all_is_empty_not_an_error() -> None:
    reading = read_seal(SealCrops(REGION), fake_recognise({}), lambda image: [])
    assert (reading.rim_text, reading.rim_score, reading.inner, reading.codes) == ("", 0.0, [], [])


def test_a_rect_orientation_that_reads_clearly_better_replaces_the_first() -> None:
    rect = SealCrops(region("rect", (10, 30, 90, 70)), inner=[strip(0), strip(180)])

    def read_lines(image: np.ndarray) -> list[tuple[str, float]]:
        return [("认", 0.55), ("好", 0.6)] if image[0, 0] == 0 else [("现金收讫", 0.97)]

    reading = read_seal(rect, fake_recognise({}), read_lines)
    assert (reading.rim_text, reading.inner) == ("现金收讫", [])


def test_rect_upside_down_crop_reading_alike_but_reversed_does_not_win() -> None:
    """The direction classifier turns each line of an upside-down crop, so both orientations
    read the same lines with the same scores, in reverse order: the first (page-upright) stays."""
    rect = SealCrops(region("rect", (10, 30, 90, 70)), inner=[strip(0), strip(180)])
    lines = [("转账收讫", 0.97), ("嘉兴锦程物流有限公司", 0.99)]

    def read_lines(image: np.ndarray) -> list[tuple[str, float]]:
        return lines if image[0, 0] == 0 else lines[::-1]

    reading = read_seal(rect, fake_recognise({}), read_lines)
    assert (reading.rim_text, reading.inner) == ("转账收讫", [("嘉兴锦程物流有限公司", 0.99)])
