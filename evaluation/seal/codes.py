"""The codes' score (`trust.lines.code_score`: does a code answered read exactly?), fitted and
reported, alone where asked (`python -m evaluation.seal.trust --codes`).

A code case (`cases.CodeCase`) is every code answered on a found seal whose inside is labelled
(its inner lines or codes), on the real tuning parts and seals-dev's perturbations: exact where
it is one of the seal's true codes. Only pages with such a seal give code cases, so the codes
alone are fitted and reported on those pages only (`labelled`), a fraction of every page the
other scores need; `with_section` puts their tables into the report the full command writes.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
from imgproc.arrays import Floats
from imgproc.seal.trust import TrustParams
from imgproc.seal.trust.lines import code_inputs, code_score

from evaluation.seal.cases import CodeCase, cached, read_cases
from evaluation.seal.corpus import CorpusMissing, corpus_pages
from evaluation.seal.dataset import HELDOUT, TUNING, TruthPage, seals_dev_pages
from evaluation.seal.lines import fit_score
from evaluation.seal.logistic import MEANINGS, MEANINGS_PART, reliability_rows, sure_figure
from evaluation.seal.perturb import PERTURBATIONS, perturbed_pages

if TYPE_CHECKING:  # the reader's type only: the unit tests of codes run without ONNX Runtime
    from evaluation.seal.inprocess import InProcessSeal

CODE_HEADER = "| code score | codes | exact | share exact |"


def labelled(pages: Iterable[TruthPage]) -> list[TruthPage]:
    """The pages with a seal whose inside is labelled: the only ones that give code cases."""
    return [page for page in pages if any(seal.codes or seal.inner_texts for seal in page.seals)]


def _code_inputs(cases: Sequence[CodeCase]) -> Floats:
    return np.array([code_inputs(c.code, c.confidence) for c in cases], np.float64).reshape(-1, 2)


def fit_codes(cases: Sequence[CodeCase], say: Callable[[str], None]) -> tuple[float, ...]:
    """The code score's weights (intercept first), with the ridge that leaves groups out best."""
    exact = np.array([c.exact for c in cases], np.float64)
    groups = sorted({c.group for c in cases})
    say(f"codes: {len(cases)} in {len(groups)} groups, {int(exact.sum())} exact")
    raw = np.array([c.confidence for c in cases])
    return fit_score("code_weights", _code_inputs(cases), exact, [c.group for c in cases], raw, say)


def code_scored(cases: Sequence[CodeCase], params: TrustParams) -> tuple[list[float], list[bool]]:
    """Each code's served score, and whether it is exact."""
    return [code_score(c.code, c.confidence, params) for c in cases], [c.exact for c in cases]


def code_report(cases: Sequence[CodeCase], params: TrustParams) -> list[str]:
    """Markdown: the reliability table of codes' scores."""
    return reliability_rows(*code_scored(cases, params), CODE_HEADER)


def with_section(report: str, heading: str, body: Sequence[str], after: str) -> str:
    """`report` (Markdown) with the section `heading` holding `body`: in its place where it is
    there, else after the section `after`, else at the end."""
    section = "\n".join([heading, "", *body]) + "\n"
    if heading in report:
        start = report.index(heading)
        end = _section_end(report, start)
    elif after in report:
        start = end = _section_end(report, report.index(after))
    else:
        start = end = len(report)
    before, rest = report[:start], report[end:]
    return before.rstrip("\n") + "\n\n" + section + ("\n" + rest if rest else "")


def _section_end(report: str, start: int) -> int:
    """Where the section starting at `start` ends: at the next heading, or the end."""
    following = report.find("\n## ", start + 1)
    return len(report) if following < 0 else following + 1


def tuning_code_cases(reader: InProcessSeal) -> list[CodeCase]:
    """The code cases of the tuning parts (`tuning_cases`'), reading only the pages that give
    any (`codes.labelled`)."""
    tuning = labelled(seals_dev_pages(frozenset({TUNING})))
    cases = read_cases(tuning, reader).codes
    for name in PERTURBATIONS:
        cases += read_cases(perturbed_pages(tuning, name), reader).codes
    try:
        cases += read_cases(labelled(corpus_pages(frozenset({TUNING}))), reader).codes
    except CorpusMissing as missing:
        _say(f"fitted without the real seal corpus: {missing}")
    return cases


def heldout_code_cases(reader: InProcessSeal) -> dict[str, list[CodeCase]]:
    """The code cases of the held-out parts (`heldout_parts`'), reading only the pages that
    give any."""
    parts = {}
    try:
        parts[MEANINGS_PART] = read_cases(labelled(corpus_pages(frozenset({HELDOUT}))), reader).codes
    except CorpusMissing as missing:
        _say(f"the corpus's held-out part is left out: {missing}")
    parts["seals-dev held-out"] = read_cases(labelled(seals_dev_pages(frozenset({HELDOUT}))), reader).codes
    return parts


def codes_alone(reader: InProcessSeal, args: argparse.Namespace) -> None:
    """`python -m evaluation.seal.trust --codes`: the code score fitted on the tuning parts
    (printed), and with `--heldout` its reliability tables on the held-out parts, put into the
    report `--write` names (and the code's meaning into MEANINGS), the rest of it as it was."""
    write: Path | None = args.write
    if not args.no_fit:
        tuning = cached(lambda: tuning_code_cases(reader), args.cases)
        weights = fit_codes(tuning, _say)
        _say("\n".join(code_report(tuning, replace(reader.config.trust, code_weights=weights))))
    if not args.heldout:
        return
    parts = cached(lambda: heldout_code_cases(reader), args.heldout_cases)
    report = write.read_text(encoding="utf-8") if write else ""
    for title, heldout in parts.items():
        table = code_report(heldout, reader.config.trust)
        _say("\n".join([f"## {title}: code scores", "", *table]))
        report = with_section(report, f"## {title}: code scores", table, f"## {title}: line scores")
    if write:
        write.write_text(report, encoding="utf-8")
        if MEANINGS_PART in parts:
            said = json.loads(MEANINGS.read_text(encoding="utf-8"))
            said["code"] = sure_figure(*code_scored(parts[MEANINGS_PART], reader.config.trust)).json()
            MEANINGS.write_text(json.dumps(said, indent=2) + "\n", encoding="utf-8")


def _say(line: str) -> None:
    print(line)  # noqa: T201 - a command-line report
