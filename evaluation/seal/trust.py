"""EVALUATION: are the seal reader's scores what they say? Fits them on the real tuning part,
reports them on the held-out part.

    .venv/bin/python -m evaluation.seal.trust                       # fit on the tuning part, print
    .venv/bin/python -m evaluation.seal.trust --cases /tmp/tuning.pkl   # the same, reading it once
    .venv/bin/python -m evaluation.seal.trust --heldout --no-fit --write docs/seal/trust.md
    .venv/bin/python -m evaluation.seal.trust --codes --heldout --write docs/seal/trust.md  # codes alone

Every round or oval seal found with a known rim, on the real tuning part and its six
perturbations, gives its rim's evidence (`trust.evidence.score_inputs`: agreement, length,
ending, standard text, words, support) and whether it reads exactly; a logistic model of
exactness on the evidence is fitted there (Newton's method, the ridge that leaves groups out
best), with what each input is worth, and printed as `TrustParams` fields. Names: each seal's
true rim, the same with one character changed to a common character (`CHANGED` of them), the
same with one character inside it left out and with one common character inserted (`CHANGED` of
each), and other seals' names (`OTHERS`), scored on the seal's frames
(`trust.evidence.support`); the name threshold is the support that at most `CHANGED_FOUND` of
the changed names reach there, for the served `TrustParams.name_sure` (the fit prints the
others of `SURE_TRIED` beside it). With `--heldout`, the scores the served configuration gives
(fitted values pasted in) are reported on the held-out part, never tuned on: the reliability
table (score band, rims, share exact) and the share of true, changed and other names found, as
totals only. Seals whose rim is the invoice supervision seal's standard text (`STANDARD_RIMS`)
are counted in the rims but not among the names: nobody verifies a supervision seal by name,
and its rim is restored, not read. The seal score (`evaluation.seal.regions`: every found
region, real or not) and the scores of lines read straight (`evaluation.seal.lines`: inner
lines, rectangles' main texts) are fitted and reported beside them.
"""

from __future__ import annotations

import argparse
import json
import random
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np
from imgproc.arrays import Floats
from imgproc.seal.config import SealConfig
from imgproc.seal.trust import TrustParams
from imgproc.seal.trust.evidence import char_table, costliest, rim_score, score_inputs, table_support
from imgproc.seal.trust.verify import name_score
from imgproc.seal.words import STANDARD_RIMS, Words

from evaluation.seal.cases import Case, Cases, cached, read_cases
from evaluation.seal.codes import code_report, code_scored, codes_alone, fit_codes
from evaluation.seal.corpus import CorpusMissing, corpus_pages
from evaluation.seal.dataset import HELDOUT, TUNING, TruthPage, seals_dev_pages, with_blanked
from evaluation.seal.inprocess import InProcessSeal
from evaluation.seal.lines import LineCase, fit_lines, line_cases, line_report, line_scored
from evaluation.seal.logistic import (
    MEANINGS,
    MEANINGS_PART,
    fit_logistic,
    least_loss_ridge,
    left_out,
    log_loss,
    reliability_rows,
    sure_figure,
)
from evaluation.seal.perturb import PERTURBATIONS, perturbed_pages
from evaluation.seal.regions import fit_regions, region_report, region_scored
from evaluation.seal.scoring import wilson_interval

CHANGED, OTHERS = 4, 4  # names scored per seal besides its own
# `trust.evidence.score_inputs`, in order: named where the fit says what each is worth.
RIM_INPUTS = ("agreement", "log length", "ends as a name", "standard rim", "words cover", "support")
CHANGED_FOUND = 0.01  # of the changed names at most this share may reach the threshold (tuning part)
RIM_HEADER = "| rim score | rims | exact | share exact |"
SEED = 0  # of the changed names' draws
# `TrustParams.name_sure` values whose name thresholds and rates the fit prints beside the served one's.
SURE_TRIED: tuple[float | None, ...] = (None, 0.1, 0.3, 0.5, 0.9)
# `TrustParams.name_worst` values the fit chooses among (1: the support as it is).
NAME_WORST_TRIED: tuple[float, ...] = (1.0, 1.5, 2.0, 3.0)
NAME_KINDS = ("true", "changed", "dropped", "inserted", "other")  # `NameScores`' fields, in order


def _say(line: str) -> None:
    print(line)  # noqa: T201 - a command-line report


def tuning_cases(reader: InProcessSeal) -> Cases:
    """Seals-dev's tuning part (each page, then it without its seals) and its perturbations, and
    the corpus's tuning part likewise where its image cache is there (said when it is not)."""
    tuning = list(with_blanked(seals_dev_pages(frozenset({TUNING}))))
    cases = read_cases(tuning, reader)
    for name in PERTURBATIONS:
        perturbed = read_cases(perturbed_pages(tuning, name), reader)
        cases.rims += perturbed.rims
        cases.codes += perturbed.codes
    try:
        cases += read_cases(with_blanked(corpus_pages(frozenset({TUNING}))), reader)
    except CorpusMissing as missing:
        _say(f"fitted without the real seal corpus: {missing}")
    return cases


def tuning_truth() -> list[TruthPage]:
    """The real tuning parts' pages with seals (seals-dev's, and the corpus's where it is there):
    the truth the line cases are matched to."""
    pages = list(seals_dev_pages(frozenset({TUNING})))
    try:
        pages += corpus_pages(frozenset({TUNING}))
    except CorpusMissing:
        pass  # said when the cases were read
    return pages


def heldout_parts(reader: InProcessSeal) -> dict[str, tuple[Cases, list[LineCase]]]:
    """The held-out parts, each never tuned on: the corpus's (where its cache is) and seals-dev's,
    each as region and rim cases and as line cases."""
    parts = {}
    try:
        pages = list(corpus_pages(frozenset({HELDOUT})))
        cases = read_cases(with_blanked(pages), reader)
        parts["corpus held-out"] = (cases, line_cases(cases.regions, pages))
    except CorpusMissing as missing:
        _say(f"the corpus's held-out part is left out: {missing}")
    pages = list(seals_dev_pages(frozenset({HELDOUT})))
    cases = read_cases(with_blanked(pages), reader)
    parts["seals-dev held-out"] = (cases, line_cases(cases.regions, pages))
    return parts


def features(cases: Sequence[Case]) -> Floats:
    """Each case's rim evidence as the model's inputs (`trust.evidence.score_inputs`)."""
    rows = []
    for case in cases:
        evidence = case.seal.reading.evidence
        assert evidence is not None  # round and oval seals with a rim
        rows.append(score_inputs(evidence))
    return np.array(rows, np.float64)


def inputs_dropped(x: Floats, exact: Floats, groups: list[str], ridge: float) -> str:
    """The left-out log loss without each input in turn (`RIM_INPUTS`): what each one is worth."""
    losses = []
    for i, name in enumerate(RIM_INPUTS):
        kept = np.delete(x, i, axis=1)
        losses.append(f"{name} {log_loss(left_out(kept, exact, groups, ridge), exact):.3f}")
    return ", ".join(losses)


def _changed(name: str, common: Sequence[str], rng: random.Random) -> str:
    i = rng.randrange(len(name))
    char = rng.choice([c for c in common if c != name[i]])
    return name[:i] + char + name[i + 1 :]


def _dropped(name: str, rng: random.Random) -> str:
    """`name` with one character inside it left out (not its first or last: on a ring a name
    read from any start that lacks its end is a part of the rim, which no path can tell)."""
    i = rng.randrange(1, len(name) - 1)
    return name[:i] + name[i + 1 :]


def _inserted(name: str, common: Sequence[str], rng: random.Random) -> str:
    i = rng.randrange(1, len(name))
    return name[:i] + rng.choice(common) + name[i:]


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
    """Supports of true, changed, dropped (one character inside left out), inserted and other
    names over the cases that carry a name, and the groups of the true and changed names."""

    true: Floats
    changed: Floats
    dropped: Floats
    inserted: Floats
    others: Floats
    true_groups: tuple[str, ...] = ()
    changed_groups: tuple[str, ...] = ()

    def line(self, threshold: float) -> str:
        """The share of each kind at `threshold` or more."""
        values = (self.true, self.changed, self.dropped, self.inserted, self.others)
        shares = (np.mean(v >= threshold) for v in values)
        return ", ".join(f"{k} {share:.3f}" for k, share in zip(NAME_KINDS, shares, strict=True))

    def left_out(self) -> int:
        """The true names found with each group left out: at the support at most `CHANGED_FOUND`
        of the other groups' changed names reach."""
        changed_groups = np.array(self.changed_groups)
        found = 0
        for group in set(self.true_groups):
            level = np.quantile(self.changed[changed_groups != group], 1.0 - CHANGED_FOUND)
            found += sum(
                support >= level for support, g in zip(self.true, self.true_groups, strict=True) if g == group
            )
        return int(found)


def name_supports(
    cases: Sequence[Case], words: Words, common: Sequence[str], sure: float | None, worsts: Sequence[float]
) -> dict[float, NameScores]:
    """Each named case's support for its true name, changed, dropped and inserted names and
    other seals' names (`sure`: `TrustParams.name_sure`), for each of `worsts` (`name_worst`)."""
    rng = random.Random(SEED)
    named = [c for c in cases if c.truth not in STANDARD_RIMS]
    names = sorted({words.normalized(c.truth) for c in named})
    kinds: dict[str, list[tuple[Floats, Floats]]] = {kind: [] for kind in NAME_KINDS}
    true_groups, changed_groups = [], []
    for case in named:
        name = words.normalized(case.truth)

        def best(kind: str, text: str, case: Case = case) -> None:
            table = char_table(case.seal.sources, [text], words.forms, sure)
            if set(worsts) == {1.0}:  # the costliest character is not needed: no Viterbi for it
                spotted = table_support(table, text)
                kinds[kind].append((spotted, np.zeros_like(spotted)))
            else:
                kinds[kind].append(costliest(table, text))

        best("true", name)
        true_groups.append(case.group)
        for _ in range(CHANGED):
            best("changed", _changed(name, common, rng))
            changed_groups.append(case.group)
        if len(name) >= 3:
            for _ in range(CHANGED):
                best("dropped", _dropped(name, rng))
        for _ in range(CHANGED):
            best("inserted", _inserted(name, common, rng))
        pool = [n for n in names if n != name]
        for other in rng.sample(pool, min(OTHERS, len(pool))):
            best("other", other)

    def weighted(kind: str, worst: float) -> Floats:
        return np.array([(total + (worst - 1.0) * cost).max(initial=-np.inf) for total, cost in kinds[kind]])

    return {
        worst: NameScores(
            true=weighted("true", worst),
            changed=weighted("changed", worst),
            dropped=weighted("dropped", worst),
            inserted=weighted("inserted", worst),
            others=weighted("other", worst),
            true_groups=tuple(true_groups),
            changed_groups=tuple(changed_groups),
        )
        for worst in worsts
    }


def name_threshold(
    cases: Sequence[Case], words: Words, served: TrustParams
) -> tuple[NameScores, float, float]:
    """The supports of the names of `cases` at the served `name_sure`, the `name_worst` of
    `NAME_WORST_TRIED` that finds the most true names with each group left out, and the
    support at most `CHANGED_FOUND` of the changed names reach there; the same printed for each
    of `SURE_TRIED` (at the served `name_worst`)."""
    common = common_characters()
    for sure in dict.fromkeys(SURE_TRIED):
        if sure == served.name_sure:
            continue
        names = name_supports(cases, words, common, sure, [served.name_worst])[served.name_worst]
        level = float(np.quantile(names.changed, 1.0 - CHANGED_FOUND))
        _say(f"  name_sure={sure}: name_support={level:.2f}, found there: {names.line(level)}")
    tried = name_supports(cases, words, common, served.name_sure, NAME_WORST_TRIED)
    for worst, names in tried.items():
        level = float(np.quantile(names.changed, 1.0 - CHANGED_FOUND))
        _say(
            f"  name_sure={served.name_sure}, name_worst={worst}: name_support={level:.2f}, found there:"
            f" {names.line(level)}; true names found each group left out {names.left_out()}/{len(names.true)}"
        )
    chosen = max(tried, key=lambda worst: (tried[worst].left_out(), -worst))
    names = tried[chosen]
    return names, float(np.quantile(names.changed, 1.0 - CHANGED_FOUND)), chosen


def rim_scored(cases: Sequence[Case], params: TrustParams) -> tuple[list[float], list[bool]]:
    """Each rim's served score, and whether it reads exactly."""
    scored = [(rim_score(c.seal.reading.evidence, params), c.exact) for c in cases if c.seal.reading.evidence]
    return [score for score, _ in scored], [hit for _, hit in scored]


def reliability(cases: Sequence[Case], params: TrustParams) -> list[str]:
    """The reliability table: per score band, the rims there and the share read exactly."""
    return reliability_rows(*rim_scored(cases, params), RIM_HEADER)


def meanings(cases: Cases, lines: Sequence[LineCase], params: TrustParams) -> dict[str, dict[str, Any]]:
    """What a score of 0.9 or more means on a held-out part, for each score the answer carries
    (`gateway/routers/seal_scores.json`: the API's descriptions say it), and under what seal
    score a region is not answered (`least`; `textless`, where nothing was read in it)."""
    scored = {
        "rim": rim_scored(cases.rims, params),
        "inner_line": line_scored(lines, params, False),
        "main_text": line_scored(lines, params, True),
        "code": code_scored(cases.codes, params),
        "seal": region_scored(cases, params),
    }
    said = {name: sure_figure(*pair).json() for name, pair in scored.items()}
    said["seal"] |= {"least": params.min_seal_score, "textless": params.textless_seal_score}
    return said


def _share(hits: Sequence[bool]) -> str:
    low, high = wilson_interval(sum(hits), len(hits))
    return f"{np.mean(hits):.3f} ({low:.2f}-{high:.2f})" if hits else "-"


def name_rates(cases: Sequence[Case], words: Words, common: Sequence[str], config: SealConfig) -> list[str]:
    """The share of true, changed and other names found by the served scores."""
    rng, edits = random.Random(SEED + 1), random.Random(SEED + 2)
    named = [c for c in cases if c.truth not in STANDARD_RIMS]
    names = sorted({words.normalized(c.truth) for c in named})
    found: dict[str, list[bool]] = {
        "true name": [],
        "one character changed": [],
        "one character inside left out": [],
        "one character inserted": [],
        "another organisation's name": [],
    }
    threshold = config.trust.found_score
    for case in named:
        name = words.normalized(case.truth)
        found["true name"].append(name_score(name, case.seal, words, config.trust) >= threshold)
        for _ in range(CHANGED):
            score = name_score(_changed(name, common, rng), case.seal, words, config.trust)
            found["one character changed"].append(score >= threshold)
        # Drawn from their own generator, so the changed and other names stay those drawn before.
        for _ in range(CHANGED if len(name) >= 3 else 0):
            score = name_score(_dropped(name, edits), case.seal, words, config.trust)
            found["one character inside left out"].append(score >= threshold)
        for _ in range(CHANGED):
            score = name_score(_inserted(name, common, edits), case.seal, words, config.trust)
            found["one character inserted"].append(score >= threshold)
        pool = [n for n in names if n != name]
        for other in rng.sample(pool, min(OTHERS, len(pool))):
            found["another organisation's name"].append(
                name_score(other, case.seal, words, config.trust) >= threshold
            )
    misread = [c for c in named if not c.exact]
    rows = ["| name | seals | found (95% interval) |", "|---|---|---|"]
    rows += [f"| {kind} | {len(hits)} | {_share(hits)} |" for kind, hits in found.items()]
    hits = [name_score(words.normalized(c.truth), c.seal, words, config.trust) >= threshold for c in misread]
    rows.append(f"| true name of a seal whose rim reads wrong | {len(misread)} | {_share(hits)} |")
    return rows


def fit(reader: InProcessSeal, cache: Path | None = None) -> tuple[SealConfig, Cases]:
    """Fit the rim model, the name threshold and the seal score on the tuning parts; print them."""
    tuning = cached(lambda: tuning_cases(reader), cache)
    cases = tuning.rims
    exact = np.array([c.exact for c in cases], np.float64)
    x, groups = features(cases), [c.group for c in cases]
    ridge, losses = least_loss_ridge(x, exact, groups)
    w = fit_logistic(x, exact, ridge)
    names, threshold, worst = name_threshold(cases, reader.words, reader.config.trust)
    _say(f"tuning part and perturbations: {len(cases)} rims, {int(exact.sum())} exact")
    _say(f"  rim_weights=({', '.join(f'{value:.3f}' for value in w)})  # ridge {ridge}")
    _say(f"  each group left out, log loss by ridge { ({r: round(loss, 3) for r, loss in losses.items()}) }")
    _say(f"  each input taken out in turn, log loss: {inputs_dropped(x, exact, groups, ridge)}")
    scores = left_out(x, exact, groups, ridge)
    loss = log_loss(scores, exact)
    sure = scores >= 0.9
    _say(
        f"  each group left out: log loss {loss:.3f}; scored 0.9 or more {int(sure.sum())},"
        f" of them exact {exact[sure].mean() if sure.any() else float('nan'):.3f}"
    )
    _say(
        f"  names: true {len(names.true)}, changed {len(names.changed)}, other {len(names.others)};"
        f" name_worst={worst}, name_support={threshold:.2f} (found there: {names.line(threshold)})"
    )
    params = reader.config.trust
    regions = fit_regions(tuning.regions, tuning.empty_pages, _say)
    fitted = replace(
        params,
        rim_weights=tuple(float(value) for value in w),
        name_support=threshold,
        name_worst=worst,
        seal_weights=regions.weights,
        min_seal_score=regions.min_seal_score,
        line_weights=fit_lines(line_cases(tuning.regions, tuning_truth()), _say),
        code_weights=fit_codes(tuning.codes, _say),
    )
    return replace(reader.config, trust=fitted), tuning


def main() -> None:
    """Command line: fit on the tuning part; with --heldout, report the served scores there."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--heldout", action="store_true", help="report the served scores on the held-out part"
    )
    parser.add_argument("--write", type=Path, help="write the held-out report as Markdown here")
    parser.add_argument(
        "--no-fit", action="store_true", help="report the served scores only, without fitting"
    )
    parser.add_argument(
        "--cases", type=Path, help="keep the tuning part's cases in this file, and take them from it"
    )
    parser.add_argument(
        "--heldout-cases", type=Path, help="keep the held-out parts' cases here, and take them from it"
    )
    parser.add_argument(
        "--codes",
        action="store_true",
        help="the codes' score alone, on the pages that give codes (with --write: its sections only)",
    )
    args = parser.parse_args()
    reader = InProcessSeal()
    if args.codes:
        codes_alone(reader, args)
        return
    if not args.no_fit:
        fitted, tuning = fit(reader, args.cases)
        _say("\n".join(["", "tuning parts, scores as fitted:", *reliability(tuning.rims, fitted.trust)]))
        _say("\n".join(region_report(tuning, fitted.trust)))
        _say("\n".join(line_report(line_cases(tuning.regions, tuning_truth()), fitted.trust)))
        _say("\n".join(["", "Codes:", "", *code_report(tuning.codes, fitted.trust)]))
    if not args.heldout:
        return
    common = common_characters()
    lines = [
        "# Seal reader: scores that mean what they say",
        "",
        "Written by",
        "`.venv/bin/python -m evaluation.seal.trust --heldout --no-fit --write docs/seal/trust.md`:",
        "the served scores (`TrustParams`, fitted on the real tuning parts, seals-dev's with its",
        "perturbations and the corpus's, by `python -m evaluation.seal.trust`) on the real held-out",
        "parts, never tuned on. Rims: round and oval seals found with a known rim. Seal scores: every",
        "region found, on pages with seals and on the same pages with their seals painted out. Lines:",
        "inner lines answered on found seals whose lines are known, and rectangles' main texts. Codes:",
        "every code answered on a found seal whose inside is known (exact: one of its true codes).",
        "Expected names: each seal's true name, and four each of it with one character changed, with",
        "one character inside it left out, with one inserted, and other seals' names. A name that",
        "lacks the rim's first or last character is a part of the ring's text read from another",
        "start: it is found, and is not counted here.",
    ]
    parts = cached(lambda: heldout_parts(reader), args.heldout_cases)
    for title, (heldout, lines_read) in parts.items():
        lines += [
            "",
            f"## {title}: rim scores",
            "",
            *reliability(heldout.rims, reader.config.trust),
            "",
            f"## {title}: expected names",
            "",
            *name_rates(heldout.rims, reader.words, common, reader.config),
            "",
            f"## {title}: seal scores",
            "",
            *region_report(heldout, reader.config.trust),
            "",
            f"## {title}: line scores",
            "",
            *line_report(lines_read, reader.config.trust),
            "",
            f"## {title}: code scores",
            "",
            *code_report(heldout.codes, reader.config.trust),
        ]
    _say("\n".join(lines))
    if args.write:
        args.write.write_text("\n".join(lines) + "\n", encoding="utf-8")
        if MEANINGS_PART in parts:
            said = meanings(*parts[MEANINGS_PART], reader.config.trust)
            MEANINGS.write_text(json.dumps(said, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
