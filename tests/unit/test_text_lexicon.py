"""The word-list prior (imgproc.text.lexicon) and edit alignment: pure, with tiny word lists."""

from __future__ import annotations

from pathlib import Path

import pytest
from imgproc.text import Decoded
from imgproc.text.edit import aligned_pairs
from imgproc.text.lexicon import Lexicon, correct, load_lexicon, load_variants, word_share

WORDS = Lexicon.of(["档案馆", "档案", "菜馆", "重庆", "有限公司", "公司", "晨光", "南宁"])


def read(*options: tuple[tuple[str, float], ...]) -> Decoded:
    """A line whose characters are each one's likeliest option, with all options attached."""
    return Decoded(
        tuple(o[0][0] for o in options), tuple(o[0][1] for o in options), alternatives=tuple(options)
    )


def test_a_word_wins_over_a_slightly_surer_character() -> None:
    line = read(
        (("珠", 0.99),),
        (("海", 0.99),),
        (("县", 0.99),),
        (("档", 0.95),),
        (("菜", 0.6), ("案", 0.3)),
        (("馆", 0.9),),
    )
    fixed = correct(line, WORDS, weight=3.0)
    assert fixed.text == "珠海县档案馆"
    assert fixed.probs[4] == pytest.approx(0.3)  # the chosen character's own probability
    assert fixed.steps == line.steps and fixed.alternatives == line.alternatives


def test_a_sure_character_is_not_bent_into_a_word() -> None:
    line = read((("重", 0.99),), (("房", 0.999), ("庆", 0.0001)))
    assert correct(line, WORDS, weight=3.0).text == "重房"


def test_weight_zero_keeps_the_likeliest_characters() -> None:
    line = read((("重", 0.99),), (("房", 0.6), ("庆", 0.4)))
    assert correct(line, WORDS, weight=0.0).text == "重房"
    assert correct(line, WORDS, weight=3.0).text == "重庆"


def test_the_longer_word_earns_more() -> None:
    # 档案馆 (two joins) beats 档 + 菜馆 (one join), though 菜 is the surer reading.
    line = read((("档", 0.9),), (("菜", 0.5), ("案", 0.4)), (("馆", 0.9),))
    assert correct(line, WORDS, weight=1.0).text == "档案馆"


def test_a_line_without_alternatives_or_words_is_unchanged() -> None:
    line = Decoded(tuple("星辰科技"), (0.9, 0.5, 0.8, 0.7), (1, 5, 9, 13), 20)
    assert correct(line, WORDS, weight=3.0) == line
    assert correct(Decoded((), ()), WORDS, weight=3.0) == Decoded((), ())


def test_a_character_another_reading_saw_is_inserted_only_to_complete_a_word() -> None:
    line = Decoded(
        tuple("义乌光信息"),
        (0.99,) * 5,
        (4, 8, 16, 20, 24),
        30,
        insertions=((("南", 0.9),), (), (("晨", 0.3), ("晟", 0.25)), (("噪", 0.9),), (), ()),
    )
    fixed = correct(line, WORDS, weight=3.0)
    assert fixed.text == "义乌晨光信息"  # 南 and 噪 complete no word: left out
    assert fixed.steps == (4, 8, 12, 16, 20, 24)  # the inserted 晨 sits between its neighbours
    assert fixed.probs[2] == pytest.approx(0.3)
    assert correct(line, WORDS, weight=0.0).text == "义乌光信息"


def test_an_insertion_may_complete_a_word_at_the_start() -> None:
    line = Decoded(tuple("宁星"), (0.99, 0.99), (4, 8), 12, insertions=((("南", 0.6),), (), ()))
    assert correct(line, WORDS, weight=3.0).text == "南宁星"


def test_lexicon_keeps_chinese_words_of_two_to_six_characters(tmp_path: Path) -> None:
    path = tmp_path / "dict.txt"
    path.write_text(
        "AT&T 3 nz\n档案馆 120 n\n馆 50 n\n中华人民共和国国务院 9 nt\nB超 3 n\n", encoding="utf-8"
    )
    lexicon = load_lexicon(path)
    assert lexicon.words == {"档案馆"}
    assert lexicon.prefixes == {"档", "档案"}


@pytest.mark.parametrize(
    ("a", "b", "pairs"),
    [
        ("档菜馆", "档案馆", [(0, 0), (1, 1), (2, 2)]),
        ("天津档馆", "天津档案馆", [(0, 0), (1, 1), (2, 2), (3, 4)]),
        ("天津新区档案馆", "津新区档案馆", [(1, 0), (2, 1), (3, 2), (4, 3), (5, 4), (6, 5)]),
        ("", "档案", []),
    ],
)
def test_aligned_pairs_line_up_kept_and_substituted_characters(
    a: str, b: str, pairs: list[tuple[int, int]]
) -> None:
    assert aligned_pairs(a, b) == pairs
    assert aligned_pairs(tuple(a), tuple(b)) == pairs


def test_a_traditional_character_is_simplified_only_where_that_forms_a_word(tmp_path: Path) -> None:
    table = tmp_path / "simplified.txt"
    table.write_text("# OpenCC table\n銷\t销\n售\t售\n門\t门\n", encoding="utf-8")
    variants = load_variants(table)
    assert variants == {"銷": "销", "售": "售", "門": "门"}
    words = Lexicon.of(["销售", "有限公司"])
    assert correct(read((("銷", 0.9),), (("售", 0.95),)), words, 3.0, variants).text == "销售"
    assert correct(read((("門", 0.9),), (("市", 0.95),)), words, 3.0, variants).text == "門市"


def test_the_share_of_a_text_that_words_cover_takes_the_best_words_side_by_side() -> None:
    words = Lexicon.of(["西安", "西安市", "安市", "灞桥", "灞桥区", "市场"])
    assert word_share("西安市灞桥区", words) == 1.0
    assert word_share("西安市溪桥区", words) == 0.5  # 西安市; 溪桥 is no word, 区 alone none
    assert word_share("西安市场", words) == 1.0  # 西安 and 市场, not 西安市 and a lone 场
    assert word_share("溪", words) == word_share("", words) == 0.0
