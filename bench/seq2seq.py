"""What the encoder-decoder recogniser costs beside a CTC recogniser, per seal rim, with and
without the decoder's past key/values.

    .venv/bin/python -m bench.seq2seq [--rounds 5] [--beams 3]

Reads the same rim strips (both strips of each seal, as the seal pipeline sends a rim) with
`text_recognition_v6` (PP-OCRv6, the first recogniser) and with `seq2seq_recognition` as
configured (greedy, the past kept between steps: `decoder_with_past_model`) and again without
the past (every step re-reads the whole prefix), alternating so the ratios hold on a busy
machine, and prints the median milliseconds per rim of each: in-process (ONNX Runtime, one
thread each), then through a real local Triton serving just those models (one gRPC call per
rim; for seq2seq that is the BLS model's encoder call and one decoder call per token). With
`--beams N` the two seq2seq variants run a beam search of N instead. The strips are cut by
the seal pipeline from generated pages (seed 3000, the evaluation's).
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from collections.abc import Callable, Coroutine
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import tritonclient.grpc as grpcclient
from imgproc.arrays import AnyArray, Pixels
from imgproc.imaging import decode_rgb, three_channels
from imgproc.seal.config import DEFAULT_CONFIG
from imgproc.seal.pipeline import find_page_seals, seal_strips
from imgproc.text import rec_preprocess
from imgproc.text.seq2seq import padded_batch

from evaluation.seal.dataset import generated_pages
from evaluation.seal.inprocess import OnnxSealModels
from evaluation.seal.seq2seq import SEQ2SEQ, OnnxSeq2Seq, variant
from gateway.local_triton import TRITON_REPO, LocalTriton

CTC = "text_recognition_v6"
NO_PAST = f"{SEQ2SEQ}_without_past"  # the same BLS model, its decoder_with_past_model unset
MODELS = TRITON_REPO / "models"
SERVED = (CTC, "seal_seq2seq_encoder", "seal_seq2seq_decoder", "seal_seq2seq_decoder_with_past")
Timed = Callable[[list[Pixels]], float]


def rims(models: OnnxSealModels, pages: int) -> list[list[Pixels]]:
    """Each seal's rim strips, from generated pages."""
    found = []
    for page in generated_pages(3000, pages, 0):
        for crop in find_page_seals(decode_rgb(page.image), DEFAULT_CONFIG):
            strips = asyncio.run(seal_strips(crop, models, DEFAULT_CONFIG))
            if strips.rim:
                found.append([strip.image for strip in strips.rim])
    return found


def _ms(run: Callable[[], Coroutine[Any, Any, object]]) -> float:
    started = time.perf_counter()
    asyncio.run(run())
    return (time.perf_counter() - started) * 1000.0


def in_process(models: OnnxSealModels, beams: int) -> dict[str, Timed]:
    """Each reader as a timed call on a rim: PP-OCRv6, seq2seq with and without the past."""
    past = OnnxSeq2Seq(MODELS)
    past.spec = replace(past.spec, num_beams=beams)
    no_past = OnnxSeq2Seq(MODELS)
    no_past.spec, no_past.with_past = past.spec, None
    return {
        CTC: lambda rim: _ms(lambda: models.recognise(CTC, rim, 0)),
        SEQ2SEQ: lambda rim: _ms(lambda: past.recognise(rim)),
        NO_PAST: lambda rim: _ms(lambda: no_past.recognise(rim)),
    }


def _inputs(model: str, rim: list[Pixels]) -> list[grpcclient.InferInput]:
    tensors: dict[str, AnyArray]
    if model == CTC:
        tensors = {"x": rec_preprocess([three_channels(strip) for strip in rim])}
    else:
        tensors = dict(
            zip(("IMAGES", "WIDTHS"), padded_batch([three_channels(strip) for strip in rim]), strict=True)
        )
    inputs = []
    for name, value in tensors.items():
        kind = {np.dtype(np.float32): "FP32", np.dtype(np.uint8): "UINT8", np.dtype(np.int32): "INT32"}[
            value.dtype
        ]
        tensor = grpcclient.InferInput(name, list(value.shape), kind)
        tensor.set_data_from_numpy(value)
        inputs.append(tensor)
    return inputs


def _triton_ms(client: grpcclient.InferenceServerClient, model: str, rim: list[Pixels]) -> float:
    inputs = _inputs(model, rim)
    started = time.perf_counter()
    client.infer(model, inputs)
    return (time.perf_counter() - started) * 1000.0


def _repository(target: Path, beams: int) -> Path:
    """The served models, and the BLS model as configured and without its past."""
    for name in SERVED:
        variant(target, MODELS / name, name, {})
    variant(target, MODELS / SEQ2SEQ, SEQ2SEQ, {"num_beams": str(beams)})
    variant(target, MODELS / SEQ2SEQ, NO_PAST, {"num_beams": str(beams), "decoder_with_past_model": ""})
    return target


def _measure(timed: dict[str, Timed], strips: list[list[Pixels]], rounds: int) -> dict[str, list[float]]:
    times: dict[str, list[float]] = {name: [] for name in timed}
    for _ in range(rounds):
        for rim in strips:
            for name, run in timed.items():
                times[name].append(run(rim))
    return times


def _print(title: str, times: dict[str, list[float]], rims: int, rounds: int) -> None:
    ctc, past = statistics.median(times[CTC]), statistics.median(times[SEQ2SEQ])
    print(f"{title}: {rims} rims x {rounds} rounds, median ms per rim:")  # noqa: T201
    for name, values in times.items():
        median = statistics.median(values)
        print(f"| {name} | {median:.1f} | {median / ctc:.2f}x {CTC} | {median / past:.2f}x with past |")  # noqa: T201


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, default=12)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--beams", type=int, default=1, help="1: greedy decoding")
    args = parser.parse_args()
    models = OnnxSealModels()
    strips = rims(models, args.pages)
    _print(
        "in-process", _measure(in_process(models, args.beams), strips, args.rounds), len(strips), args.rounds
    )
    with (
        tempfile.TemporaryDirectory() as folder,
        LocalTriton(model_repository=_repository(Path(folder), args.beams)) as triton,
    ):
        client = grpcclient.InferenceServerClient(triton.grpc_url)
        timed = {name: _triton_timer(client, name) for name in (CTC, SEQ2SEQ, NO_PAST)}
        _print("through Triton", _measure(timed, strips, args.rounds), len(strips), args.rounds)


def _triton_timer(client: grpcclient.InferenceServerClient, model: str) -> Timed:
    return lambda rim: _triton_ms(client, model, rim)


if __name__ == "__main__":
    main()
