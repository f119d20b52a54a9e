"""Cross-validation through the pipeline: each fold's pages read with the recogniser NOT trained on them.

The tuning parts (the corpus's, seals-dev's and seals-dev's six perturbations, each page then it
without its seals, as `python -m evaluation.seal` reads them) are split by repository
(`folds.fold_of`); fold k's pages are read by the in-process pipeline with `--model` replaced
by `<fold-models>/fold<k>.onnx` (made by `head.py write` from the classifier trained without
fold k), and the results are pooled under the labels `python -m evaluation.seal --save` uses,
so `python -m evaluation.seal.compare` sets the left-out readings beside the original's.
The served weights are never touched: each fold gets a model repository of links under
`.cache/seal_rec/repo` with one recogniser swapped.

    .venv/bin/python -m training.seal_rec.cv --fold-models .cache/seal_rec/v6/a0.5 --save cv.json
"""

from __future__ import annotations

import argparse
import json
import shutil
from collections.abc import Iterable
from pathlib import Path

from evaluation.ocr import MODEL_FILE
from evaluation.seal.corpus import corpus_pages
from evaluation.seal.dataset import TUNING, TruthPage, seals_dev_pages, with_blanked
from evaluation.seal.inprocess import MODEL_REPOSITORY, InProcessSeal, read_pages
from evaluation.seal.perturb import PERTURBATIONS, perturbed_pages
from evaluation.seal.report import outcomes
from evaluation.seal.scoring import ELLIPTIC, PageResult, score_page, summarize
from training.seal_rec.folds import FOLDS, fold_of
from training.seal_rec.real_strips import group_of

REPOSITORIES = Path(".cache/seal_rec/repo")


def swapped_repository(model: str, weights: Path, where: Path) -> Path:
    """A model repository of links to the served one, with `model`'s weights replaced."""
    if where.exists():
        shutil.rmtree(where)
    where.mkdir(parents=True)
    for entry in MODEL_REPOSITORY.iterdir():
        if entry.name != model:
            (where / entry.name).symlink_to(entry.resolve())
    version = where / model / "1"
    version.mkdir(parents=True)
    (version / MODEL_FILE).symlink_to(weights.resolve())
    for extra in (MODEL_REPOSITORY / model / "1").iterdir():
        if extra.name != MODEL_FILE:
            (version / extra.name).symlink_to(extra.resolve())
    return where


def tuning_sets() -> dict[str, list[TruthPage]]:
    """The tuning parts under the labels `python -m evaluation.seal` saves them by."""
    dev = list(with_blanked(seals_dev_pages(frozenset({TUNING}))))
    sets = {
        "corpus tuning part": list(with_blanked(corpus_pages(frozenset({TUNING})))),
        "real tuning part": dev,
    }
    for name in PERTURBATIONS:
        sets[f"real tuning part, {name}"] = list(perturbed_pages(dev, name))
    return sets


def in_fold(pages: Iterable[TruthPage], fold: int) -> list[TruthPage]:
    return [page for page in pages if fold_of(group_of(page)) == fold]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="text_recognition_v6")
    parser.add_argument("--fold-models", type=Path, required=True, help="a folder of fold<k>.onnx")
    parser.add_argument("--save", type=Path, required=True)
    parser.add_argument("--only", nargs="*", help="these sets only (labels as saved)")
    args = parser.parse_args()
    sets = {k: v for k, v in tuning_sets().items() if not args.only or k in args.only}
    results: dict[str, list[PageResult]] = {label: [] for label in sets}
    for fold in range(FOLDS):
        weights = args.fold_models / f"fold{fold}.onnx"
        repository = swapped_repository(args.model, weights, REPOSITORIES / f"fold{fold}")
        seal = InProcessSeal(repository)
        for label, pages in sets.items():
            chosen = in_fold(pages, fold)
            found = read_pages(seal, (page.image for page in chosen), 1)
            scored = [score_page(page, answer) for page, answer in zip(chosen, found, strict=True)]
            results[label] += scored
            print(f"fold {fold}, {label}: {summarize(scored, ELLIPTIC).line()}", flush=True)  # noqa: T201
    for label, pooled in results.items():
        print(f"pooled, {label}: {summarize(pooled, ELLIPTIC).line()}", flush=True)  # noqa: T201
    saved = {label: outcomes(pooled) for label, pooled in results.items()}
    args.save.write_text(json.dumps(saved, ensure_ascii=False, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
