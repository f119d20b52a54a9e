"""Export the trained model as optimum lays out a `VisionEncoderDecoderModel`, into the
Triton repository: `seal_seq2seq_encoder/1/encoder_model.onnx` (pixel_values ->
last_hidden_state), `seal_seq2seq_decoder/1/decoder_model.onnx` (input_ids,
encoder_hidden_states -> logits) with the tokenizer's `vocab.json` beside it, and check
ONNX Runtime against torch on the same inputs."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
import torch
from imgproc.text.seq2seq import VOCAB_FILE, Seq2SeqSpec
from model import Seq2Seq

OPSET = 17
ENCODER, DECODER = "seal_seq2seq_encoder", "seal_seq2seq_decoder"
ENCODER_FILE, DECODER_FILE = "encoder_model.onnx", "decoder_model.onnx"
TOLERANCE = 1e-4


def _export(
    module: torch.nn.Module,
    args: tuple[torch.Tensor, ...],
    path: Path,
    names: dict[str, dict[int, str]],
    outputs: int,
) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    keys = list(names)
    torch.onnx.export(
        module,
        args,
        str(path),
        input_names=keys[: len(keys) - outputs],
        output_names=keys[len(keys) - outputs :],
        dynamic_axes=names,
        opset_version=OPSET,
        do_constant_folding=True,
        dynamo=False,  # the TorchScript exporter keeps our tensor names
    )
    onnx.checker.check_model(onnx.load(str(path)))


def _check(path: Path, feeds: dict[str, torch.Tensor], expected: torch.Tensor) -> None:
    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    got = session.run(None, {k: v.numpy() for k, v in feeds.items()})[0]
    worst = float(np.abs(got - expected.numpy()).max())
    if worst > TOLERANCE:
        raise RuntimeError(f"{path.name}: onnxruntime differs from torch by {worst}")


@torch.no_grad()
def export_onnx(model: Seq2Seq, vocab: list[str], spec: Seq2SeqSpec, models: Path) -> None:
    """Write both graphs and the vocabulary under `models`; raises RuntimeError on a mismatch."""
    model.eval()
    pixels = torch.rand(2, 3, spec.height, spec.width) * 2 - 1
    states = model.encoder(pixels)
    ids = torch.tensor([[spec.decoder_start_token_id, 5, 9], [spec.decoder_start_token_id, 7, 2]])
    encoder_path = models / ENCODER / "1" / ENCODER_FILE
    decoder_path = models / DECODER / "1" / DECODER_FILE
    _export(
        model.encoder,
        (pixels,),
        encoder_path,
        {"pixel_values": {0: "batch"}, "last_hidden_state": {0: "batch"}},
        1,
    )
    _export(
        model.decoder,
        (ids, states),
        decoder_path,
        {
            "input_ids": {0: "batch", 1: "sequence"},
            "encoder_hidden_states": {0: "batch", 1: "encoder_sequence"},
            "logits": {0: "batch", 1: "sequence"},
        },
        1,
    )
    _check(encoder_path, {"pixel_values": pixels}, states)
    longer = torch.cat([ids, ids[:, 1:]], 1)
    _check(
        decoder_path, {"input_ids": longer, "encoder_hidden_states": states}, model.decoder(longer, states)
    )
    table = {token: index for index, token in enumerate(vocab)}
    (decoder_path.parent / VOCAB_FILE).write_text(
        json.dumps(table, ensure_ascii=False, indent=0), encoding="utf-8"
    )
