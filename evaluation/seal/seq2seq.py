"""EVALUATION HARNESS: the encoder-decoder recogniser (`seq2seq_recognition`) in-process.

The same functions the BLS model runs (`imgproc.text.seq2seq`: input, greedy loop, text), with
the decoder called by ONNX Runtime instead of BLS, over the files and parameters the served
models are configured with (their config.pbtxt).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

import numpy as np
from imgproc.imaging import three_channels
from imgproc.text import Decoded
from imgproc.text.seq2seq import (
    VOCAB_FILE,
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

    async def recognise(self, images: Sequence[np.ndarray]) -> list[Decoded]:
        """Each line image read, as the BLS model reads a batch."""
        if not images:
            return []
        fitted = np.stack([fit_strip(three_channels(image), self.spec) for image in images])
        states = self.encoder.run(None, {"pixel_values": pixel_values(fitted, self.spec)})[0]
        states = np.repeat(states, max(1, self.spec.num_beams), axis=0)  # each beam its rows

        async def decode(ids: np.ndarray, _parents: np.ndarray) -> np.ndarray:
            logits = self.decoder.run(["logits"], {"input_ids": ids, "encoder_hidden_states": states})[0]
            return np.asarray(logits[:, -1])

        rows = await generate(decode, len(images), self.spec)
        return [as_decoded(text_of(self.vocabulary, row), row_score(row)) for row in rows]
