"""Rim strips of REAL seals as the pipeline cuts them, each labelled with the part of its truth it holds.

Pages: the corpus's tuning part, seals-dev's tuning part and that part under its six
perturbations (`evaluation.seal.perturb`). Never the held-out parts. Runs in the serving
environment (`.venv`), with the configuration the seal model serves.

Each page goes through the pipeline's own finding, locating and unwrapping (`find_page_seals`,
`seal_strips`); a found seal is matched to a truth seal by box as the scorer matches
(`MATCH_IOU`), and each of its rim strips is labelled with the cyclic substring of the truth
rim that the strip's readings (by every CTC recogniser the seal model may use) come nearest to:
the pipeline may start the rim elsewhere, or cut it short. A strip is dropped when no reading
comes within `max_edits` of any such substring, or when two different substrings fit it
equally well: a wrong label teaches worse than no label. With `--length-credit 1` a longer
substring is worth an edit a character, so a strip whose every reader drops the rim's first
character is labelled with the whole rim (`aligned`).

Each strip keeps its group (the page's repository: corpus pages are named repository:path,
seals-dev's carry theirs in its manifest), so cross-validation can split by repository.

    .venv/bin/python -m training.seal_rec.real_strips --out .cache/seal_rec/real.npz
"""

from __future__ import annotations

import argparse
import asyncio
import json
import time
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from functools import cache

import numpy as np
from imgproc.imaging import decode_rgb, three_channels
from imgproc.seal.config import SealConfig
from imgproc.seal.pipeline import find_page_seals, seal_strips

from evaluation.seal.corpus import corpus_pages
from evaluation.seal.dataset import SEALS_DEV, TUNING, TruthPage, box_iou, seals_dev_pages
from evaluation.seal.inprocess import OnnxSealModels, seal_model_config
from evaluation.seal.perturb import PERTURBATIONS, perturbed_pages
from evaluation.seal.scoring import MATCH_IOU
from evaluation.text import levenshtein, normalize
from training.seal_seq2seq.strip_file import save

# The CTC recognisers the seal model reads with (v6 small first, v4 and v5 re-read).
READERS = ("text_recognition_v6", "text_recognition", "text_recognition_v5")
MIN_SHARE = 0.5  # a strip holding less than half its rim is not labelled (too easy to misplace)
MIN_CHARS = 3


@dataclass(frozen=True)
class RealStrip:
    image: np.ndarray
    label: str
    group: str  # the repository the page comes from
    page: str
    edits: int  # the best reading's edits from the label


def max_edits(length: int) -> int:
    """Edits a reading may be from its label: none below 5 characters, then one per 5."""
    return length // 5


def cyclic_parts(truth: str) -> dict[str, bool]:
    """Every contiguous stretch of the rim read round from any start, of at least half of it, and
    whether it is the whole rim from its own start."""
    n = len(truth)
    shortest = min(n, max(MIN_CHARS, -(-n * MIN_SHARE // 1)))
    doubled = truth + truth
    parts: dict[str, bool] = {}
    for start in range(n):
        for length in range(int(shortest), n + 1):
            part = doubled[start : start + length]
            parts[part] = parts.get(part, False) or (start == 0 and length == n)
    return parts


def aligned(truth: str, readings: Sequence[str], credit: float = 0.0) -> tuple[str, int] | None:
    """The stretch of `truth` the readings come nearest to, with its edits; None when none comes
    within `max_edits`, or when two different stretches fit equally well (longest first).

    `credit`: edits a character more of the stretch is worth. At 0 the nearest stretch wins, so a
    strip whose every reader drops the rim's first character is labelled without it, and a
    recogniser trained on such labels learns to drop it (through the pipeline, fine-tuned
    readers lost first characters: 石家庄铁道大学 -> 家庄铁道大学). At 1 a character more is
    worth the edit it costs: the whole rim wins over a stretch one character shorter (and, of
    the rim's turns that fit equally, the one from its own start: the pipeline aims there)."""
    scored = sorted(
        (edits - credit * len(part), -len(part), not at_start, edits, part)
        for part, at_start in cyclic_parts(truth).items()
        for edits in [min(levenshtein(r, part) for r in readings)]
        if edits <= max_edits(len(part))
    )
    if not scored or (len(scored) > 1 and scored[1][:3] == scored[0][:3]):
        return None
    return scored[0][4], scored[0][3]


@cache
def _seals_dev_repos() -> dict[str, str]:
    manifest = json.loads((SEALS_DEV / "manifest.json").read_text(encoding="utf-8"))
    return {str(item["file"]): str(item["repo"]) for item in manifest}


def group_of(name: str) -> str:
    """The repository the page of this name comes from (a perturbed page's name, or one without
    seals, is its original's, a space and what was done to it)."""
    if ":" in name:
        return name.split(":", 1)[0]
    original = name.split(" ", 1)[0]
    return _seals_dev_repos().get(original, original)


def _read(models: OnnxSealModels, images: list[np.ndarray]) -> list[list[str]]:
    """Each image's greedy reading by every reader."""
    by_reader = [asyncio.run(models.recognise(name, images, 0)) for name in READERS]
    return [[decoded[k].text for decoded in by_reader] for k in range(len(images))]


def page_strips(
    page: TruthPage, models: OnnxSealModels, config: SealConfig, credit: float = 0.0
) -> Iterator[RealStrip]:
    """The labelled rim strips of one page."""
    for crop in find_page_seals(decode_rgb(page.image), config):
        matches = [t for t in page.seals if box_iou(t.box, crop.region.box) >= MATCH_IOU]
        if not matches or not crop.region.is_elliptic:
            continue
        truth = max(matches, key=lambda t: box_iou(t.box, crop.region.box))
        if not truth.rim_text:
            continue
        images = [three_channels(s.image) for s in asyncio.run(seal_strips(crop, models, config)).rim]
        for image, readings in zip(images, _read(models, images) if images else [], strict=True):
            found = aligned(normalize(truth.rim_text), readings, credit)
            if found is not None:
                yield RealStrip(image, found[0], group_of(page.name), page.name, found[1])


def tuning_pages() -> Iterator[TruthPage]:
    """The corpus's tuning part, seals-dev's and seals-dev's perturbed (never a held-out part)."""
    yield from corpus_pages(frozenset({TUNING}))
    dev = [p for p in seals_dev_pages(frozenset({TUNING})) if p.group == "real"]
    yield from dev
    for name in PERTURBATIONS:
        yield from (p for p in perturbed_pages(dev, name) if p.seals)


def collect(
    pages: Iterable[TruthPage], models: OnnxSealModels, config: SealConfig, credit: float = 0.0
) -> list[RealStrip]:
    found: list[RealStrip] = []
    started = time.perf_counter()
    for n, page in enumerate(pages, 1):
        found += page_strips(page, models, config, credit)
        if n % 25 == 0:
            print(f"{n} pages, {len(found)} strips, {time.perf_counter() - started:.0f} s", flush=True)  # noqa: T201
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True)
    parser.add_argument(
        "--length-credit",
        type=float,
        default=0.0,
        help="edits a character more of a label is worth (`aligned`)",
    )
    args = parser.parse_args()
    strips = collect(tuning_pages(), OnnxSealModels(), seal_model_config(), args.length_credit)
    save(
        args.out,
        [s.image for s in strips],
        [s.label for s in strips],
        groups=[s.group for s in strips],
        pages=[s.page for s in strips],
        edits=[s.edits for s in strips],
    )
    print(f"{len(strips)} strips from {len({s.group for s in strips})} repositories -> {args.out}")  # noqa: T201


if __name__ == "__main__":
    main()
