"""Training data: the rim strips the seal pipeline itself cuts, labelled with the truth rim.

Runs in the serving environment (`.venv`: it needs `imgproc`, the evaluation generator and the
provisioned seal text detector), not in the training one. Each page goes through the seal
pipeline's own finding, detection and unwrapping (`find_page_seals`, `seal_strips`, as the
seal BLS runs them), so the model is trained on exactly the strips it will read; a found seal
is labelled with the truth seal its box overlaps most (IoU at least `MIN_IOU`), and both of
its rim strips (ink image and colour) are kept with that seal's rim text.

Sources: generated pages (seeds chosen apart from the evaluation's 3000 and 7000) and the
TUNING part of seals-dev. The held-out part is never read here.

    .venv/bin/python training/seal_seq2seq/strips.py --seed 11 --pages 600 --out .cache/seq2seq/train.npz
"""

from __future__ import annotations

import argparse
import asyncio
import time
from collections.abc import Iterable
from pathlib import Path

import numpy as np
from imgproc.imaging import decode_rgb, three_channels
from imgproc.seal.config import DEFAULT_CONFIG
from imgproc.seal.pipeline import find_page_seals, seal_strips

from evaluation.seal.dataset import TUNING, TruthPage, box_iou, generated_pages, seals_dev_pages
from evaluation.seal.inprocess import OnnxSealModels
from training.seal_seq2seq.strip_file import save

MIN_IOU = 0.5


def _rim_strips(page: TruthPage, models: OnnxSealModels) -> list[tuple[np.ndarray, str]]:
    labelled = []
    for crop in find_page_seals(decode_rgb(page.image), DEFAULT_CONFIG):
        truths = [t for t in page.seals if t.rim_text and box_iou(t.box, crop.region.box) >= MIN_IOU]
        if not truths or not crop.region.is_elliptic:
            continue
        truth = max(truths, key=lambda t: box_iou(t.box, crop.region.box))
        strips = asyncio.run(seal_strips(crop, models, DEFAULT_CONFIG))
        labelled += [(three_channels(strip.image), str(truth.rim_text)) for strip in strips.rim]
    return labelled


def collect(pages: Iterable[TruthPage], models: OnnxSealModels) -> tuple[list[np.ndarray], list[str]]:
    images, texts = [], []
    started = time.perf_counter()
    for n, page in enumerate(pages, 1):
        for image, text in _rim_strips(page, models):
            images.append(image)
            texts.append(text)
        if n % 50 == 0:
            print(f"{n} pages, {len(texts)} strips, {time.perf_counter() - started:.0f} s", flush=True)  # noqa: T201
    return images, texts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--pages", type=int, default=600, help="generated pages (0: none)")
    parser.add_argument("--tuning", action="store_true", help="the seals-dev TUNING part instead")
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    models = OnnxSealModels()
    if args.tuning:
        pages: Iterable[TruthPage] = (p for p in seals_dev_pages(frozenset({TUNING})) if p.group == "real")
    else:
        pages = generated_pages(args.seed, args.pages, 0)
    images, texts = collect(pages, models)
    save(args.out, images, texts)
    print(f"{len(texts)} strips -> {args.out}")  # noqa: T201


if __name__ == "__main__":
    main()
