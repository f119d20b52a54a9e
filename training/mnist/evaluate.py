"""Held-out accuracy of the exported model, measured the way Triton serves it.

Runs the held-out 2,000 digits (the last 2,000 of the MNIST test set, never trained on)
through `to_mnist` and the exported ONNX with onnxruntime; then does the same for a
photo-style JPEG of each digit (`evaluation.support.digits.photo_style`, decoded by the serving
`decode_gray`). Needs only the serving environment (no torch):

    .venv/bin/python training/mnist/evaluate.py [--model PATH] [--seed 0]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import onnxruntime as ort

PROJECT_ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(PROJECT_ROOT / "triton_repo" / "shared"), str(PROJECT_ROOT)]

from imgproc.imaging import decode_gray  # noqa: E402
from imgproc.mnist import to_mnist  # noqa: E402

from evaluation.support.digits import load_mnist, photo_style  # noqa: E402

MODEL_PATH = PROJECT_ROOT / "triton_repo" / "models" / "mnist_classifier" / "1" / "model.onnx"
INPUT_NAME = "PIXELS"
OUTPUT_NAME = "PROBABILITIES"
PHOTO_SEED = 0
BATCH = 500


def main() -> None:
    formatter = argparse.RawDescriptionHelpFormatter
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=formatter)
    parser.add_argument("--model", type=Path, default=MODEL_PATH)
    parser.add_argument("--seed", type=int, default=PHOTO_SEED, help="seed of the photo-style renders")
    args = parser.parse_args()
    session = ort.InferenceSession(str(args.model), providers=["CPUExecutionProvider"])
    digits, labels = load_mnist("heldout")
    rng = np.random.default_rng(args.seed)
    variants = {
        "clean": lambda: [to_mnist(d) for d in digits],
        "photo": lambda: [to_mnist(decode_gray(photo_style(d, rng))) for d in digits],
    }
    for name, make in variants.items():
        started = time.perf_counter()
        predicted = _predict(session, np.stack(make()))
        wrong = int((predicted != labels).sum())
        accuracy = 1.0 - wrong / len(labels)
        seconds = time.perf_counter() - started
        print(f"held-out {name}: accuracy {accuracy:.4f} ({wrong} wrong of {len(labels)}) in {seconds:.1f} s")  # noqa: T201


def _predict(session: ort.InferenceSession, pixels: np.ndarray) -> np.ndarray:
    batches = [pixels[i : i + BATCH, None].astype(np.float32) for i in range(0, len(pixels), BATCH)]
    outputs = [session.run([OUTPUT_NAME], {INPUT_NAME: batch})[0] for batch in batches]
    return np.concatenate(outputs).argmax(axis=1)


if __name__ == "__main__":
    main()
