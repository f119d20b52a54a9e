"""The OCR evaluation helpers: character error rate and the generated text corpus."""

from __future__ import annotations

import io

import pytest
from PIL import Image

from evaluation.support.text_corpus import KINDS, LANGUAGES, VARIANTS, generate_corpus
from evaluation.text import CerTally, cer, levenshtein, normalize, page_text


def test_levenshtein() -> None:
    assert levenshtein("kitten", "sitting") == 3
    assert levenshtein("", "abc") == 3
    assert levenshtein("同一个", "同一个") == 0


def test_normalize_folds_width_and_drops_spaces() -> None:
    assert normalize("Ａ１， b\tc\n") == "A1,bc"


def test_cer_and_tally() -> None:
    assert cer("hello world", "helloworld") == 0.0
    assert cer("helo", "hello") == pytest.approx(0.2)
    assert cer("x", "") == 1.0
    tally = CerTally()
    tally.add("abcd", "abcd")
    tally.add("", "abcdef")
    assert (tally.distance, tally.length, tally.samples) == (6, 10, 2)
    assert tally.rate == pytest.approx(0.6)


def test_page_text_forgives_line_splits() -> None:
    truth = page_text(["The quick brown fox", "jumps over"])
    assert cer(page_text(["The quick", "brown fox jumps", "over"]), truth) == 0.0


def test_corpus_is_deterministic_and_complete() -> None:
    first, second = generate_corpus(seed=3, pages=1, lines=1), generate_corpus(seed=3, pages=1, lines=1)
    assert [s.image for s in first] == [s.image for s in second]
    assert {(s.kind, s.language, s.variant) for s in first} == {
        (k, lang, v) for k in KINDS for lang in LANGUAGES for v in VARIANTS
    }
    assert generate_corpus(seed=4, pages=1, lines=1)[0].image != first[0].image


def test_corpus_samples_decode_and_carry_their_text() -> None:
    for sample in generate_corpus(seed=0, pages=1, lines=1):
        image = Image.open(io.BytesIO(sample.image))
        assert image.format == ("JPEG" if sample.variant == "jpeg" else "PNG")
        assert sample.lines and all(line.strip() for line in sample.lines)
        assert (len(sample.lines) > 1) == (sample.kind == "page")
