"""Decoding with the decoder's past key/values kept between calls, in optimum's layout.

optimum exports a `VisionEncoderDecoderModel` with past as two decoder graphs:
`decoder_model.onnx` (first call: `input_ids` [N, T], `encoder_hidden_states` -> `logits`
and, per layer i, `present.{i}.decoder.key|value` [N, heads, T, head size], the
self-attention's, and `present.{i}.encoder.key|value` [N, heads, S, head size], the
cross-attention's) and `decoder_with_past_model.onnx` (later calls: the last token
`input_ids` [N, 1] and `past_key_values.{i}.*`, the previous `present.{i}.*` renamed ->
`logits` [N, 1, V] and the `present.{i}.decoder.*` one position longer; the encoder ones
never change, so they are not output again and are carried over).

`with_past` turns the two calls into the `Decode` that `imgproc.text.seq2seq`'s loops call
with (input_ids, parents): the first call gets the whole (one-token) prefix, every later one
the last token and the cache, its rows first put in the order of `parents` (beam search
reorders its hypotheses every step; greedy decoding never does, and then nothing moves). Only
the self-attention entries are reordered: a beam's parent is always one of its own strip's
beams, whose cross-attention entries are the same, so those stay as they are.

The cache entries are of any type `T` (`pb_utils.Tensor`s in Triton, so that they stay where
the decoder put them; NumPy arrays in tests): the caller gives the calls and `take`, the row
reorder for its type.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import TypeVar

import numpy as np

from imgproc.arrays import Floats, Ints

from .seq2seq import Decode

T = TypeVar("T")
PRESENT, PAST = "present.", "past_key_values."
SELF_ATTENTION = ".decoder."  # present.{i}.decoder.key: the part of the cache that grows

# ids -> (logits of the last position float32[R, V], the `present.*` entries by name)
FirstCall = Callable[[Ints], Awaitable[tuple[Floats, Mapping[str, T]]]]
# (last ids int64[R, 1], the `past_key_values.*` entries) -> the same
PastCall = Callable[[Ints, Mapping[str, T]], Awaitable[tuple[Floats, Mapping[str, T]]]]
# (entry, rows int64[R]) -> the entry's rows in that order
Take = Callable[[str, T, Ints], T]


def past_of(presents: Mapping[str, T]) -> dict[str, T]:
    """A call's `present.*` outputs renamed to the `past_key_values.*` inputs of the next."""
    return {
        PAST + name.removeprefix(PRESENT): value
        for name, value in presents.items()
        if name.startswith(PRESENT)
    }


def reordered(cache: Mapping[str, T], parents: Ints, take: Take[T]) -> dict[str, T]:
    """The cache with its self-attention entries' rows in the order of `parents` (untouched
    when every row continues itself)."""
    if np.array_equal(parents, np.arange(len(parents))):
        return dict(cache)
    return {
        name: take(name, value, parents) if SELF_ATTENTION in name else value for name, value in cache.items()
    }


def with_past(first: FirstCall[T], later: PastCall[T], take: Take[T]) -> Decode:
    """The `Decode` of a decoder whose past key/values stay in `cache` between calls; it raises
    ValueError when the first call answers no `present.*` (a decoder exported without past)."""
    cache: dict[str, T] = {}

    async def decode(ids: Ints, parents: Ints) -> Floats:
        nonlocal cache
        if not cache:
            logits, presents = await first(ids)
            if not past_of(presents):
                raise ValueError("the first decoder call gave no present.* outputs: not a with-past export")
        else:
            cache = reordered(cache, parents, take)
            logits, presents = await later(np.ascontiguousarray(ids[:, -1:]), cache)
        cache = {**cache, **past_of(presents)}
        return logits

    return decode
