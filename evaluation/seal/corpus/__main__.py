"""The corpus's command line: fetch the images, draw the split, check and count the manifest.

.venv/bin/python -m evaluation.seal.corpus fetch [--mirrors DIR] [--clone]
.venv/bin/python -m evaluation.seal.corpus split --seed N     # once, before any reading
.venv/bin/python -m evaluation.seal.corpus check              # hidden sources, boxes, repeats
.venv/bin/python -m evaluation.seal.corpus stats              # counts by part and class
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

from evaluation.seal.corpus import (
    MANIFEST,
    MIRRORS,
    Entry,
    draw_split,
    entries,
    fetch,
    manifest,
    problems,
    side_of,
)
from evaluation.seal.dataset import HELDOUT, TUNING

HIDDEN = Path(__file__).resolve().parents[4] / "shared" / "datasets" / "hidden-sources.txt"


def _say(line: str) -> None:
    print(line)  # noqa: T201 - this is a command-line report


def _fetch(args: argparse.Namespace) -> int:
    outcome = fetch(args.mirrors, args.clone)
    _say(", ".join(f"{count} {what}" for what, count in sorted(outcome.items())))
    return 0 if not outcome["missing"] + outcome["sha256 mismatch"] else 1


def _split(args: argparse.Namespace) -> int:
    if manifest().get("split", {}).get(HELDOUT) and not args.redraw:
        _say("the split is drawn already: repositories added since fall on their hashed side (side_of)")
        return 1
    totals: Counter[str] = Counter()
    for entry in entries():
        totals[entry.repo] += len(entry.seals)
    data = manifest() | {"split": draw_split(dict(totals), args.seed)}
    MANIFEST.write_text(json.dumps(data, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    _say(f"split drawn with seed {args.seed}: {len(data['split'][HELDOUT])} repositories held out")
    return 0


def _check(args: argparse.Namespace) -> int:
    hidden = HIDDEN.read_text(encoding="utf-8").splitlines() if HIDDEN.is_file() else []
    found = problems(hidden)
    for problem in found:
        _say(problem)
    _say(f"{len(found)} problems in {len(entries())} images")
    return 1 if found else 0


def _classes(chosen: list[Entry]) -> dict[str, Counter[str]]:
    """Seal counts by each way of classing a seal."""
    pairs = [(entry, seal) for entry in chosen for seal in entry.seals]
    with_rim = [(entry, seal) for entry, seal in pairs if seal.get("rim_text") is not None]
    return {
        "document": Counter(str(e.record.get("doc_kind")) for e, _ in pairs),
        "capture": Counter(str(e.record.get("capture")) for e, _ in pairs),
        "shape": Counter(str(s["shape"]) for _, s in pairs),
        "over print": Counter("over print" if s.get("over_print") else "clear" for _, s in pairs),
        "rim text from": Counter(str(s.get("label_source")) for _, s in with_rim),
        "second reading": Counter(str(s.get("second_reading")) for _, s in with_rim),
    }


def _totals(side: str, chosen: list[Entry]) -> str:
    seals = [seal for entry in chosen for seal in entry.seals]
    read = sum(seal.get("rim_text") is not None for seal in seals)
    repos, empty = len({entry.repo for entry in chosen}), sum(not entry.seals for entry in chosen)
    return f"| {side} | {len(chosen)} | {repos} | {len(seals)} | {read} | {empty} |"


def stats_lines() -> list[str]:
    """docs/seal/corpus-stats.md's lines: the parts' totals and their seals by class."""
    split = manifest()["split"]
    parts = {side: [e for e in entries() if side_of(e.repo, split) == side] for side in (TUNING, HELDOUT)}
    lines = [
        "# The real seal corpus in numbers",
        "",
        "Written by `.venv/bin/python -m evaluation.seal.corpus stats --write docs/seal/corpus-stats.md`",
        "from the manifest (evaluation/seal/corpus/corpus.json): do not edit by hand.",
        "",
        "| part | images | repositories | seals | with a rim text | pages without a seal |",
        "|---|---|---|---|---|---|",
        *(_totals(side, chosen) for side, chosen in parts.items()),
        "",
        "Seals by class (rim text from and second reading: seals with a rim text):",
        "",
        "| class | | tuning | heldout |",
        "|---|---|---|---|",
    ]
    counted = {side: _classes(chosen) for side, chosen in parts.items()}
    for name in counted[TUNING]:
        values = sorted(set(counted[TUNING][name]) | set(counted[HELDOUT][name]))
        lines += [
            f"| {name} | {v} | {counted[TUNING][name][v]} | {counted[HELDOUT][name][v]} |" for v in values
        ]
    return lines


def _stats(args: argparse.Namespace) -> int:
    lines = stats_lines()
    _say("\n".join(lines))
    if args.write:
        args.write.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return 0


def main() -> int:
    """Command line: see the module docstring."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    fetching = commands.add_parser("fetch", help="assemble the image cache, checking every sha256")
    fetching.add_argument("--mirrors", type=Path, default=MIRRORS, help="<owner>+<name>/repo git dirs")
    fetching.add_argument("--clone", action="store_true", help="clone repositories without a mirror")
    drawing = commands.add_parser("split", help="draw the split by repository (once)")
    drawing.add_argument("--seed", type=int, required=True)
    drawing.add_argument("--redraw", action="store_true", help="draw again (only before any reading)")
    commands.add_parser("check", help="hidden sources, repeated images, boxes outside the image")
    counting = commands.add_parser("stats", help="counts by part and class")
    counting.add_argument("--write", type=Path, help="write the counts as Markdown here")
    args = parser.parse_args()
    run = {"fetch": _fetch, "split": _split, "check": _check, "stats": _stats}[args.command]
    return run(args)


if __name__ == "__main__":
    sys.exit(main())
