"""Pure tests of the fine-tuning strips' random names (training/seal_rec/strips.py)."""

from __future__ import annotations

import numpy as np

from evaluation.seal.generator import vocab
from training.seal_rec.strips import common_characters, random_names

GB2312_LEVEL1_COUNT = 3755  # GB2312's first-level hanzi


def test_common_characters_are_gb2312_first_level() -> None:
    chars = common_characters()
    assert len(chars) == len(set(chars)) == GB2312_LEVEL1_COUNT
    assert chars[0] == "啊" and chars[-1] == "座"


def test_random_names_keep_the_generator_length_limits_and_draw_random_text_mostly() -> None:
    marker = "甲乙丙丁戊己"  # stands for the generator's own name

    def generator_name(rng: np.random.Generator, max_chars: int) -> str:
        return marker

    name = random_names(common_characters(), generator_name)
    rng = np.random.default_rng(5)
    drawn = [name(rng, max_chars) for max_chars in (12, 20) * 200]
    assert all(vocab.MIN_RIM_CHARS <= len(text) <= 20 for text in drawn)
    assert all(len(text) <= 12 for text in drawn[::2])
    random_share = sum(text != marker for text in drawn) / len(drawn)
    assert 0.65 < random_share < 0.85
