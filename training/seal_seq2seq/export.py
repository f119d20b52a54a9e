"""Export the trained model as optimum lays out a `VisionEncoderDecoderModel` exported with
past key/values, into the Triton repository: `seal_seq2seq_encoder/1/encoder_model.onnx`
(pixel_values -> last_hidden_state), `seal_seq2seq_decoder/1/decoder_model.onnx` (input_ids,
encoder_hidden_states -> logits and the `present.*` keys and values) with the tokenizer's
`vocab.json` beside it, and `seal_seq2seq_decoder_with_past/1/decoder_with_past_model.onnx`
(the last token and `past_key_values.*` -> logits and the new `present.*`: past.py); and check
ONNX Runtime against torch on the same inputs.

    .venv-train/bin/python training/seal_seq2seq/export.py --decoders-from-onnx

writes the two decoder graphs again without the training run: the trained decoder is rebuilt
from the committed `decoder_model.onnx`'s own weights (its initialisers; `decoder_from_onnx`),
checked to give that graph's logits, and exported.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
import torch
from onnx import numpy_helper

PROJECT_ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(PROJECT_ROOT / "triton_repo" / "shared"), str(Path(__file__).parent)]

from imgproc.text.seq2seq import VOCAB_FILE, Seq2SeqSpec  # noqa: E402
from model import DECODER_LAYERS, Decoder, Seq2Seq  # noqa: E402
from past import FirstStep, WithPast, past_names  # noqa: E402

OPSET = 17
ENCODER, DECODER, DECODER_WITH_PAST = (
    "seal_seq2seq_encoder",
    "seal_seq2seq_decoder",
    "seal_seq2seq_decoder_with_past",
)
ENCODER_FILE, DECODER_FILE, WITH_PAST_FILE = (
    "encoder_model.onnx",
    "decoder_model.onnx",
    "decoder_with_past_model.onnx",
)
TOLERANCE = 1e-4
MODELS = PROJECT_ROOT / "triton_repo" / "models"


def _export(
    module: torch.nn.Module,
    args: tuple[torch.Tensor, ...],
    path: Path,
    names: dict[str, dict[int, str]],
    outputs: int,
    fold: bool = True,
) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    module.eval()  # the exporter leaves a module (and its children) in the mode it found it in
    keys = list(names)
    torch.onnx.export(
        module,
        args,
        str(path),
        input_names=keys[: len(keys) - outputs],
        output_names=keys[len(keys) - outputs :],
        dynamic_axes=names,
        opset_version=OPSET,
        do_constant_folding=fold,  # folding transposes weights into nameless constants
        dynamo=False,  # the TorchScript exporter keeps our tensor names
    )
    onnx.checker.check_model(onnx.load(str(path)))


def _run(path: Path, feeds: dict[str, torch.Tensor]) -> list[np.ndarray]:
    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    return session.run(None, {k: v.numpy() for k, v in feeds.items()})


def _compare(name: str, got: np.ndarray, expected: np.ndarray) -> None:
    worst = float(np.abs(got - expected).max())
    if worst > TOLERANCE:
        raise RuntimeError(f"{name}: differs from torch by {worst}")


def _check(path: Path, feeds: dict[str, torch.Tensor], expected: torch.Tensor) -> None:
    _compare(path.name, _run(path, feeds)[0], expected.numpy())


@torch.no_grad()
def export_onnx(model: Seq2Seq, vocab: list[str], spec: Seq2SeqSpec, models: Path) -> None:
    """Write both graphs and the vocabulary under `models`; raises RuntimeError on a mismatch."""
    model.eval()
    pixels = torch.rand(2, 3, spec.height, spec.width) * 2 - 1
    states = model.encoder(pixels)
    encoder_path = models / ENCODER / "1" / ENCODER_FILE
    _export(
        model.encoder,
        (pixels,),
        encoder_path,
        {"pixel_values": {0: "batch"}, "last_hidden_state": {0: "batch"}},
        1,
    )
    _check(encoder_path, {"pixel_values": pixels}, states)
    export_decoders(model.decoder, spec, states, models)
    table = {token: index for index, token in enumerate(vocab)}
    (models / DECODER / "1" / VOCAB_FILE).write_text(
        json.dumps(table, ensure_ascii=False, indent=0), encoding="utf-8"
    )


def _axes(names: list[str], length: str) -> dict[str, dict[int, str]]:
    return {name: {0: "batch", 2: "encoder_sequence" if ".encoder." in name else length} for name in names}


@torch.no_grad()
def export_decoders(decoder: Decoder, spec: Seq2SeqSpec, states: torch.Tensor, models: Path) -> None:
    """`decoder_model.onnx` (with `present.*`) and `decoder_with_past_model.onnx` under `models`,
    each checked against the full decoder's logits; raises RuntimeError on a mismatch."""
    decoder.eval()
    ids = torch.tensor([[spec.decoder_start_token_id, 5, 9], [spec.decoder_start_token_id, 7, 2]])
    first_path = models / DECODER / "1" / DECODER_FILE
    past_path = models / DECODER_WITH_PAST / "1" / WITH_PAST_FILE
    presents, own = past_names("present", DECODER_LAYERS), past_names("present", DECODER_LAYERS, ("decoder",))
    pasts = past_names("past_key_values", DECODER_LAYERS)
    _export(
        FirstStep(decoder),
        (ids, states),
        first_path,
        {
            "input_ids": {0: "batch", 1: "sequence"},
            "encoder_hidden_states": {0: "batch", 1: "encoder_sequence"},
            "logits": {0: "batch", 1: "sequence"},
            **_axes(presents, "sequence"),
        },
        1 + len(presents),
        fold=False,  # every weight keeps its name: decoder_from_onnx reads them back
    )
    past = FirstStep(decoder)(ids, states)[1:]
    _export(
        WithPast(decoder),
        (ids[:, -1:], *past),
        past_path,
        {
            "input_ids": {0: "batch"},
            **_axes(pasts, "past_sequence"),
            "logits": {0: "batch"},
            **_axes(own, "past_sequence + 1"),
        },
        1 + len(own),
        fold=False,
    )
    _check_decoders(decoder, spec, states, first_path, past_path)


def _check_decoders(
    decoder: Decoder, spec: Seq2SeqSpec, states: torch.Tensor, first: Path, with_past: Path
) -> None:
    """Decode a few steps through the two graphs, feeding each step's present back as the past:
    every step's logits must be the full decoder's at that position."""
    ids = torch.tensor(
        [[spec.decoder_start_token_id, 5, 9, 11, 4], [spec.decoder_start_token_id, 7, 2, 0, 0]]
    )
    full = decoder(ids, states).numpy()
    logits, *present = _run(first, {"input_ids": ids[:, :1], "encoder_hidden_states": states})
    _compare(first.name, logits[:, -1], full[:, 0])
    names = past_names("past_key_values", DECODER_LAYERS)
    for step in range(1, ids.shape[1]):
        past = dict(zip(names, present, strict=True))
        logits, *own = _run(
            with_past,
            {"input_ids": ids[:, step : step + 1], **{k: torch.from_numpy(v) for k, v in past.items()}},
        )
        _compare(f"{with_past.name} step {step}", logits[:, -1], full[:, step])
        present = [own.pop(0) if ".decoder." in name else value for name, value in past.items()]


def _module_of(output: str) -> str:
    """`/layers.0/feed/feed.1/MatMul_output_0` -> `layers.0.feed.1`: the exporter's scope, in
    which a container's child is written again under its container's name."""
    parts: list[str] = []
    for scope in output.removeprefix("/").split("/")[:-1]:
        if parts and scope.startswith(parts[-1] + "."):
            parts[-1] = scope
        else:
            parts.append(scope)
    return ".".join(parts)


def decoder_from_onnx(path: Path) -> Decoder:
    """The trained `Decoder` with the weights of an exported `decoder_model.onnx`: named
    initialisers by name (`decoder.` dropped: FirstStep's), and in the first export, folded,
    each linear layer's weight from the MatMul whose output the exporter named after the
    layer (`/layers.0/cross/key/MatMul_output_0`), transposed back."""
    graph = onnx.load(str(path)).graph
    weights = {item.name: numpy_helper.to_array(item) for item in graph.initializer}
    state = {
        name.removeprefix("decoder."): torch.from_numpy(value.copy())
        for name, value in weights.items()
        if not name.startswith("onnx::")
    }
    for node in graph.node:
        if node.op_type == "MatMul" and node.input[1] in weights and node.input[1].startswith("onnx::"):
            state[f"{_module_of(node.output[0])}.weight"] = torch.from_numpy(weights[node.input[1]].T.copy())
    decoder = Decoder(len(state["embed.weight"]))
    decoder.load_state_dict(state)
    return decoder.eval()


@torch.no_grad()
def decoders_from_onnx(models: Path, spec: Seq2SeqSpec) -> None:
    """Rebuild the decoder from the committed graph, check it gives that graph's logits, and
    export both decoder graphs again; raises RuntimeError on a mismatch."""
    committed = models / DECODER / "1" / DECODER_FILE
    decoder = decoder_from_onnx(committed)
    states = torch.rand(2, spec.width // 4, decoder.embed.embedding_dim)
    ids = torch.tensor([[spec.decoder_start_token_id, 12, 40, 7, 99, 2]] * 2)
    _check(committed, {"input_ids": ids, "encoder_hidden_states": states}, decoder(ids, states))
    export_decoders(decoder, spec, states, models)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--decoders-from-onnx", action="store_true", help="re-export the decoders from the committed graph"
    )
    parser.add_argument("--models", type=Path, default=MODELS)
    args = parser.parse_args()
    if not args.decoders_from_onnx:
        parser.error("the full export runs at the end of train.py; here only --decoders-from-onnx")
    decoders_from_onnx(args.models, Seq2SeqSpec())


if __name__ == "__main__":
    main()
