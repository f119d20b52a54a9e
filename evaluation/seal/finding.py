"""EVALUATION HARNESS: seal finding alone (no reading, no models), on real and generated pages.

    .venv/bin/python -m evaluation.seal.finding               # tuning part, blanked, seeds
    .venv/bin/python -m evaluation.seal.finding -v            # ...listing misses and false seals
    .venv/bin/python -m evaluation.seal.finding --heldout     # ...and the held-out aggregate

Each page goes through `imgproc.seal.find_seals` (`find.find_on_page`, the finder the pipeline
calls, white balance included), and its regions are scored by `scoring.score_page` with an
empty rim text, so only recall and false seals mean anything here. Three sets: the seals-dev
tuning part; the same real pages with their seals painted over (`without_seals`: real red
print on which nothing may be found); and generated seeds (seal pages, then empty pages). The
held-out part is reported only as a total, never page by page: nothing is tuned on it. Times
are the finder's alone, per page.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Iterable, Iterator

import cv2
import numpy as np
from imgproc.arrays import Pixels
from imgproc.imaging import decode_rgb
from imgproc.seal import find_seals

from evaluation.seal.dataset import (
    HELDOUT,
    REAL_GROUPS,
    TUNING,
    TruthPage,
    generated_pages,
    seals_dev_pages,
    without_seals,
)
from evaluation.seal.scoring import FoundSeal, PageResult, score_page, summarize

SEEDS = (3000, 4000)  # the generated seeds finding is tuned on
SERVICE_THREADS = 2  # the service's CPU budget: time the finder on as many OpenCV threads


def _say(line: str) -> None:
    print(line)  # noqa: T201 - this is a command-line report


def find(rgb: Pixels) -> list[FoundSeal]:
    """The finder's regions on an RGB page, as found seals without text."""
    return [FoundSeal(region.box, region.shape.value, "") for region in find_seals(rgb)]


def run(pages: Iterable[TruthPage]) -> tuple[list[PageResult], list[float]]:
    """Each page's score, and the seconds the finder took on it."""
    results, seconds = [], []
    for page in pages:
        rgb = decode_rgb(page.image)
        started = time.perf_counter()
        found = find(rgb)
        seconds.append(time.perf_counter() - started)
        results.append(score_page(page, found))
    return results, seconds


def blanked(pages: Iterable[TruthPage]) -> Iterator[TruthPage]:
    """The real pages with their seals painted over (those where enough page is left)."""
    for page in pages:
        if page.group in REAL_GROUPS and (blank := without_seals(page)) is not None:
            yield blank


def _details(results: list[PageResult]) -> None:
    for result in results:
        for seal in result.seals:
            if seal.found is None:
                _say(f"    missed on {result.page.name}: {seal.truth.shape} {seal.truth.box}")
        for false in result.false_seals:
            _say(f"    false seal on {result.page.name}: {false.shape} {false.box}")


def report(title: str, results: list[PageResult], seconds: list[float], verbose: bool) -> None:
    """Recall, false seals and time per page of one set; misses and false seals when verbose."""
    if not results:
        return  # a set left empty by the options (`--only` none)
    total = summarize(results)
    times = np.asarray(seconds) * 1000.0
    _say(
        f"{title}: {total.pages} pages, recall {total.found}/{total.seals} = {total.recall:.3f}, "
        f"false seals {total.false_seals} ({total.false_on_empty} on {total.empty_pages} empty pages); "
        f"ms per page: mean {times.mean():.0f}, median {np.median(times):.0f}, max {times.max():.0f}"
    )
    if verbose:
        _details(results)


def main() -> None:
    """Command line: score the finder and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, nargs="*", default=list(SEEDS), help="generated seeds")
    parser.add_argument("--seal-pages", type=int, default=80)
    parser.add_argument("--empty-pages", type=int, default=40)
    parser.add_argument("--style", help="generated pages of one style only (plain, invoice, photo...)")
    parser.add_argument("--heldout", action="store_true", help="also the held-out part's totals")
    parser.add_argument("--only", nargs="*", help="seals-dev files to run (tuning part only)")
    parser.add_argument("-v", "--verbose", action="store_true", help="list misses and false seals")
    args = parser.parse_args()
    cv2.setNumThreads(SERVICE_THREADS)
    tuning = [p for p in seals_dev_pages(frozenset({TUNING})) if not args.only or p.name in args.only]
    report("seals-dev tuning", *run(tuning), args.verbose)
    report("seals-dev tuning without seals", *run(blanked(tuning)), args.verbose)
    for seed in args.seeds:
        generated = generated_pages(seed, args.seal_pages, args.empty_pages, args.style)
        report(f"generated seed {seed}", *run(generated), args.verbose)
    if args.heldout:
        held = list(seals_dev_pages(frozenset({HELDOUT})))
        report("seals-dev HELD-OUT", *run(held), verbose=False)
        report("seals-dev HELD-OUT without seals", *run(blanked(held)), verbose=False)


if __name__ == "__main__":
    main()
