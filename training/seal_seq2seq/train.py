"""Train the seal rim encoder-decoder on generated rim strips, measure it, export it to ONNX.

    make train-seq2seq        # = the three steps below
    .venv/bin/python -m training.seal_seq2seq.strips --seed 11 --pages 900 --out .cache/seq2seq/train.npz
    .venv/bin/python -m training.seal_seq2seq.strips --seed 12 --pages 150 --out .cache/seq2seq/val.npz
    .venv/bin/python -m training.seal_seq2seq.strips --tuning --out .cache/seq2seq/tuning.npz
    .venv-train/bin/python training/seal_seq2seq/train.py

Strips come from `strips.py` (the seal pipeline's own rim strips, labelled). The model trains
on the generated seed-11 strips only; seed 12's strips (pages it never saw) and the real
TUNING-split strips are measured, never trained on. Every strip goes through the serving
`imgproc.text.seq2seq.fit_strip` and `pixel_values`, after augmentation of the raw strip.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import cv2
import numpy as np
import torch
from torch import nn

PROJECT_ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(PROJECT_ROOT / "triton_repo" / "shared"), str(Path(__file__).parent)]

from export import export_onnx  # noqa: E402
from imgproc.text.charset import load_charset  # noqa: E402
from imgproc.text.edit import levenshtein  # noqa: E402
from imgproc.text.seq2seq import Seq2SeqSpec, fit_strip, pixel_values  # noqa: E402
from model import MAX_TOKENS, Seq2Seq, parameter_count  # noqa: E402
from strip_file import load_strips  # noqa: E402

DATA = PROJECT_ROOT / ".cache" / "seq2seq"
MODELS = PROJECT_ROOT / "triton_repo" / "models"
PPOCR_MODEL = MODELS / "text_recognition" / "1" / "model.onnx"
SPECIALS = ("<pad>", "<s>", "</s>", "<unk>")  # ids 0-3, as Seq2SeqSpec's defaults say
SPEC = Seq2SeqSpec()
SEED = 17
BATCH = 48
THREADS = 2


def vocabulary(texts: list[str]) -> list[str]:
    """The special tokens, then every training character the PP-OCR dictionary holds."""
    ppocr = set(load_charset(PPOCR_MODEL))
    return [*SPECIALS, *sorted({c for text in texts for c in text if c in ppocr})]


def encode(text: str, index: dict[str, int]) -> list[int]:
    unknown = index["<unk>"]
    return [SPEC.decoder_start_token_id, *(index.get(c, unknown) for c in text), SPEC.eos_token_id]


def augmented(image: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A strip as another capture might give it: narrower or wider, margins cut or grown,
    lighter or darker, sometimes blurred."""
    height, width = image.shape[:2]
    image = cv2.resize(image, (max(8, round(width * rng.uniform(0.8, 1.2))), height))
    cut = rng.integers(-height // 4, height // 8, 2)
    image = image[:, max(0, cut[0]) : image.shape[1] - max(0, cut[1])]
    pad = [max(0, -int(c)) for c in cut]
    image = cv2.copyMakeBorder(image, 0, 0, pad[0], pad[1], cv2.BORDER_CONSTANT, value=(255, 255, 255))
    if rng.random() < 0.3:
        image = cv2.GaussianBlur(image, (3, 3), rng.uniform(0.3, 1.2))
    gain, offset = rng.uniform(0.7, 1.2), rng.uniform(-30, 30)
    return np.clip(image.astype(np.float32) * gain + offset, 0, 255).astype(np.uint8)


def batch_tensors(
    images: list[np.ndarray], texts: list[str], index: dict[str, int]
) -> tuple[torch.Tensor, torch.Tensor]:
    fitted = np.stack([fit_strip(image, SPEC) for image in images])
    ids = [encode(text, index)[:MAX_TOKENS] for text in texts]
    tokens = np.full((len(ids), max(map(len, ids))), SPEC.pad_token_id, np.int64)
    for row, seq in enumerate(ids):
        tokens[row, : len(seq)] = seq
    return torch.from_numpy(pixel_values(fitted, SPEC)), torch.from_numpy(tokens)


@torch.no_grad()
def greedy_texts(model: Seq2Seq, images: list[np.ndarray], vocab: list[str]) -> list[str]:
    """Greedy decoding in torch (the served loop's twin; the ONNX one is checked in export)."""
    model.eval()
    texts = []
    for start in range(0, len(images), 64):
        pixels = torch.from_numpy(
            pixel_values(np.stack([fit_strip(i, SPEC) for i in images[start : start + 64]]), SPEC)
        )
        states = model.encoder(pixels)
        ids = torch.full((len(pixels), 1), SPEC.decoder_start_token_id, dtype=torch.long)
        for _ in range(SPEC.max_length):
            ids = torch.cat([ids, model.decoder(ids, states)[:, -1].argmax(1, keepdim=True)], 1)
            if (ids == SPEC.eos_token_id).any(1).all():
                break
        for row in ids[:, 1:].tolist():
            end = row.index(SPEC.eos_token_id) if SPEC.eos_token_id in row else len(row)
            texts.append("".join(vocab[t] for t in row[:end] if t >= len(SPECIALS)))
    return texts


def accuracy(predicted: list[str], truth: list[str]) -> tuple[float, float]:
    """(exact share, character error rate) of predicted against true texts."""
    exact = float(np.mean([p == t for p, t in zip(predicted, truth, strict=True)])) if truth else 0.0
    errors = sum(levenshtein(p, t) for p, t in zip(predicted, truth, strict=True))
    return exact, errors / max(1, sum(map(len, truth)))


def train(args: argparse.Namespace) -> None:
    torch.manual_seed(SEED)
    torch.set_num_threads(THREADS)
    rng = np.random.default_rng(SEED)
    images, texts = load_strips(args.data / "train.npz")
    vocab = vocabulary(texts)
    index = {c: i for i, c in enumerate(vocab)}
    model = Seq2Seq(len(vocab), SPEC.width)
    print(f"{len(texts)} strips, {len(vocab)} tokens, {parameter_count(model)} parameters")  # noqa: T201
    steps = args.epochs * (len(texts) // BATCH)
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=0.01)
    schedule = torch.optim.lr_scheduler.OneCycleLR(optimizer, args.lr, total_steps=steps, pct_start=0.1)
    loss_of = nn.CrossEntropyLoss(ignore_index=SPEC.pad_token_id, label_smoothing=0.1)
    started = time.perf_counter()
    for epoch in range(args.epochs):
        model.train()
        order, total = rng.permutation(len(texts)), 0.0
        for start in range(0, len(order) - BATCH + 1, BATCH):
            rows = order[start : start + BATCH]
            pixels, tokens = batch_tensors(
                [augmented(images[i], rng) for i in rows], [texts[i] for i in rows], index
            )
            logits = model(pixels, tokens[:, :-1])
            loss = loss_of(logits.reshape(-1, len(vocab)), tokens[:, 1:].reshape(-1))
            optimizer.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()
            schedule.step()
            total += float(loss) * len(rows)
        print(
            f"epoch {epoch + 1}: loss {total / len(texts):.3f}, {time.perf_counter() - started:.0f} s",
            flush=True,
        )  # noqa: T201
    report = {
        "train_seconds": round(time.perf_counter() - started),
        "strips": len(texts),
        "epochs": args.epochs,
    }
    for name in ("val", "tuning"):
        held, truth = load_strips(args.data / f"{name}.npz")
        exact, cer = accuracy(greedy_texts(model, held, vocab), truth)
        report[name] = {"strips": len(truth), "exact": round(exact, 3), "cer": round(cer, 3)}
    print(json.dumps(report))  # noqa: T201
    export_onnx(model, vocab, SPEC, MODELS)
    (args.data / "report.json").write_text(json.dumps(report, indent=1))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=14)
    parser.add_argument("--lr", type=float, default=2e-3)
    parser.add_argument("--data", type=Path, default=DATA, help="where strips.py wrote the strips")
    train(parser.parse_args())


if __name__ == "__main__":
    main()
