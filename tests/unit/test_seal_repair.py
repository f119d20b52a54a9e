"""Repairing seal readings (imgproc.seal.repair): pure, no models."""

from __future__ import annotations

from functools import partial

import pytest
from imgproc.seal.codes import code_text, credit_check, is_code, org_check
from imgproc.seal.records import Shape
from imgproc.seal.repair import RepairParams, repair_rim, sorted_lines
from imgproc.seal.repair.ends import (
    core_pitch,
    trim_code_ends,
    trim_rim_ends,
    trim_stray_ends,
    trim_unsure_ends,
    without_inner_marks,
)
from imgproc.seal.repair.names import fix_legal_form, started_after_legal_form
from imgproc.seal.repair.standard import purpose_line, shared_in_order, standard_text, supervision_rim
from imgproc.text import Decoded
from imgproc.text.lexicon import Lexicon, correct

from tests.support.readings import decoded

Line = tuple[str, float]
Probs = tuple[float, ...]


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
        ("常州丰源物流有限", "常州丰源物流有限公司"),  # cut short: the commonest form
        ("厦门腾信商贸有限责任", "厦门腾信商贸有限责任公司"),
        ("西安光明软件股份有限", "西安光明软件股份有限公司"),  # the longest start wins
        ("石家庄同创网络科技有限责", "石家庄同创网络科技有限责任公司"),
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
        "西安光明软件股份",  # too little of a form to tell it was cut
        "有限",  # nothing but the form
    ],
)
def test_fix_legal_form_leaves_exact_and_distant_endings(text: str) -> None:
    assert fix_legal_form(text) == text


@pytest.mark.parametrize(
    ("read", "turned"),
    [
        ("有限公司河南森源重工", "河南森源重工有限公司"),  # opened at the form (seen on a contract)
        ("重工有限公司河南森源", "河南森源重工有限公司"),
        ("限公司河南森源重工有", "河南森源重工有限公司"),  # opened inside the form
        ("股份有限公司长城", "长城股份有限公司"),  # the longest form, not 有限公司 inside it
        ("责任公司河南森源有限", "河南森源有限责任公司"),
    ],
)
def test_started_after_legal_form_turns_a_rim_read_from_the_wrong_start(read: str, turned: str) -> None:
    assert started_after_legal_form(read) == turned


@pytest.mark.parametrize(
    "text",
    [
        "河南森源重工有限公司",
        "四川顺丰速运有限公司绵阳分公司",  # a branch after the form
        "北京万达有限公司第一分厂",
        "甲有限公司乙丙有限公司",  # two forms: not a wrapped name
        "有限公司甲",  # one character is too little to be the name's start
        "烟台华宇商贸有限公司一",  # one stray mark read after the form, a long name before it
        "深圳有限公司A1",  # not all Chinese: a code read along
        "有限公司",
        "",
    ],
)
def test_started_after_legal_form_leaves_names_that_end_right(text: str) -> None:
    assert started_after_legal_form(text) == text


def test_repair_rim_turns_a_wrong_start_before_restoring_the_form() -> None:
    assert repair_rim(decoded("有限公河南森源重工", 0.9)).text == "有限公河南森源重工"  # no whole form
    assert repair_rim(decoded("有限公司河南森源重工", 0.9)).text == "河南森源重工有限公司"


def test_trim_unsure_ends_cuts_only_the_ends() -> None:
    line = decoded("9天津公3司0", 0.3, 0.9, 0.9, 0.95, 0.2, 0.9, 0.45)
    trimmed = trim_unsure_ends(line)
    assert trimmed.text == "天津公3司"  # the unsure "3" inside stays: cutting it would misplace the rest
    assert trimmed.probs == (0.9, 0.9, 0.95, 0.2, 0.9)


def test_an_unsure_end_character_trimmed_is_offered_to_the_word_list_beside_what_is_kept() -> None:
    """郑 of 郑州 read at 0.3 with its look-alikes: trimmed as unsure, but offered as an insertion
    before the new first character, which the correction takes only to complete a word."""
    line = Decoded(
        tuple("噪郑州盛世建筑工程有限公司号"),
        (0.2, 0.3, *(0.99,) * 11, 0.1),
        alternatives=(
            (("噪", 0.2),),
            (("郑", 0.3), ("邓", 0.25)),
            *(((char, 0.99),) for char in "州盛世建筑工程有限公司"),
            (("号", 0.1), ("弓", 0.05)),
        ),
    )
    trimmed = trim_unsure_ends(line)
    assert trimmed.text == "州盛世建筑工程有限公司"
    assert trimmed.gaps()[0] == (("郑", 0.3), ("邓", 0.25))  # only the one next to the kept text
    assert trimmed.gaps()[-1] == (("号", 0.1), ("弓", 0.05))
    assert trimmed.gaps()[1:-1] == ((),) * 10
    lexicon = Lexicon.of(["郑州", "建筑", "工程", "有限公司"])
    assert repair_rim(line, partial(correct, lexicon=lexicon, weight=3.0)).text == "郑州盛世建筑工程有限公司"
    assert trim_unsure_ends(decoded("天津公司", 0.9)).insertions == ()  # nothing trimmed, nothing offered


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


def test_codes_are_split_from_inner_lines() -> None:
    assert is_code(("91310115MA1K4AB12C", 0.9), 0.5)
    assert not is_code(("合同专用章", 0.99), 0.5)
    assert not is_code(("91310115MA1K4AB12C", 0.2), 0.5)


def test_repair_rim_corrects_after_trimming_its_ends() -> None:
    seen: list[str] = []

    def correct(line: Decoded) -> Decoded:
        seen.append(line.text)
        return Decoded(tuple("天津公司"), line.probs)

    repaired = repair_rim(decoded("天津公可9", 0.9, 0.9, 0.9, 0.9, 0.3), correct)
    assert seen == ["天津公可"]  # the unsure 9 was cut first
    assert (repaired.text, repaired.score) == ("天津公司", pytest.approx(0.9))


def test_repair_rim_restores_a_misread_standard_text_and_a_legal_form() -> None:
    assert repair_rim(decoded("全国统古发票监制章", 0.9)).text == "全国统一发票监制章"
    assert repair_rim(decoded("国统一发票监制", 0.9)).text == "全国统一发票监制章"
    assert repair_rim(decoded("国统票监制", 0.9)).text == "全国统一发票监制章"  # the title hid some
    assert repair_rim(decoded("深圳市德瑞欣电子有限公", 0.9)).text == "深圳市德瑞欣电子有限公司"


@pytest.mark.parametrize(
    "text", ["全国统一", "发票专用章", "监制", "全国概要制", "全国统一发票专用章有限公司股份"]
)
def test_standard_text_leaves_readings_that_are_not_close(text: str) -> None:
    assert standard_text(text) == text


def test_standard_lines_keep_an_exact_shorter_standard() -> None:
    lines = [("国家税务总局", 0.9), ("国家税局监制", 0.8), ("江苏", 0.9), ("深圳市税务局", 0.9)]
    lines += [("发票专朝章", 0.9), ("合同专用章", 0.9), ("专用章", 0.9)]
    expected = [("国家税务总局", 0.9), ("国家税务总局监制", 0.8), ("江苏", 0.9), ("深圳市税务局", 0.9)]
    expected += [("发票专用章", 0.9), ("合同专用章", 0.9), ("专用章", 0.9)]
    assert sorted_lines(lines)[0] == expected


def test_sorted_lines_split_codes_with_their_confidence_from_inner_lines_and_drop_unsure_ones() -> None:
    lines = [("发票专用章", 0.95), ("5107030 057772", 0.9), ("噪", 0.1), ("  ", 0.9)]
    assert sorted_lines(lines) == ([("发票专用章", 0.95)], [("5107030057772", 0.9)])


def test_a_code_is_a_code_only_at_the_configured_floor() -> None:
    """With the floor lowered, a tax ID read at 0.4 is kept once, as a code, not also as an
    inner line (the inner lines' test once used the default floor)."""
    low = RepairParams(min_line_score=0.3)
    assert sorted_lines([("510798775802711", 0.4)], low) == ([], [("510798775802711", 0.4)])


def test_a_number_line_that_is_no_code_is_trimmed_to_the_code_it_holds_or_dropped() -> None:
    lines = [("发票专用章", 0.95), ("09D102339", 0.9), ("K4301110162012L", 0.9)]  # a date; strays
    assert sorted_lines(lines) == ([("发票专用章", 0.95)], [("4301110162012", 0.9)])


def test_shared_in_order_is_the_longest_common_subsequence() -> None:
    assert shared_in_order("国统票监制", "全国统一发票监制章") == 5
    assert shared_in_order("", "全国") == 0
    assert shared_in_order("abc", "cba") == 1


def test_an_oval_with_the_tax_bureau_line_inside_is_a_supervision_seal() -> None:
    inner = [("国家税务总局", 0.9), ("深圳市税务局", 0.9)]
    assert supervision_rim(Shape.OVAL, "值税电子", inner) == "全国统一发票监制章"
    assert supervision_rim(Shape.ROUND, "国家税务总局深圳市税务局", []) == "国家税务总局深圳市税务局"
    assert (
        supervision_rim(Shape.OVAL, "深圳市宝安区老七卤鹅餐厅", [("发票专用章", 0.9)])
        == "深圳市宝安区老七卤鹅餐厅"
    )


def test_an_oval_whose_rim_reads_as_the_tax_bureau_line_is_a_supervision_seal() -> None:
    """The invoice's title hides the rim, so the lower line, read turned, was taken for it."""
    assert supervision_rim(Shape.OVAL, "国家税务总局监制", []) == "全国统一发票监制章"
    assert supervision_rim(Shape.OVAL, "国国家税局监制", []) == "全国统一发票监制章"  # misread
    assert supervision_rim(Shape.ROUND, "国家税务总局监制", []) == "国家税务总局监制"
    assert supervision_rim(Shape.OVAL, "发票专用章", []) == "发票专用章"


def test_an_oval_with_an_unread_rim_and_the_invoice_title_around_it_is_a_supervision_seal() -> None:
    title = [("值税普通之", 0.6), ("抵扣联", 0.9)]
    assert supervision_rim(Shape.OVAL, "普", [], title) == "全国统一发票监制章"
    assert supervision_rim(Shape.OVAL, "", [], [("宝税务总局监", 0.5)]) == "全国统一发票监制章"
    assert supervision_rim(Shape.OVAL, "和pN,  W影人", [], title) == "全国统一发票监制章"  # marks: unread
    # A company's invoice seal has 发票 inside but no cue, and a name for a rim.
    assert supervision_rim(Shape.OVAL, "普", [], [("发票专用章", 0.9)]) == "普"
    assert supervision_rim(Shape.OVAL, "武汉恒泰食品有限公司", [], title) == "武汉恒泰食品有限公司"
    assert supervision_rim(Shape.OVAL, "东莞市教育局税务", [], title) == "东莞市教育局税务"  # long: read
    assert supervision_rim(Shape.ROUND, "普", [], title) == "普"  # supervision seals are ovals
    # A company's invoice seal near the title: its own purpose line says what it is.
    assert supervision_rim(Shape.OVAL, "人化", [("发票专用章", 0.7)], title) == "人化"


@pytest.mark.parametrize(
    "around",
    [
        [("直税普通发", 0.98)],  # the title with its 值, half under the seal, read as 直
        [("直税专用发", 0.99)],
        [("兑音通发票", 0.85)],
        [("增值机", 0.71)],  # the title's start, its 税 under the seal read as 机
        [("随税电用发票", 0.8)],  # its end, read on past the seal, 专 under the ring read as 电
        [("发票联", 0.99)],  # the copy's name, printed beside the title
        [("记账联", 0.99)],
    ],
)
def test_pieces_of_the_invoice_title_or_copy_name_cue_a_supervision_seal(around: list[Line]) -> None:
    assert supervision_rim(Shape.OVAL, "A", [], around) == "全国统一发票监制章"


def test_the_tax_columns_of_an_invoice_table_do_not_cue_a_supervision_seal() -> None:
    around = [("税率", 0.99), ("税额", 0.99), ("销售方：（章）", 0.99)]
    assert supervision_rim(Shape.OVAL, "A", [], around) == "A"


@pytest.mark.parametrize(
    ("read", "purpose"),
    [
        ("采可专用章", "采购专用章"),  # a wrong character
        ("行政专用", "行政专用章"),  # a dropped one
        ("合同专用章", "合同专用章"),
        ("验报告专用章", "验报告专用章"),  # one edit from both 检验 and 试验报告专用章: left
        ("专用章", "专用章"),  # shared alike with every purpose: left
        ("发票专方", "发票专用章"),  # two edits, but 发票专 of 发票专用章 alone
        ("财务章", "财务专用章"),
        ("采购专", "采购专用章"),  # a line split in two: its first piece
        ("用章", "用章"),  # too short
        ("销售总公司", "销售总公司"),  # 销售 and 专用章 share too little of it
        ("东莞区人民医院", "东莞区人民医院"),
    ],
)
def test_purpose_line_restores_a_misread_purpose(read: str, purpose: str) -> None:
    assert purpose_line(read) == purpose


@pytest.mark.parametrize(
    ("line", "code"),
    [
        ("~1102290078766", "1102290078766"),
        ("“51070300577.", "51070300577"),
        ("9144 0300 1924", "914403001924"),
        ("4101021694809 Y", "4101021694809"),  # the foot of the rim's last character
        ("。 41010216948 ￥", "41010216948"),
        ("1Y 4101021694809", "4101021694809"),
    ],
)
def test_a_code_loses_spaces_and_the_marks_at_its_ends(line: str, code: str) -> None:
    assert code_text(line) == code
    assert is_code((line, 0.9), 0.5)


def test_a_code_that_passes_its_checks_keeps_a_character_set_off_at_its_end() -> None:
    body = "91350206" + "30287744" + org_check("30287744")
    code = body + credit_check(body)
    assert code_text(f"{code[:-1]} {code[-1]}") == code


def test_sorted_lines_restore_purposes_and_clean_codes() -> None:
    inner, codes = sorted_lines([("采可专用章", 0.9), ("~1102290078766", 0.9)])
    assert (inner, codes) == ([("采购专用章", 0.9)], [("1102290078766", 0.9)])


@pytest.mark.parametrize(
    ("read", "kept"),
    [
        ("武/汉立达机电有限责任公司", "武汉立达机电有限责任公司"),  # a rule across the ring read as /
        ("青岛中联-实业有限公司", "青岛中联实业有限公司"),
        ("中农舜耕(北京)科技有限公司", "中农舜耕(北京)科技有限公司"),  # brackets are a name's
        ("约翰·史密斯有限公司", "约翰·史密斯有限公司"),  # as is a foreign name's dot
        ("TCL-王牌电器有限公司", "TCL-王牌电器有限公司"),  # a mark beside Latin is not between two Chinese
    ],
)
def test_without_inner_marks_drops_punctuation_between_chinese_characters(read: str, kept: str) -> None:
    assert without_inner_marks(decoded(read, 0.9)).text == kept


def test_without_inner_marks_keeps_steps_and_merges_the_gaps_around_a_mark() -> None:
    line = Decoded(
        tuple("武/汉"),
        (0.9, 0.5, 0.8),
        (2, 5, 8),
        40,
        ((("武", 0.9),), (("/", 0.5),), (("汉", 0.8),)),
        ((), (("晨", 0.2),), (("光", 0.1),), ()),
    )
    dropped = without_inner_marks(line)
    assert dropped.chars == ("武", "汉") and dropped.probs == (0.9, 0.8) and dropped.steps == (2, 8)
    assert dropped.insertions == ((), (("晨", 0.2), ("光", 0.1)), ())
    assert dropped.alternatives == ((("武", 0.9),), (("汉", 0.8),))


def _rim(text: str, probs: tuple[float, ...], steps: tuple[int, ...]) -> Decoded:
    return Decoded(tuple(text), probs, steps, 40)


def test_trim_unsure_ends_keeps_an_unsure_first_character_in_pitch_with_the_rest() -> None:
    sure = (1.0,) * 6
    in_pitch, off_pitch = (3, 6, 8, 11, 13, 16, 18), (0, 8, 10, 13, 15, 18, 20)
    name = "西安市力帆餐饮"
    assert trim_unsure_ends(_rim(name, (0.48, *sure), in_pitch)).text == name
    # the same character far off the pitch is a stray mark, as is one read barely at all
    assert trim_unsure_ends(_rim(name, (0.48, *sure), off_pitch)).text == name[1:]
    assert trim_unsure_ends(_rim(name, (0.2, *sure), in_pitch)).text == name[1:]
    # a mark that is not Chinese goes in pitch or not, at either end
    assert trim_unsure_ends(_rim(name[1:] + "-", (*sure, 0.4), in_pitch)).text == name[1:]
    # and a line too short to have a pitch trims by confidence alone
    assert trim_unsure_ends(_rim("西安市", (0.48, 1.0, 1.0), (3, 6, 8))).text == "安市"


# 南京市玄武区艾果电子中心 at a pitch of 2.5 steps, as a strip reads it.
RIM = "南京市玄武区艾果电子中心"
RIM_STEPS = tuple(10 + round(2.5 * i) for i in range(len(RIM)))


def test_core_pitch_is_the_middle_halfs_spacing_finer_than_whole_steps() -> None:
    line = _rim(RIM, (1.0,) * len(RIM), RIM_STEPS)
    assert core_pitch(line) == pytest.approx(2.5, abs=0.2)
    assert line.pitch() in (2.0, 3.0)  # the median of whole steps (2, 3, 3, 2...) is coarser
    # stray characters at the ends do not move it, and a short line has none
    strayed = _rim("医" + RIM, (0.8,) + (1.0,) * len(RIM), (2, *RIM_STEPS))
    assert core_pitch(strayed) == pytest.approx(2.5, abs=0.2)
    assert core_pitch(_rim("南京市玄", (1.0,) * 4, (1, 3, 6, 8))) == 0.0


def test_trim_stray_ends_cuts_an_unsure_group_beyond_an_empty_gap_at_either_end() -> None:
    sure = (1.0,) * len(RIM)
    last = RIM_STEPS[-1]
    # a turned character of the purpose line, three pitches before the rim's first one
    assert trim_stray_ends(_rim("医" + RIM, (0.78, *sure), (2, *RIM_STEPS))).text == RIM
    # two characters of print in the gap after it, at their own pitch
    after = _rim(RIM + "事由", (*sure, 0.4, 0.6), (*RIM_STEPS, last + 6, last + 8))
    assert trim_stray_ends(after).text == RIM


def test_trim_stray_ends_keeps_what_may_be_rim_text() -> None:
    sure = (1.0,) * len(RIM)
    first = RIM_STEPS[0]
    # one pitch and a half away: a wide character, not a stray one
    assert trim_stray_ends(_rim("医" + RIM, (0.78, *sure), (first - 4, *RIM_STEPS))).text == "医" + RIM
    # read surely, it is rim text however far
    assert trim_stray_ends(_rim("医" + RIM, (0.95, *sure), (first - 7, *RIM_STEPS))).text == "医" + RIM
    # a mark read in the gap: the gap is not empty, the rim runs on there
    marked = _rim("苏#" + RIM, (0.45, 0.2, *sure), (first - 6, first - 3, *RIM_STEPS))
    assert trim_stray_ends(marked).text == marked.text
    # further than `stray_max_gap` pitches: rim text beyond a stretch nobody read
    assert trim_stray_ends(_rim("医" + RIM, (0.78, *sure), (first - 12, *RIM_STEPS))).text == "医" + RIM
    # three characters are too many for a stray group
    three = _rim("一二三" + RIM, (0.5, 0.5, 0.5, *sure), (0, 2, 4, *(s + 1 for s in RIM_STEPS)))
    assert trim_stray_ends(three).text == three.text


@pytest.mark.parametrize(
    ("text", "probs", "kept"),
    [
        ("长城游石加油站事由", (0.9,) * 7 + (0.49, 0.5), "长城游石加油站"),  # print in the gap
        ("清华大学业", (0.9,) * 4 + (0.2,), "清华大学"),  # a word completed past the end
        ("艾果电子中心社", (0.9,) * 6 + (0.48,), "艾果电子中心"),
        ("星辰科技有限公司工会", (0.9,) * 10, "星辰科技有限公司工会"),  # sure: the name's own
        ("星辰科技有限公司", (0.9,) * 7 + (0.4,), "星辰科技有限公司"),  # 有限公 ends in nothing
        ("长城游石加油站事由二", (0.9,) * 7 + (0.55,) * 3, "长城游石加油站事由二"),  # too many
    ],
)
def test_unsure_characters_after_a_rims_ending_are_cut(
    text: str, probs: tuple[float, ...], kept: str
) -> None:
    assert repair_rim(decoded(text, *probs)).text == kept
