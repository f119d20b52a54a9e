"""What the encoder-decoder recogniser costs beside a CTC recogniser, per seal rim.

    .venv/bin/python -m bench.seq2seq [--rounds 5]

Reads the same rim strips (both strips of each seal, as the seal pipeline sends a rim) with
`text_recognition_v6` (PP-OCRv6, the first recogniser) and with `seq2seq_recognition`
(greedy), alternating so the ratio holds on a busy machine, and prints the median
milliseconds per rim of each: in-process (ONNX Runtime, one thread each), then through a
real local Triton serving just those models (one gRPC call per rim; for seq2seq that is the
BLS model's encoder call and one decoder call per token). The strips are cut by the seal
pipeline from generated pages (seed 3000, the evaluation's).
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time

import numpy as np
import tritonclient.grpc as grpcclient
from imgproc.imaging import decode_rgb, three_channels
from imgproc.seal.config import DEFAULT_CONFIG
from imgproc.seal.pipeline import find_page_seals, seal_strips
from imgproc.text import rec_preprocess
from imgproc.text.seq2seq import padded_batch

from evaluation.seal.dataset import generated_pages
from evaluation.seal.inprocess import OnnxSealModels
from evaluation.seal.seq2seq import SEQ2SEQ
from gateway.local_triton import LocalTriton, only_models

CTC = "text_recognition_v6"


def rims(models: OnnxSealModels, pages: int) -> list[list[np.ndarray]]:
    """Each seal's rim strips, from generated pages."""
    found = []
    for page in generated_pages(3000, pages, 0):
        for crop in find_page_seals(decode_rgb(page.image), DEFAULT_CONFIG):
            strips = asyncio.run(seal_strips(crop, models, DEFAULT_CONFIG))
            if strips.rim:
                found.append([strip.image for strip in strips.rim])
    return found


def _ms(models: OnnxSealModels, model: str, rim: list[np.ndarray]) -> float:
    started = time.perf_counter()
    asyncio.run(models.recognise(model, rim, 0))
    return (time.perf_counter() - started) * 1000.0


def _inputs(model: str, rim: list[np.ndarray]) -> list[grpcclient.InferInput]:
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


def _triton_ms(client: grpcclient.InferenceServerClient, model: str, rim: list[np.ndarray]) -> float:
    inputs = _inputs(model, rim)
    started = time.perf_counter()
    client.infer(model, inputs)
    return (time.perf_counter() - started) * 1000.0


def _print(title: str, times: dict[str, list[float]], rims: int, rounds: int) -> None:
    ctc, seq = statistics.median(times[CTC]), statistics.median(times[SEQ2SEQ])
    print(f"{title}: {rims} rims x {rounds} rounds, median ms per rim:")  # noqa: T201
    print(f"| {CTC} | {ctc:.1f} |\n| {SEQ2SEQ} | {seq:.1f} |\n| ratio | {seq / ctc:.2f}x |")  # noqa: T201


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, default=12)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    models = OnnxSealModels()
    strips = rims(models, args.pages)
    times: dict[str, list[float]] = {CTC: [], SEQ2SEQ: []}
    for _ in range(args.rounds):
        for rim in strips:
            for model in times:
                times[model].append(_ms(models, model, rim))
    _print("in-process", times, len(strips), args.rounds)
    served = (CTC, SEQ2SEQ, "seal_seq2seq_encoder", "seal_seq2seq_decoder")
    with LocalTriton(extra_args=only_models(served)) as triton:
        client = grpcclient.InferenceServerClient(triton.grpc_url)
        times = {CTC: [], SEQ2SEQ: []}
        for _ in range(args.rounds):
            for rim in strips:
                for model in times:
                    times[model].append(_triton_ms(client, model, rim))
    _print("through Triton", times, len(strips), args.rounds)


if __name__ == "__main__":
    main()
