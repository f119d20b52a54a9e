"""The seal figures as Markdown: one row a set, written by `python -m evaluation.seal --write`.

The documents quote figures from this file only, so a figure always comes with the command
that measured it and the day it was measured.
"""

from __future__ import annotations

import datetime
import shlex
import sys
from collections.abc import Sequence
from pathlib import Path

from evaluation.seal.misses import STAGES, by_class, misses, stage_counts
from evaluation.seal.scoring import ELLIPTIC, PageResult, Summary, wilson_interval

HEADER = (
    "| set | rim exact (95% interval) | CER | recall | inner lines | codes | false seals |",
    "|---|---|---|---|---|---|---|",
)


def row(title: str, summary: Summary) -> str:
    """One set's figures as a table row (round and oval seals; recall counts every seal)."""
    low, high = wilson_interval(summary.exact, summary.rims)
    return (
        f"| {title} | {summary.exact}/{summary.rims} = {summary.exact_rate:.3f} ({low:.2f}-{high:.2f})"
        f" | {100 * summary.cer:.1f}% | {summary.recall:.3f}"
        f" | {summary.inner[0]}/{summary.inner[1]} | {summary.codes[0]}/{summary.codes[1]}"
        f" | {summary.false_seals} ({summary.false_on_empty} on {summary.empty_pages} pages without a seal) |"
    )


def _class_rows(summaries: dict[str, Summary]) -> list[str]:
    rows = []
    for value, summary in summaries.items():
        low, high = wilson_interval(summary.exact, summary.rims)
        rows.append(
            f"| {value} | {summary.seals} | {summary.recall:.3f} | {summary.exact}/{summary.rims}"
            f" ({low:.2f}-{high:.2f}) | {100 * summary.cer:.1f}% |"
        )
    return rows


def class_sections(parts: dict[str, list[PageResult]]) -> list[str]:
    """Markdown for the corpus's parts: figures by class (every shape's rims), misses by the
    class of stage that fails, and the tuning part's misses one by one (the held-out part's are
    counted, never listed: nothing is tuned on it)."""
    lines: list[str] = []
    for label, results in parts.items():
        title = label.strip("*")
        for name, summaries in by_class(results).items():
            lines += [
                "",
                f"### {title}, by {name}",
                "",
                "| class | seals | recall | rims exact (95%) | CER |",
            ]
            lines += ["|---|---|---|---|---|", *_class_rows(summaries)]
    if parts:
        lines += [
            "",
            "### Misses by class",
            "",
            "| class | " + " | ".join(part.strip("*") for part in parts) + " |",
        ]
        lines += ["|---|" + "---|" * len(parts)]
        counts = {label: stage_counts(results) for label, results in parts.items()}
        lines += [
            f"| {stage} | " + " | ".join(str(counts[part][stage]) for part in parts) + " |"
            for stage in STAGES
        ]
    for label, results in parts.items():
        if "held-out" not in label:
            lines += ["", f"### {label.strip('*')}: each miss", ""]
            lines += [f"- {stage}: {text}" for stage, text in sorted(misses(results))]
    return lines


def write(
    path: Path,
    rows: Sequence[tuple[str, Summary]],
    sections: Sequence[str] = (),
    argv: Sequence[str] = sys.argv,
) -> None:
    """The figures file: how it was made, then the table."""
    command = shlex.join([".venv/bin/python", "-m", "evaluation.seal", *argv[1:]])
    lines = [
        "# Seal reader figures",
        "",
        f"Written by `{command}` on {datetime.date.today().isoformat()}: do not edit by hand.",
        "Round and oval seals whose rim text is known; recall counts every seal. The real held-out",
        "part is never tuned on. Sets and scoring: [README.md](README.md#measuring).",
        "",
        *HEADER,
        *(row(title, summary) for title, summary in rows),
        *sections,
    ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def outcomes(results: Sequence[PageResult]) -> dict[str, dict[str, object]]:
    """Each round or oval seal with a known rim, by page and index: exact or not, and its edits
    (what `compare` pairs between two runs)."""
    found: dict[str, dict[str, object]] = {}
    for result in results:
        for index, seal in enumerate(result.seals):
            if seal.truth.shape in ELLIPTIC and seal.truth.rim_text is not None:
                key = f"{result.page.name} #{index}"
                found[key] = {"exact": seal.distance == 0, "edits": seal.distance, "read": seal.read}
    return found
