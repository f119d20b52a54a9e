"""The PP-OCRv4 detector and recogniser as provisioned (folded: triton_repo/provision/onnx_fold.py)
beside the original files, on the tensors of `bench ocr`'s pages, in this process on one ONNX
Runtime thread.

    .venv/bin/python -m bench.ocr_models [--rounds 3]

The originals are read from the pinned rapidocr-onnxruntime wheel (the provisioning cache).
Each round runs every model's inputs once per variant, the variants alternating, so drift of
the shared machine falls on both; the table gives ms per page (the fastest round: the least
disturbed) and the largest difference between the two variants' outputs.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Sequence
from dataclasses import dataclass

import cv2
import numpy as np
import onnxruntime as ort
from imgproc.arrays import Floats, as_pixels
from imgproc.imaging import three_channels
from imgproc.text.db import db_postprocess
from imgproc.text.detection import det_preprocess, prepare_image
from imgproc.text.geometry import crop_quad, sort_reading_order
from imgproc.text.recognition import apply_direction, aspect_batches, cls_preprocess, rec_preprocess
from provision import RAPIDOCR, fetch_distribution, open_archive

from bench.ocr import pages
from gateway.local_triton import PROJECT_ROOT

MODELS = PROJECT_ROOT / "triton_repo" / "models"
CACHE = PROJECT_ROOT / ".cache" / "wheels"
PAGES = 4


def _session(model: bytes) -> ort.InferenceSession:
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1  # as the served models (config.pbtxt)
    options.log_severity_level = 3
    return ort.InferenceSession(model, options, providers=["CPUExecutionProvider"])


def _provisioned(name: str) -> bytes:
    return (MODELS / name / "1" / "model.onnx").read_bytes()


def _originals() -> dict[str, bytes]:
    with open_archive(fetch_distribution(RAPIDOCR, CACHE)) as archive:
        return {a.model_name: archive.open(a.member).read() for a in RAPIDOCR.assets if a.folded_sha256}


def inputs(images: Sequence[bytes]) -> dict[str, list[Floats]]:
    """The detector's input per page and the recogniser's per width group, as /v1/ocr makes them."""
    detector, direction = _session(_provisioned("text_detection")), _session(_provisioned("text_direction"))
    found: dict[str, list[Floats]] = {"text_detection": [], "text_recognition": []}
    for data in images:
        image = as_pixels(cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR))
        working, _ = prepare_image(three_channels(image))
        tensor = det_preprocess(working)
        found["text_detection"].append(tensor)
        boxes, _ = db_postprocess(detector.run(None, {"x": tensor})[0], working.shape[:2])
        crops = [crop_quad(working, box) for box in boxes[sort_reading_order(boxes)]]
        crops = apply_direction(crops, direction.run(None, {"x": cls_preprocess(crops)})[0])
        for group in aspect_batches(crops):
            found["text_recognition"].append(rec_preprocess([crops[i] for i in group]))
    return found


@dataclass(frozen=True)
class Row:
    model: str
    original_ms: float
    folded_ms: float
    max_difference: float


def _seconds(session: ort.InferenceSession, tensors: Sequence[Floats]) -> float:
    started = time.perf_counter()
    for tensor in tensors:
        session.run(None, {"x": tensor})
    return time.perf_counter() - started


def compare(name: str, original: bytes, tensors: Sequence[Floats], rounds: int, count: int) -> Row:
    before, after = _session(original), _session(_provisioned(name))
    times: dict[str, list[float]] = {"original": [], "folded": []}
    for round_ in range(rounds):
        order = [("original", before), ("folded", after)]
        for label, session in order if round_ % 2 == 0 else order[::-1]:
            times[label].append(_seconds(session, tensors))
    difference = max(
        float(np.abs(before.run(None, {"x": t})[0] - after.run(None, {"x": t})[0]).max()) for t in tensors
    )
    per_page = {label: 1000 * min(values) / count for label, values in times.items()}
    return Row(name, per_page["original"], per_page["folded"], difference)


def table(rows: Sequence[Row]) -> str:
    lines = [
        "| model | original ms/page | folded ms/page | folded / original | max abs difference |",
        "|---|---|---|---|---|",
    ]
    for row in rows:
        times = f"{row.original_ms:.0f} | {row.folded_ms:.0f} | {row.folded_ms / row.original_ms:.2f}"
        lines.append(f"| {row.model} | {times} | {row.max_difference:.1e} |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.ocr_models")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    images = pages(PAGES)
    tensors = inputs(images)
    originals = _originals()
    rows = [compare(name, originals[name], tensors[name], args.rounds, len(images)) for name in tensors]
    print(table(rows))  # noqa: T201


if __name__ == "__main__":
    main()
