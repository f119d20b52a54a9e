"""Decoding with past key/values (`imgproc.text.past`) against decoding the whole prefix.

Both run over FAKE decoders with random next-token scores looked up by (strip, tokens so
far): one reads the whole prefix every call; the other keeps the tokens so far in its "cache"
(the `present.*` / `past_key_values.*` entries, NumPy arrays here) and is given only the last
token, so it decodes right only if the cache rows follow the beams. The real graphs through
real Triton are tests/integration/test_seq2seq_recognition.py.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from dataclasses import replace

import numpy as np
import pytest
from imgproc.text.past import past_of, reordered, with_past
from imgproc.text.seq2seq import Decode, Generated, Seq2SeqSpec, beam_search, generate, greedy

SPEC = Seq2SeqSpec(max_length=8)
VOCAB, STRIPS = 12, 3
TABLE = np.random.default_rng(17).normal(size=(4099, VOCAB)).astype(np.float32) * 3


def _scores(strip: int, prefix: tuple[int, ...]) -> np.ndarray:
    return TABLE[hash((strip, prefix)) % len(TABLE)]


def fake_full_decoder(width: int) -> Decode:
    """Reads the whole prefix of every row; row r belongs to strip r // width."""

    async def decode(ids: np.ndarray, _parents: np.ndarray) -> np.ndarray:
        return np.stack([_scores(r // width, tuple(row)) for r, row in enumerate(ids.tolist())])

    return decode


class FakeCachedDecoder:
    """Keeps each row's tokens so far in `present.0.decoder.key` (int64[R, T]) and its strip in
    `present.0.encoder.key` (int64[R]); later calls see only the last token and the past."""

    def __init__(self, width: int) -> None:
        self.width = width
        self.later_ids: list[np.ndarray] = []

    async def first(self, ids: np.ndarray) -> tuple[np.ndarray, Mapping[str, np.ndarray]]:
        strips = np.arange(len(ids)) // self.width
        return self._answer(ids, strips), {
            "present.0.decoder.key": ids.copy(),
            "present.0.encoder.key": strips,
        }

    async def later(
        self, ids: np.ndarray, past: Mapping[str, np.ndarray]
    ) -> tuple[np.ndarray, Mapping[str, np.ndarray]]:
        self.later_ids.append(ids)
        tokens = np.concatenate([past["past_key_values.0.decoder.key"], ids], axis=1)
        return self._answer(tokens, past["past_key_values.0.encoder.key"]), {"present.0.decoder.key": tokens}

    def _answer(self, tokens: np.ndarray, strips: np.ndarray) -> np.ndarray:
        return np.stack([_scores(int(s), tuple(row)) for s, row in zip(strips, tokens.tolist(), strict=True)])


def _take(_name: str, value: np.ndarray, rows: np.ndarray) -> np.ndarray:
    return value[rows]


def _tokens(rows: list[Generated]) -> list[tuple[int, ...]]:
    return [row.tokens for row in rows]


def test_greedy_decoding_with_a_cache_is_greedy_decoding_of_the_whole_prefix() -> None:
    cached = FakeCachedDecoder(1)
    found = asyncio.run(greedy(with_past(cached.first, cached.later, _take), STRIPS, SPEC))
    expected = asyncio.run(greedy(fake_full_decoder(1), STRIPS, SPEC))
    assert _tokens(found) == _tokens(expected)
    assert len({len(row.tokens) for row in expected}) > 1, "rows should end at different steps"
    assert cached.later_ids and all(ids.shape == (STRIPS, 1) for ids in cached.later_ids)


@pytest.mark.parametrize("beams", [2, 3, 5])
def test_beam_search_with_a_cache_reordered_by_the_beams_is_the_same_search(beams: int) -> None:
    spec = replace(SPEC, num_beams=beams)
    cached = FakeCachedDecoder(beams)
    found = asyncio.run(beam_search(with_past(cached.first, cached.later, _take), STRIPS, spec))
    expected = asyncio.run(generate(fake_full_decoder(beams), STRIPS, spec))
    assert _tokens(found) == _tokens(expected)
    assert [row.probs for row in found] == [pytest.approx(row.probs) for row in expected]


def test_beam_search_with_a_cache_that_is_not_reordered_goes_wrong() -> None:
    """The check above can fail: without the reorder the cached decoder reads other beams' tokens."""
    spec = replace(SPEC, num_beams=3)
    cached = FakeCachedDecoder(3)
    found = asyncio.run(beam_search(with_past(cached.first, cached.later, lambda _n, v, _r: v), STRIPS, spec))
    assert _tokens(found) != _tokens(asyncio.run(generate(fake_full_decoder(3), STRIPS, spec)))


def test_presents_become_the_next_calls_past() -> None:
    presents = {"logits": 0, "present.0.decoder.key": 1, "present.11.encoder.value": 2}
    assert past_of(presents) == {"past_key_values.0.decoder.key": 1, "past_key_values.11.encoder.value": 2}


def test_only_the_self_attention_entries_are_reordered_and_only_when_rows_move() -> None:
    cache = {
        "past_key_values.0.decoder.key": np.array([10, 11, 12, 13]),
        "past_key_values.0.encoder.key": np.array([0, 0, 1, 1]),
    }
    moved = reordered(cache, np.array([1, 1, 3, 2]), _take)
    assert moved["past_key_values.0.decoder.key"].tolist() == [11, 11, 13, 12]
    assert moved["past_key_values.0.encoder.key"] is cache["past_key_values.0.encoder.key"]

    def refuse(_name: str, _value: np.ndarray, _rows: np.ndarray) -> np.ndarray:
        raise AssertionError("nothing moved, nothing to take")

    assert reordered(cache, np.arange(4), refuse) == cache


def test_a_first_decoder_without_presents_is_a_clear_error() -> None:
    async def no_presents(ids: np.ndarray) -> tuple[np.ndarray, Mapping[str, np.ndarray]]:
        return np.zeros((len(ids), VOCAB), np.float32), {}

    decode = with_past(no_presents, FakeCachedDecoder(1).later, _take)
    with pytest.raises(ValueError, match="no present"):
        asyncio.run(greedy(decode, 2, SPEC))
