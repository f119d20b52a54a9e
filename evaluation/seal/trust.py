"""EVALUATION: are the seal reader's scores what they say? Fits them on the real tuning part,
reports them on the held-out part.

    .venv/bin/python -m evaluation.seal.trust                       # fit on the tuning part, print
    .venv/bin/python -m evaluation.seal.trust --heldout --write docs/seal/trust.md

Every round or oval seal found with a known rim, on the real tuning part and its six
perturbations, gives its rim's evidence (`trust.evidence`: support, agreement, confidence)
and whether it reads exactly; a logistic model of exactness on the evidence is fitted there
(Newton's method) and printed as `TrustParams` fields. Names: each seal's true rim, the same
with one character changed to a common character (`CHANGED` of them), and other seals' names
(`OTHERS`), scored on the seal's frames (`trust.evidence.support`); the name threshold is the
support that at most `CHANGED_FOUND` of the changed names reach there. With `--heldout`, the
scores the served configuration gives (fitted values pasted in) are reported on the held-out
part, never tuned on: the reliability table (score band, rims, share exact) and the share of
true, changed and other names found, as totals only. Seals whose rim is the invoice
supervision seal's standard text (`STANDARD_RIMS`) are counted in the rims but not among the
names: nobody verifies a supervision seal by name, and its rim is restored, not read.
"""

from __future__ import annotations

import argparse
import asyncio
import random
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
from imgproc.arrays import Floats
from imgproc.imaging import decode_rgb
from imgproc.seal.config import SealConfig
from imgproc.seal.pipeline import find_page_seals, read_crop
from imgproc.seal.repair.standard import STANDARD_RIMS
from imgproc.seal.trust import Seal, TrustParams
from imgproc.seal.trust.evidence import rim_score, score_inputs, support
from imgproc.seal.trust.verify import name_score
from imgproc.seal.words import Words

from evaluation.seal.__main__ import _with_blanked
from evaluation.seal.corpus import CorpusMissing, corpus_pages
from evaluation.seal.dataset import CORPUS, HELDOUT, TUNING, TruthPage, box_iou, seals_dev_pages
from evaluation.seal.inprocess import InProcessSeal
from evaluation.seal.perturb import PERTURBATIONS, perturbed_pages
from evaluation.seal.scoring import ELLIPTIC, MATCH_IOU

CHANGED, OTHERS = 4, 4  # names scored per seal besides its own
# The logistic model's ridge: chosen by leaving one seal (all its perturbations) out at a time
# on the tuning part (0.1 / 1 / 3: log loss 0.50 / 0.46 / 0.45, rims scored 0.9 or more 98 /
# 72 / 45 of 169, of them exact 0.959 / 0.986 / 0.978): the coverage of 1 at its precision.
RIDGE = 1.0
CHANGED_FOUND = 0.01  # of the changed names at most this share may reach the threshold (tuning part)
BANDS = (0.0, 0.5, 0.7, 0.9, 0.95, 1.0001)
SEED = 0  # of the changed names' draws


def _say(line: str) -> None:
    print(line)  # noqa: T201 - a command-line report


@dataclass(frozen=True)
class Case:
    """One found seal with a known rim: its trusted answer and sources, its truth, exactness,
    and the group it is left out with (its corpus repository, or its rim for seals-dev)."""

    seal: Seal
    truth: str
    exact: bool
    group: str


def _cases(pages: Iterable[TruthPage], reader: InProcessSeal) -> Iterator[Case]:
    """The round and oval seals of the pages that were found, with their truth."""
    for page in pages:
        if not page.seals:
            continue
        crops = find_page_seals(decode_rgb(page.image), reader.config)
        seals = [asyncio.run(read_crop(crop, reader.models, reader.config, reader.words)) for crop in crops]
        for truth in page.seals:
            if truth.shape not in ELLIPTIC or truth.rim_text is None:
                continue
            found = [s for s in seals if box_iou(s.reading.region.box, truth.box) >= MATCH_IOU]
            if found:
                exact = reader.words.normalized(found[0].reading.rim_text) == reader.words.normalized(
                    truth.rim_text
                )
                yield Case(found[0], truth.rim_text, exact, _group(page, truth.rim_text))


def _group(page: TruthPage, rim: str) -> str:
    """What a case is left out with: a corpus page's repository (its documents share seals and
    hands), else the seal's own rim (seals-dev's perturbed copies of one seal)."""
    return "/".join(page.name.split("/")[:2]) if page.group == CORPUS else rim


def tuning_cases(reader: InProcessSeal) -> list[Case]:
    """Seals-dev's tuning part and its perturbations, and the corpus's tuning part where its
    image cache is there (said when it is not)."""
    tuning = list(_with_blanked(seals_dev_pages(frozenset({TUNING}))))
    cases = list(_cases(tuning, reader))
    for name in PERTURBATIONS:
        cases += list(_cases(perturbed_pages(tuning, name), reader))
    try:
        cases += list(_cases(corpus_pages(frozenset({TUNING})), reader))
    except CorpusMissing as missing:
        _say(f"fitted without the real seal corpus: {missing}")
    return cases


def heldout_parts(reader: InProcessSeal) -> dict[str, list[Case]]:
    """The held-out parts, each never tuned on: the corpus's (where its cache is) and seals-dev's."""
    parts = {}
    try:
        parts["corpus held-out"] = list(_cases(corpus_pages(frozenset({HELDOUT})), reader))
    except CorpusMissing as missing:
        _say(f"the corpus's held-out part is left out: {missing}")
    parts["seals-dev held-out"] = list(_cases(_with_blanked(seals_dev_pages(frozenset({HELDOUT}))), reader))
    return parts


def fit_logistic(features: Floats, labels: Floats, ridge: float = 1e-3) -> Floats:
    """Weights (intercept first) of a logistic model, by Newton's method with a small ridge."""
    x = np.hstack([np.ones((len(features), 1)), features])
    w = np.zeros(x.shape[1])
    for _ in range(50):
        p = 1.0 / (1.0 + np.exp(-(x @ w)))
        gradient = x.T @ (labels - p) - ridge * w
        hessian = (x * (p * (1 - p))[:, None]).T @ x + ridge * np.eye(len(w))
        step = np.linalg.solve(hessian, gradient)
        w += step
        if np.abs(step).max() < 1e-8:
            break
    return w


def features(cases: Sequence[Case]) -> Floats:
    """Each case's rim evidence as the model's inputs (`trust.evidence.score_inputs`)."""
    rows = []
    for case in cases:
        evidence = case.seal.reading.evidence
        assert evidence is not None  # round and oval seals with a rim
        rows.append(score_inputs(evidence))
    return np.array(rows, np.float64)


def left_out_scores(cases: Sequence[Case]) -> Floats:
    """Each case's score from a model fitted without its group (a corpus repository, or a
    seals-dev seal with all its perturbations): what the model says of a seal it has not seen."""
    x, y = features(cases), np.array([c.exact for c in cases], np.float64)
    groups = np.array([c.group for c in cases])
    scores = np.zeros(len(cases))
    for group in set(groups):
        out = groups == group
        w = fit_logistic(x[~out], y[~out], RIDGE)
        scores[out] = 1.0 / (1.0 + np.exp(-(w[0] + x[out] @ w[1:])))
    return scores


def _changed(name: str, common: Sequence[str], rng: random.Random) -> str:
    i = rng.randrange(len(name))
    char = rng.choice([c for c in common if c != name[i]])
    return name[:i] + char + name[i + 1 :]


def common_characters(count: int = 3000) -> list[str]:
    """The `count` commonest Chinese characters of the word list (what a name is changed to)."""
    path = Path("triton_repo/models/seal/1/lexicon.txt")
    counts: dict[str, int] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        fields = line.split()
        if len(fields) >= 2 and len(fields[0]) == 1 and "\u4e00" <= fields[0] <= "\u9fff":
            counts[fields[0]] = counts.get(fields[0], 0) + int(fields[1])
    return sorted(counts, key=counts.__getitem__, reverse=True)[:count]


@dataclass(frozen=True)
class NameScores:
    """Supports of true, changed and other names over the cases that carry a name."""

    true: Floats
    changed: Floats
    others: Floats


def name_supports(cases: Sequence[Case], words: Words, common: Sequence[str]) -> NameScores:
    """Each named case's support for its true name, changed names and other seals' names."""
    rng = random.Random(SEED)
    named = [c for c in cases if c.truth not in STANDARD_RIMS]
    names = sorted({words.normalized(c.truth) for c in named})
    true, changed, others = [], [], []
    for case in named:
        name = words.normalized(case.truth)
        sources = case.seal.sources
        true.append(support(name, sources, words.forms).max())
        changed += [support(_changed(name, common, rng), sources, words.forms).max() for _ in range(CHANGED)]
        pool = [n for n in names if n != name]
        others += [support(n, sources, words.forms).max() for n in rng.sample(pool, min(OTHERS, len(pool)))]
    return NameScores(np.array(true), np.array(changed), np.array(others))


def reliability(cases: Sequence[Case], params: TrustParams) -> list[str]:
    """The reliability table: per score band, the rims there and the share read exactly."""
    scored = [(rim_score(c.seal.reading.evidence, params), c.exact) for c in cases if c.seal.reading.evidence]
    scores = np.array([score for score, _ in scored])
    exact = np.array([hit for _, hit in scored])
    rows = ["| rim score | rims | exact | share exact |", "|---|---|---|---|"]
    for low, top in zip(BANDS, BANDS[1:], strict=False):
        band = (scores >= low) & (scores < top)
        share = f"{exact[band].mean():.3f}" if band.any() else "-"
        rows.append(f"| {low:.2f}-{min(top, 1.0):.2f} | {band.sum()} | {exact[band].sum()} | {share} |")
    sure = scores >= 0.9
    rate = f"{exact[sure].mean():.3f}" if sure.any() else "-"
    rows.append(f"| **at least 0.90** | {sure.sum()} of {len(scored)} | {exact[sure].sum()} | {rate} |")
    return rows


def name_rates(cases: Sequence[Case], words: Words, common: Sequence[str], config: SealConfig) -> list[str]:
    """The share of true, changed and other names found by the served scores."""
    rng = random.Random(SEED + 1)
    named = [c for c in cases if c.truth not in STANDARD_RIMS]
    names = sorted({words.normalized(c.truth) for c in named})
    found: dict[str, list[bool]] = {
        "true name": [],
        "one character changed": [],
        "another organisation's name": [],
    }
    threshold = config.trust.found_score
    for case in named:
        name = words.normalized(case.truth)
        found["true name"].append(name_score(name, case.seal, words, config.trust) >= threshold)
        for _ in range(CHANGED):
            score = name_score(_changed(name, common, rng), case.seal, words, config.trust)
            found["one character changed"].append(score >= threshold)
        pool = [n for n in names if n != name]
        for other in rng.sample(pool, min(OTHERS, len(pool))):
            found["another organisation's name"].append(
                name_score(other, case.seal, words, config.trust) >= threshold
            )
    misread = [c for c in named if not c.exact]
    rows = ["| name | seals | found |", "|---|---|---|"]
    rows += [f"| {kind} | {len(hits)} | {np.mean(hits):.3f} |" for kind, hits in found.items()]
    hits = [name_score(words.normalized(c.truth), c.seal, words, config.trust) >= threshold for c in misread]
    share = np.mean(hits) if hits else float("nan")
    rows.append(f"| true name of a seal whose rim reads wrong | {len(misread)} | {share:.3f} |")
    return rows


def fit(reader: InProcessSeal) -> tuple[SealConfig, list[Case]]:
    """Fit the rim model and the name threshold on the tuning part; print them."""
    cases = tuning_cases(reader)
    exact = np.array([c.exact for c in cases], np.float64)
    w = fit_logistic(features(cases), exact, RIDGE)
    names = name_supports(cases, reader.words, common_characters())
    threshold = float(np.quantile(names.changed, 1.0 - CHANGED_FOUND))
    _say(f"tuning part and perturbations: {len(cases)} rims, {int(exact.sum())} exact")
    weights = zip(("intercept", "agreement_weight", "length_weight"), w, strict=True)
    _say("  " + " ".join(f"{name}={value:.3f}" for name, value in weights))
    left_out = left_out_scores(cases)
    loss = -np.mean(exact * np.log(left_out + 1e-9) + (1 - exact) * np.log(1 - left_out + 1e-9))
    sure = left_out >= 0.9
    _say(
        f"  each seal left out: log loss {loss:.3f}; scored 0.9 or more {int(sure.sum())},"
        f" of them exact {exact[sure].mean() if sure.any() else float('nan'):.3f}"
    )
    _say(
        f"  names: true {len(names.true)}, changed {len(names.changed)}, other {len(names.others)};"
        f" name_support={threshold:.2f} (changed found there: {np.mean(names.changed >= threshold):.3f},"
        f" true {np.mean(names.true >= threshold):.3f}, other {np.mean(names.others >= threshold):.3f})"
    )
    params = reader.config.trust
    fitted = replace(
        params,
        intercept=float(w[0]),
        agreement_weight=float(w[1]),
        length_weight=float(w[2]),
        name_support=threshold,
    )
    return replace(reader.config, trust=fitted), cases


def main() -> None:
    """Command line: fit on the tuning part; with --heldout, report the served scores there."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--heldout", action="store_true", help="report the served scores on the held-out part"
    )
    parser.add_argument("--write", type=Path, help="write the held-out report as Markdown here")
    args = parser.parse_args()
    reader = InProcessSeal()
    fitted, cases = fit(reader)
    _say("\n".join(["", "tuning part, scores as fitted:", *reliability(cases, fitted.trust)]))
    if not args.heldout:
        return
    common = common_characters()
    lines = [
        "# Seal reader: scores that mean what they say",
        "",
        "Written by `.venv/bin/python -m evaluation.seal.trust --heldout --write docs/seal/trust.md`:",
        "the served scores (`TrustParams`, fitted on the real tuning parts, seals-dev's with its",
        "perturbations and the corpus's) on the real held-out parts, never tuned on. Round and oval",
        "seals found with a known rim.",
    ]
    for title, heldout in heldout_parts(reader).items():
        lines += [
            "",
            f"## {title}: rim scores",
            "",
            *reliability(heldout, reader.config.trust),
            "",
            f"## {title}: expected names",
            "",
            *name_rates(heldout, reader.words, common, reader.config),
        ]
    _say("\n".join(lines))
    if args.write:
        args.write.write_text("\n".join(lines) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
