"""EVALUATION HARNESS: the encoder-decoder recogniser (`seq2seq_recognition`) in-process.

The same functions the BLS model runs (`imgproc.text.seq2seq`: input, greedy loop, text;
`imgproc.text.past` where the config names a `decoder_with_past_model`), with the decoders
called by ONNX Runtime instead of BLS, over the files and parameters the served models are
configured with (their config.pbtxt).
"""

from __future__ import annotations

import re
import shutil
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from imgproc.arrays import AnyArray, Floats, Ints, Pixels
from imgproc.imaging import three_channels
from imgproc.text import Decoded
from imgproc.text.past import with_past
from imgproc.text.seq2seq import (
    VOCAB_FILE,
    Decode,
    Seq2SeqSpec,
    Vocabulary,
    as_decoded,
    fit_strip,
    generate,
    pixel_values,
    row_score,
    text_of,
)

from evaluation.ocr import onnx_session

SEQ2SEQ = "seq2seq_recognition"
PARAMETER = re.compile(r'parameters\s*\{\s*key:\s*"([^"]+)"\s*value:\s*\{\s*string_value:\s*"([^"]*)"')
FILENAME = re.compile(r'^default_model_filename:\s*"([^"]+)"', re.MULTILINE)


def config_parameters(model_dir: Path) -> dict[str, str]:
    """The `parameters` of a model's config.pbtxt (commented-out lines left out)."""
    lines = [
        line
        for line in (model_dir / "config.pbtxt").read_text().splitlines()
        if not line.lstrip().startswith("#")
    ]
    return dict(PARAMETER.findall("\n".join(lines)))


def with_parameters(config: str, settings: Mapping[str, str]) -> str:
    """A config.pbtxt text with the `parameters` entries in `settings` set or replaced (whole
    lines only: a commented example of the same entry stays a comment)."""
    for key, value in settings.items():
        entry = rf'parameters {{ key: "{re.escape(key)}" value: {{ string_value: "[^"]*" }} }}\n'
        config = re.sub(rf"(?m)^{entry}", "", config)
        config += f'parameters {{ key: "{key}" value: {{ string_value: "{value}" }} }}\n'
    return config


def variant(repository: Path, source: Path, name: str, settings: Mapping[str, str]) -> None:
    """The model folder `source` copied into `repository` as model `name`, its config's
    `parameters` in `settings` set or replaced (a BLS model over other models, say)."""
    shutil.copytree(source, repository / name)
    config = (repository / name / "config.pbtxt").read_text()
    config = config.replace(f'name: "{source.name}"', f'name: "{name}"')
    (repository / name / "config.pbtxt").write_text(with_parameters(config, settings))


def _graph(model_dir: Path) -> Path:
    found = FILENAME.search((model_dir / "config.pbtxt").read_text())
    return model_dir / "1" / (found[1] if found else "model.onnx")


class OnnxSeq2Seq:
    """`seq2seq_recognition` over ONNX Runtime sessions of its encoder and decoder."""

    def __init__(self, model_repository: Path, threads: int = 1) -> None:
        parameters = config_parameters(model_repository / SEQ2SEQ)
        self.spec = Seq2SeqSpec.from_parameters(parameters)
        encoder, decoder = (model_repository / parameters[key] for key in ("encoder_model", "decoder_model"))
        self.encoder, self.decoder = (
            onnx_session(_graph(encoder), threads),
            onnx_session(_graph(decoder), threads),
        )
        self.vocabulary = Vocabulary.load(decoder / "1" / VOCAB_FILE, self.spec)
        past = parameters.get("decoder_with_past_model")
        self.with_past = onnx_session(_graph(model_repository / past), threads) if past else None

    async def recognise(self, images: Sequence[Pixels]) -> list[Decoded]:
        """Each line image read, as the BLS model reads a batch."""
        if not images:
            return []
        fitted = np.stack([fit_strip(three_channels(image), self.spec) for image in images])
        states = self.encoder.run(None, {"pixel_values": pixel_values(fitted, self.spec)})[0]
        states = np.repeat(states, max(1, self.spec.num_beams), axis=0)  # each beam its rows

        rows = await generate(self._decode(states), len(images), self.spec)
        return [as_decoded(text_of(self.vocabulary, row), row_score(row)) for row in rows]

    def _decode(self, states: Floats) -> Decode:
        if self.with_past is not None:
            return self._decode_with_past(states, self.with_past)

        async def decode(ids: Ints, _parents: Ints) -> Floats:
            logits = self.decoder.run(["logits"], {"input_ids": ids, "encoder_hidden_states": states})[0]
            return np.asarray(logits[:, -1])

        return decode

    def _decode_with_past(self, states: Floats, later_session: Any) -> Decode:
        async def first(ids: Ints) -> tuple[Floats, dict[str, AnyArray]]:
            return _logits_and_rest(self.decoder, {"input_ids": ids, "encoder_hidden_states": states})

        async def later(ids: Ints, past: Mapping[str, AnyArray]) -> tuple[Floats, dict[str, AnyArray]]:
            return _logits_and_rest(later_session, {"input_ids": ids, **past})

        return with_past(first, later, lambda _name, value, rows: value[rows])


def _logits_and_rest(session: Any, feeds: dict[str, AnyArray]) -> tuple[Floats, dict[str, AnyArray]]:
    """One decoder call: the last position's logits, and its other outputs by name."""
    names = [output.name for output in session.get_outputs()]
    outputs = dict(zip(names, session.run(None, feeds), strict=True))
    return np.asarray(outputs.pop("logits")[:, -1]), outputs
