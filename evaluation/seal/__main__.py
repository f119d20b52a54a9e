"""EVALUATION HARNESS: the seal BLS's own functions, in-process, on real and generated pages.

Run from the project root once the weights are provisioned (`make setup`):

    .venv/bin/python -m evaluation.seal                 # seals-dev tuning part + generated
    .venv/bin/python -m evaluation.seal --heldout       # ...and the held-out part, to report
    .venv/bin/python -m evaluation.seal --perturb       # ...the tuning part made harder (`perturb`)
    .venv/bin/python -m evaluation.seal --heldout --perturb --seed 3000 7000 8000 --write docs/seal/figures.md
    .venv/bin/python -m evaluation.seal ... --cache .cache/seal-reads   # read each page once (`readcache`)

It reads each page as the seal BLS does, through the same functions with the models run by
ONNX Runtime in this process (`inprocess`); only Triton itself is left out. Scores come
from `scoring`, the scorer the integration tests use on the real service's answers. Tune on
the tuning part and on generated seeds; the held-out part is for reporting.
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Iterable
from pathlib import Path

from imgproc.seal.config import with_overrides

from evaluation.seal.corpus import CorpusMissing, corpus_pages
from evaluation.seal.dataset import (
    HELDOUT,
    TUNING,
    TruthPage,
    generated_pages,
    seals_dev_pages,
    with_blanked,
)
from evaluation.seal.inprocess import InProcessSeal, read_pages, reading_config, seal_model_config
from evaluation.seal.misses import stage_counts
from evaluation.seal.perturb import PERTURBATIONS, perturbed_pages
from evaluation.seal.readcache import read_through
from evaluation.seal.report import class_sections, outcomes, write
from evaluation.seal.scoring import ELLIPTIC, PageResult, Summary, score_page, summarize

RECT = frozenset({"rect"})


def _say(line: str) -> None:
    print(line)  # noqa: T201 - this is a command-line report


def _run(
    seal: InProcessSeal, pages: Iterable[TruthPage], jobs: int, cache: Path | None
) -> tuple[list[PageResult], float]:
    started, chosen = time.perf_counter(), list(pages)
    images = [page.image for page in chosen]
    found = read_through(
        cache, images, reading_config(seal.config), lambda todo: read_pages(seal, todo, jobs, seal.threads)
    )
    results = [score_page(page, answer) for page, answer in zip(chosen, found, strict=True)]
    return results, time.perf_counter() - started


def _report(title: str, results: list[PageResult], seconds: float, verbose: bool) -> Summary:
    elliptic, rect = summarize(results, ELLIPTIC), summarize(results, RECT)
    _say(f"{title} ({seconds:.0f} s)")
    _say(f"  round and oval: {elliptic.line()}")
    if rect.rims:
        _say(f"  rect: rim exact {rect.exact}/{rect.rims}, CER {rect.cer:.3f}")
    if verbose and elliptic.miss_kinds:
        kinds = ", ".join(f"{count} {kind}" for kind, count in elliptic.miss_kinds.most_common())
        _say(f"  rim misses: {kinds}")
    for miss in elliptic.misses if verbose else []:
        _say(f"    {miss}")
    for miss in elliptic.line_misses if verbose else []:
        _say(f"    lines: {miss}")
    for result in results if verbose else []:
        for false in result.false_seals:
            _say(f"    false seal on {result.page.name}: {false.shape} {false.box} {false.rim_text}")
    return elliptic


def _corpus_parts(heldout: bool) -> dict[str, list[TruthPage]]:
    """The corpus's tuning part (and held-out part), each page then it without its seals; none,
    said clearly, when the image cache is missing."""
    try:
        parts = {TUNING: list(with_blanked(corpus_pages(frozenset({TUNING}))))}
        if heldout:
            parts[HELDOUT] = list(with_blanked(corpus_pages(frozenset({HELDOUT}))))
    except CorpusMissing as missing:
        _say(f"the real seal corpus is left out: {missing}")
        return {}
    return parts


def main() -> None:
    """Command line: score the in-process pipeline and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, nargs="+", default=[3000], help="generated pages' seeds")
    parser.add_argument("--seal-pages", type=int, default=40)
    parser.add_argument("--empty-pages", type=int, default=10)
    parser.add_argument("--style", help="generated pages of one style only (plain, invoice, photo...)")
    parser.add_argument("--heldout", action="store_true", help="also report the held-out part")
    parser.add_argument(
        "--perturb",
        nargs="*",
        choices=sorted(PERTURBATIONS),
        help="also the tuning part under these perturbations (none named: all)",
    )
    parser.add_argument("--only", nargs="*", help="seals-dev files to run (tuning part only)")
    parser.add_argument("--no-corpus", action="store_true", help="leave the real seal corpus out")
    parser.add_argument("--write", type=Path, help="write the figures as a Markdown table here")
    parser.add_argument("--save", type=Path, help="save each seal's outcome here (for `compare`)")
    parser.add_argument(
        "--cache", type=Path, help="keep each page's answer here, and take it from here (`readcache`)"
    )
    parser.add_argument("--threads", type=int, default=1, help="ONNX Runtime intra-op threads")
    parser.add_argument("--jobs", type=int, default=1, help="worker processes reading pages")
    parser.add_argument("-v", "--verbose", action="store_true", help="list every miss")
    parser.add_argument(
        "--set", nargs="*", default=[], help="tunables to override: name=value (on top of config.pbtxt's)"
    )
    args = parser.parse_args()
    overrides = dict(item.split("=", 1) for item in args.set)
    seal = InProcessSeal(threads=args.threads, config=with_overrides(seal_model_config(), overrides))
    chosen = (p for p in seals_dev_pages(frozenset({TUNING})) if not args.only or p.name in args.only)
    tuning = list(with_blanked(chosen))  # built once: every perturbation starts from it
    measured: dict[str, tuple[Summary, list[PageResult]]] = {}

    def measure(label: str, title: str, pages: Iterable[TruthPage], verbose: bool = args.verbose) -> None:
        results, seconds = _run(seal, pages, args.jobs, args.cache)
        measured[label] = (_report(title, results, seconds, verbose), results)

    if args.heldout:  # first in the tables; measured with the others, never listed seal by seal
        measure(
            "**real held-out**",
            "seals-dev HELD-OUT",
            with_blanked(seals_dev_pages(frozenset({HELDOUT}))),
            False,
        )
    corpus = {} if args.no_corpus else _corpus_parts(args.heldout)
    corpus_labels = {HELDOUT: "**corpus held-out**", TUNING: "corpus tuning part"}
    if HELDOUT in corpus:
        measure(corpus_labels[HELDOUT], "corpus HELD-OUT", corpus[HELDOUT], False)
    if TUNING in corpus:
        measure(corpus_labels[TUNING], "corpus tuning", corpus[TUNING])
    measure("real tuning part", "seals-dev tuning", tuning)
    for name in list(PERTURBATIONS) if args.perturb == [] else args.perturb or []:
        measure(f"real tuning part, {name}", f"seals-dev tuning, {name}", perturbed_pages(tuning, name))
    for seed in args.seed if args.seal_pages + args.empty_pages else []:
        style = f", {args.style}" if args.style else ""
        label = f"generated seed {seed}{style} ({args.seal_pages} pages + {args.empty_pages} without a seal)"
        measure(
            label,
            f"generated seed {seed}",
            generated_pages(seed, args.seal_pages, args.empty_pages, args.style),
        )
    corpus_results = {label: measured[label][1] for label in corpus_labels.values() if label in measured}
    for label, results in corpus_results.items():
        _say(f"{label}: misses by class: {dict(stage_counts(results).most_common())}")
    if args.write:
        rows = [(label, summary) for label, (summary, _) in measured.items()]
        write(args.write, rows, class_sections(corpus_results))
    if args.save:
        saved = {label: outcomes(results) for label, (_, results) in measured.items()}
        args.save.write_text(json.dumps(saved, ensure_ascii=False, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
