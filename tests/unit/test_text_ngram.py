"""The character n-gram prior (imgproc.text.ngram): a proper distribution, Kneser-Ney's
preference for characters that follow many contexts, and the written model read back."""

from __future__ import annotations

from pathlib import Path

import pytest
from imgproc.text.ngram import BOS, EOS, load_ngram, train_ngram

TEXTS = [
    ("上海星辰科技有限公司", 3.0),
    ("北京星辰贸易有限公司", 2.0),
    ("上海市教育局", 1.0),
    ("南京市财政局", 1.0),
]


def test_the_probabilities_after_any_context_sum_to_one() -> None:
    model = train_ngram(TEXTS, order=3)
    alphabet = {char for text, _ in TEXTS for char in text} | {EOS}
    for context in (BOS * 2, BOS * 2 + "上海", "有限", "海市", "未见"):
        total = sum(model.prob(context, char) for char in alphabet)
        assert len(alphabet) == model.vocabulary
        unseen = model.prob(context, "㐀") * (model.alphabet - model.vocabulary)
        assert total + unseen == pytest.approx(1.0, abs=1e-9)


def test_what_names_hold_is_likelier_than_a_misreading() -> None:
    model = train_ngram(TEXTS, order=3)
    assert model.logprob("上海星辰科技有限公司", end=True) > model.logprob("上海星辰科技有眼公司", end=True)
    assert model.prob("有限", "公") > 0.5  # every name ends so
    assert model.prob(BOS * 2, "上") > model.prob(BOS * 2, "公")  # names start with places


def test_the_written_model_reads_back_the_same(tmp_path: Path) -> None:
    model = train_ngram(TEXTS, order=3)
    path = tmp_path / "names.json"
    path.write_text(model.to_json(), encoding="utf-8")
    again = load_ngram(path)
    for text in ("上海星辰科技有限公司", "南京贸易局", "未见过的字"):
        assert again.logprob(text, end=True) == pytest.approx(model.logprob(text, end=True))
