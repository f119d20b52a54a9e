"""The encoder-decoder recogniser's pure functions: input, greedy loop, tokens to text.

The loop runs here over a FAKE decoder (a script of next tokens per row); the real models
through real Triton are tests/integration/test_seq2seq_recognition.py.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from imgproc.imaging import ImageError
from imgproc.text.seq2seq import (
    Generated,
    Seq2SeqSpec,
    Vocabulary,
    as_decoded,
    beam_search,
    fit_strip,
    generate,
    greedy,
    padded_batch,
    pixel_values,
    row_score,
    text_of,
    unpadded,
)

SPEC = Seq2SeqSpec(max_length=6)
VOCAB = 10


class FakeScriptedDecoder:
    """Answers each row's scripted next token (end-of-sequence once the script runs out) with
    probability 0.9, and records the input_ids it was called with."""

    def __init__(self, scripts: list[list[int]]) -> None:
        self.scripts = scripts
        self.calls: list[np.ndarray] = []

    async def __call__(self, ids: np.ndarray, _parents: np.ndarray) -> np.ndarray:
        self.calls.append(ids.copy())
        step = ids.shape[1] - 1
        logits = np.zeros((len(ids), VOCAB), np.float32)
        for row, script in enumerate(self.scripts):
            token = script[step] if step < len(script) else SPEC.eos_token_id
            logits[row, token] = np.log(0.9 * (VOCAB - 1) / 0.1)  # softmax gives it 0.9
        return logits


def test_each_row_stops_at_its_end_and_is_padded_after_it() -> None:
    decoder = FakeScriptedDecoder([[5], [6, 7, 8]])
    rows = asyncio.run(greedy(decoder, 2, SPEC))
    assert [row.tokens for row in rows] == [(5, 2), (6, 7, 8, 2)]
    assert len(decoder.calls) == 4  # the loop ends when the last row has ended
    assert decoder.calls[-1].tolist() == [[1, 5, 2, 0], [1, 6, 7, 8]]
    assert rows[0].probs == pytest.approx((0.9, 0.9))


def test_the_maximum_length_cuts_a_row_that_never_ends() -> None:
    rows = asyncio.run(greedy(FakeScriptedDecoder([[5] * 20]), 1, SPEC, max_length=3))
    assert rows[0].tokens == (5, 5, 5)
    assert asyncio.run(greedy(FakeScriptedDecoder([[5] * 20]), 1, SPEC, max_length=99))[0].tokens == (5,) * 6


def test_no_rows_call_no_decoder() -> None:
    decoder = FakeScriptedDecoder([])
    assert asyncio.run(greedy(decoder, 0, SPEC)) == [] and decoder.calls == []


class FakeTreeDecoder:
    """Next-token probabilities looked up by the tokens so far (`tree`: prefix -> {token:
    prob}); a prefix it does not know ends at once. Records how many sequences each call had."""

    def __init__(self, tree: dict[tuple[int, ...], dict[int, float]]) -> None:
        self.tree = tree
        self.batch_sizes: list[int] = []

    async def __call__(self, ids: np.ndarray, _parents: np.ndarray) -> np.ndarray:
        self.batch_sizes.append(len(ids))
        logits = np.full((len(ids), VOCAB), -30.0, np.float32)
        for row, sequence in enumerate(ids.tolist()):
            prefix = tuple(t for t in sequence[1:] if t != SPEC.pad_token_id)
            for token, prob in self.tree.get(prefix, {SPEC.eos_token_id: 1.0}).items():
                logits[row, token] = np.log(prob)
        return logits


# Greedy takes 5 (0.6), then the best of a flat spread (7, 0.34), then the end: 0.204 in all.
# The beam finds 6 (0.4) and its end (0.99): 0.396. (Each node's probabilities sum to 1.)
TRAP = {(): {5: 0.6, 6: 0.4}, (5,): {7: 0.34, 8: 0.33, 9: 0.33}, (6,): {2: 0.99, 3: 0.01}}


def test_beam_search_finds_the_sequence_greedy_decoding_misses() -> None:
    greedy_rows = asyncio.run(greedy(FakeTreeDecoder(TRAP), 1, SPEC))
    decoder = FakeTreeDecoder(TRAP)
    beam_rows = asyncio.run(generate(decoder, 1, replace(SPEC, num_beams=2)))
    assert greedy_rows[0].tokens == (5, 7, 2)
    assert beam_rows[0].tokens == (6, 2) and beam_rows[0].probs == pytest.approx((0.4, 0.99), abs=1e-4)
    assert set(decoder.batch_sizes) == {2}  # every call: one row, two beams


def test_one_beam_is_greedy_decoding_token_for_token() -> None:
    rng = np.random.default_rng(7)
    table = rng.normal(size=(VOCAB**3, VOCAB)).astype(np.float32)

    async def fake_random_decoder(ids: np.ndarray, _parents: np.ndarray) -> np.ndarray:
        keys = [hash(tuple(row)) % len(table) for row in ids.tolist()]
        return table[keys]

    expected = asyncio.run(greedy(fake_random_decoder, 3, SPEC))
    found = asyncio.run(beam_search(fake_random_decoder, 3, replace(SPEC, num_beams=1)))
    assert [row.tokens for row in found] == [row.tokens for row in expected]
    assert [row.probs for row in found] == [pytest.approx(row.probs, abs=1e-6) for row in expected]


def test_beam_search_rows_end_on_their_own_and_at_the_maximum_length() -> None:
    tree = {(): {5: 1.0}, (5,): {2: 1.0}}
    endless = {(): {5: 0.5, 6: 0.5}, (5,): {5: 0.5, 6: 0.5}, (6,): {5: 0.5, 6: 0.5}}
    spec = replace(SPEC, num_beams=3)
    assert asyncio.run(beam_search(FakeTreeDecoder(tree), 2, spec))[1].tokens == (5, 2)
    assert len(asyncio.run(beam_search(FakeTreeDecoder(endless), 1, spec, max_length=4))[0].tokens) <= 4
    assert asyncio.run(beam_search(FakeTreeDecoder(tree), 0, spec)) == []


def _vocabulary(tmp_path: Path, tokens: list[str]) -> Vocabulary:
    path = tmp_path / "vocab.json"
    path.write_text(json.dumps({token: i for i, token in enumerate(tokens)}), encoding="utf-8")
    return Vocabulary.load(path, Seq2SeqSpec())


def test_a_character_vocabulary_reads_its_tokens_without_the_special_ones(tmp_path: Path) -> None:
    vocabulary = _vocabulary(tmp_path, ["<pad>", "<s>", "</s>", "<unk>", "上", "海"])
    assert text_of(vocabulary, Generated((4, 3, 5, 2), (0.5, 0.5, 0.5, 0.5))) == "上海"


def test_byte_level_and_sentencepiece_vocabularies_restore_spaces_and_bytes(tmp_path: Path) -> None:
    byte_level = _vocabulary(tmp_path, ["<pad>", "<s>", "</s>", "Hello", "\u0120world", "\u00e4\u00b8\u012c"])
    assert text_of(byte_level, Generated((3, 4, 5, 2), (1.0,) * 4)) == "Hello world上"
    pieces = _vocabulary(tmp_path, ["<pad>", "<s>", "</s>", "\u2581Hello", "\u2581world"])
    assert text_of(pieces, Generated((3, 4, 2), (1.0,) * 3)) == "Hello world"


def test_a_rows_score_counts_its_end_token() -> None:
    assert row_score(Generated((4, 2), (0.8, 0.4))) == pytest.approx(0.6)
    assert row_score(Generated((), ())) == 0.0
    assert as_decoded("上海", 0.6).probs == (0.6, 0.6)


def test_the_spec_reads_config_parameters_and_ignores_the_others() -> None:
    spec = Seq2SeqSpec.from_parameters(
        {"height": "384", "keep_aspect": "false", "mean": "0.4", "encoder_model": "x"}
    )
    assert (spec.height, spec.keep_aspect, spec.mean, spec.width) == (384, False, 0.4, Seq2SeqSpec().width)


def test_a_strip_keeps_its_aspect_padded_white_and_a_long_one_is_squeezed() -> None:
    spec = Seq2SeqSpec(height=32, width=256)
    short = fit_strip(np.zeros((48, 96, 3), np.uint8), spec)
    assert short.shape == (32, 256, 3) and short[:, :64].max() == 0 and short[:, 64:].min() == 255
    assert fit_strip(np.zeros((48, 900, 3), np.uint8), spec).max() == 0
    assert fit_strip(
        np.zeros((10, 10, 3), np.uint8), Seq2SeqSpec(height=8, width=12, keep_aspect=False)
    ).shape == (8, 12, 3)


def test_pixel_values_are_rgb_channels_first_and_normalised() -> None:
    bgr = np.zeros((1, 2, 2, 3), np.uint8)
    bgr[..., 0] = 255  # blue
    values = pixel_values(bgr, Seq2SeqSpec())
    assert values.shape == (1, 3, 2, 2) and values.dtype == np.float32
    assert values[0, 2].min() == 1.0 and values[0, 0].max() == -1.0  # blue is the last RGB channel


def test_a_padded_batch_gives_back_each_row_at_its_width() -> None:
    images = [np.full((48, 30, 3), 7, np.uint8), np.full((48, 50, 3), 9, np.uint8)]
    batch, widths = padded_batch(images)
    assert batch.shape == (2, 48, 50, 3) and widths.tolist() == [30, 50]
    assert [row.shape[1] for row in unpadded(batch, widths)] == [30, 50] and batch[0, :, 30:].min() == 255


@pytest.mark.parametrize("widths", [[30], [30, 51], [-1, 20]], ids=["too few", "too wide", "negative"])
def test_widths_that_do_not_fit_the_batch_are_a_bad_request(widths: list[int]) -> None:
    batch, _ = padded_batch([np.zeros((48, 30, 3), np.uint8), np.zeros((48, 50, 3), np.uint8)])
    with pytest.raises(ImageError, match="WIDTHS"):
        unpadded(batch, np.array(widths, np.int32))
