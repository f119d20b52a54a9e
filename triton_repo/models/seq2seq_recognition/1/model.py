"""seq2seq_recognition (BLS): strips -> texts, by an ONNX encoder once and an ONNX decoder per token.

A thin adapter over `imgproc.text.seq2seq` (input, greedy loop or beam search, tokens to
text). With `num_beams` above 1 the encoder reads each strip once per beam, so that every
hypothesis has its own rows of states without them leaving the device. The
encoder's `last_hidden_state` stays a `pb_utils.Tensor` where the encoder left it (on the GPU
when it runs there) and goes into every decoder call by DLPack; only the decoder's logits come
to the CPU, where the next token is chosen. The requests of a batch decode concurrently
(`async_exec`), each in its own loop, so one that fails (its decoder call answers an error)
fails only itself.

With a `decoder_with_past_model` parameter the decoder's past key/values are kept between
steps (`imgproc.text.past`, optimum's layout): `decoder_model` runs once, on the start token,
giving the logits and the `present.*` keys and values; every later step sends only the last
token and the past to `decoder_with_past_model`. Those calls ask for their outputs on the
CPU (the logits are needed there, and one request has one preferred memory), so the past
passes from call to call as CPU tensors, where a beam search reorders its rows with NumPy; on
a GPU deployment that is a copy to the host and back per step (see the README).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import triton_python_backend_utils as pb_utils
from imgproc.arrays import AnyArray
from imgproc.text.past import with_past
from imgproc.text.seq2seq import (
    VOCAB_FILE,
    Decode,
    Generated,
    Seq2SeqSpec,
    Vocabulary,
    fit_strip,
    generate,
    pixel_values,
    row_score,
    text_of,
    unpadded,
)
from pymodel import (
    AsyncPerRequestModel,
    call_model_all,
    call_model_tensor,
    input_array,
    model_config,
    optional_input,
    parameter,
    parameters,
    response,
    strings,
)

ENCODER_INPUT, ENCODER_OUTPUT = "pixel_values", "last_hidden_state"
DECODER_IDS, DECODER_STATES, DECODER_OUTPUT = "input_ids", "encoder_hidden_states", "logits"


class TritonPythonModel(AsyncPerRequestModel):
    """Encoder-decoder recognition over an encoder and one or two decoder models (without and
    with past), one loop per request."""

    def initialize(self, args: dict[str, str]) -> None:
        config = model_config(args)
        self._spec = Seq2SeqSpec.from_parameters(parameters(config))
        self._encoder, self._decoder = parameter(config, "encoder_model"), parameter(config, "decoder_model")
        self._with_past = parameters(config).get("decoder_with_past_model") or None
        decoder_version = Path(args["model_repository"]).parent / self._decoder / "1"
        self._vocabulary = Vocabulary.load(decoder_version / VOCAB_FILE, self._spec)

    async def respond(self, request: Any) -> Any:
        rows = unpadded(input_array(request, "IMAGES"), optional_input(request, "WIDTHS"))
        limit = optional_input(request, "MAX_LENGTH")
        live = [i for i, row in enumerate(rows) if row.size]  # a row of width 0 has nothing to read
        generated = await self._generate(
            [rows[i] for i in live], None if limit is None else int(limit.ravel()[0])
        )
        texts, scores = [""] * len(rows), [0.0] * len(rows)
        for i, row in zip(live, generated, strict=True):
            texts[i], scores[i] = text_of(self._vocabulary, row), row_score(row)
        return response(TEXTS=strings(texts), SCORES=np.array(scores, np.float32))

    async def _generate(self, rows: list[AnyArray], max_length: int | None) -> list[Generated]:
        if not rows:
            return []
        pixels = pixel_values(np.stack([fit_strip(row, self._spec) for row in rows]), self._spec)
        if self._spec.num_beams > 1:  # each beam its own copy of the strip's states, where they are
            pixels = np.repeat(pixels, self._spec.num_beams, axis=0)
        states = await call_model_tensor(
            self._encoder, [pb_utils.Tensor(ENCODER_INPUT, pixels)], ENCODER_OUTPUT
        )
        decode = self._decode_with_past(states, self._with_past) if self._with_past else self._decode(states)
        return await generate(decode, len(rows), self._spec, max_length)

    def _decode(self, states: Any) -> Decode:
        """Every step: the whole prefix and the encoder's states -> the last position's logits."""

        async def decode(ids: AnyArray, _parents: AnyArray) -> AnyArray:
            inputs = [pb_utils.Tensor(DECODER_IDS, ids), _passed(DECODER_STATES, states)]
            logits = await call_model_tensor(self._decoder, inputs, DECODER_OUTPUT, on_cpu=True)
            return np.asarray(logits.as_numpy()[:, -1])

        return decode

    def _decode_with_past(self, states: Any, with_past_model: str) -> Decode:
        """The first step through `decoder_model`, the others through `decoder_with_past_model`
        with the last token and the past key/values of the step before."""

        async def first(ids: AnyArray) -> tuple[AnyArray, dict[str, Any]]:
            inputs = [pb_utils.Tensor(DECODER_IDS, ids), _passed(DECODER_STATES, states)]
            return _logits_and_rest(await call_model_all(self._decoder, inputs, on_cpu=True))

        async def later(ids: AnyArray, past: Mapping[str, Any]) -> tuple[AnyArray, dict[str, Any]]:
            inputs = [pb_utils.Tensor(DECODER_IDS, ids), *(_passed(n, t) for n, t in past.items())]
            return _logits_and_rest(await call_model_all(with_past_model, inputs, on_cpu=True))

        return with_past(first, later, _take_rows)


def _passed(name: str, tensor: Any) -> Any:
    """Another model's output as this call's input `name`, by DLPack: no copy, where it is."""
    return pb_utils.Tensor.from_dlpack(name, tensor.to_dlpack())


def _logits_and_rest(outputs: dict[str, Any]) -> tuple[AnyArray, dict[str, Any]]:
    logits = outputs.pop(DECODER_OUTPUT)
    return np.asarray(logits.as_numpy()[:, -1]), outputs


def _take_rows(name: str, tensor: Any, rows: AnyArray) -> Any:
    """A CPU cache entry with its rows in the order of `rows` (the beams' parents)."""
    return pb_utils.Tensor(name, np.ascontiguousarray(tensor.as_numpy()[rows]))
