"""The codes' score (`trust.lines.code_score`: does a code answered read exactly?), fitted and
reported, alone where asked (`python -m evaluation.seal.trust --codes`).

A code case (`cases.CodeCase`) is every code answered on a found seal whose inside is labelled
(its inner lines or codes), on the real tuning parts and seals-dev's perturbations: exact where
it is one of the seal's true codes. Only pages with such a seal give code cases, so the codes
alone are fitted and reported on those pages only (`labelled`), a fraction of every page the
other scores need; `with_section` puts their tables into the report the full command writes.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

import numpy as np
from imgproc.arrays import Floats
from imgproc.seal.trust import TrustParams
from imgproc.seal.trust.lines import code_inputs, code_score

from evaluation.seal.cases import CodeCase
from evaluation.seal.dataset import TruthPage
from evaluation.seal.lines import fit_score
from evaluation.seal.logistic import reliability_rows

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
