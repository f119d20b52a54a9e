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

`--heldout WEIGHTS` reads the held-out parts instead (the corpus's and seals-dev's, with their
pages without seals), once, for a candidate to keep, with `--model` replaced by WEIGHTS (none
named: the served recogniser), saved under `python -m evaluation.seal --heldout`'s labels.
"""

from __future__ import annotations

import argparse
import json
import shutil
from collections.abc import Callable, Collection, Iterable
from pathlib import Path

from evaluation.ocr import MODEL_FILE
from evaluation.seal.corpus import corpus_pages
from evaluation.seal.dataset import HELDOUT, TUNING, TruthPage, seals_dev_pages, with_blanked
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
    served, swapped = MODEL_REPOSITORY / model / MODEL_FILE, where / model / MODEL_FILE
    swapped.parent.mkdir(parents=True)
    swapped.symlink_to(weights.resolve())
    for extra in served.parent.iterdir():  # the charset beside the weights
        if extra.name != swapped.name:
            (swapped.parent / extra.name).symlink_to(extra.resolve())
    return where


def tuning_sets(only: Collection[str] | None) -> dict[str, list[TruthPage]]:
    """The tuning parts under the labels `python -m evaluation.seal` saves them by (`only`
    these, when named: the corpus's part alone reads in half an hour here)."""
    dev = list(with_blanked(seals_dev_pages(frozenset({TUNING}))))
    sets: dict[str, Callable[[], list[TruthPage]]] = {
        "corpus tuning part": lambda: list(with_blanked(corpus_pages(frozenset({TUNING})))),
        "real tuning part": lambda: dev,
    }
    for name in PERTURBATIONS:
        sets[f"real tuning part, {name}"] = lambda name=name: list(perturbed_pages(dev, name))  # type: ignore[misc]
    return {label: pages() for label, pages in sets.items() if not only or label in only}


def in_fold(pages: Iterable[TruthPage], fold: int) -> list[TruthPage]:
    return [page for page in pages if fold_of(group_of(page.name)) == fold]


def heldout_sets() -> dict[str, list[TruthPage]]:
    """The held-out parts under the labels `python -m evaluation.seal --heldout` saves them by."""
    return {
        "**corpus held-out**": list(with_blanked(corpus_pages(frozenset({HELDOUT})))),
        "**real held-out**": list(with_blanked(seals_dev_pages(frozenset({HELDOUT})))),
    }


def scored(seal: InProcessSeal, pages: list[TruthPage]) -> list[PageResult]:
    found = read_pages(seal, (page.image for page in pages), 1)
    return [score_page(page, answer) for page, answer in zip(pages, found, strict=True)]


def save(path: Path, results: dict[str, list[PageResult]]) -> None:
    for label, pooled in results.items():
        print(f"pooled, {label}: {summarize(pooled, ELLIPTIC).line()}", flush=True)  # noqa: T201
    saved = {label: outcomes(pooled) for label, pooled in results.items()}
    path.write_text(json.dumps(saved, ensure_ascii=False, indent=1), encoding="utf-8")


def heldout(model: str, weights: Path | None, path: Path) -> None:
    repository = (
        MODEL_REPOSITORY if weights is None else swapped_repository(model, weights, REPOSITORIES / "heldout")
    )
    seal = InProcessSeal(repository)
    save(path, {label: scored(seal, pages) for label, pages in heldout_sets().items()})


def by_fold(path: Path) -> None:
    """A saved run's exact rims per fold and set (a seal's key is its page's name, ' #', its index)."""
    for label, seals in json.loads(path.read_text(encoding="utf-8")).items():
        counts = [[0, 0] for _ in range(FOLDS)]
        for key, outcome in seals.items():
            fold = fold_of(group_of(key.rsplit(" #", 1)[0]))
            counts[fold][0] += bool(outcome["exact"])
            counts[fold][1] += 1
        print(f"{label}: " + ", ".join(f"fold {k} {e}/{n}" for k, (e, n) in enumerate(counts)))  # noqa: T201


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="text_recognition_v6")
    parser.add_argument("--fold-models", type=Path, help="a folder of fold<k>.onnx")
    parser.add_argument(
        "--heldout", nargs="?", const="served", help="read the held-out parts with these weights"
    )
    parser.add_argument("--save", type=Path)
    parser.add_argument("--by-fold", type=Path, help="print a saved run's exact rims per fold, and stop")
    parser.add_argument("--only", nargs="*", help="these sets only (labels as saved)")
    parser.add_argument(
        "--folds", type=int, nargs="*", default=list(range(FOLDS)), help="these folds only (merge the saves)"
    )
    args = parser.parse_args()
    if args.by_fold:
        by_fold(args.by_fold)
        return
    if args.save is None:
        parser.error("--save is needed to read pages")
    if args.heldout:
        heldout(args.model, None if args.heldout == "served" else Path(args.heldout), args.save)
        return
    sets = tuning_sets(args.only)
    results: dict[str, list[PageResult]] = {label: [] for label in sets}
    for fold in args.folds:
        weights = args.fold_models / f"fold{fold}.onnx"
        repository = swapped_repository(args.model, weights, REPOSITORIES / f"fold{fold}")
        seal = InProcessSeal(repository)
        for label, pages in sets.items():
            fold_results = scored(seal, in_fold(pages, fold))
            results[label] += fold_results
            print(f"fold {fold}, {label}: {summarize(fold_results, ELLIPTIC).line()}", flush=True)  # noqa: T201
    save(args.save, results)


if __name__ == "__main__":
    main()
