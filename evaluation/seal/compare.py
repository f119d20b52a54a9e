"""EVALUATION: two runs of the seal harness compared seal by seal, with a paired test.

    .venv/bin/python -m evaluation.seal --heldout --perturb --seed 3000 7000 8000 --save before.json
    ... the change ...
    .venv/bin/python -m evaluation.seal --heldout --perturb --seed 3000 7000 8000 --save after.json
    .venv/bin/python -m evaluation.seal.compare before.json after.json

Both runs read the same seals, so a change is judged on the seals whose outcome it changed:
the rims it put right (fixed) and those it broke. Under no real effect the two are equally
likely, and McNemar's exact test (a two-sided binomial on the changed seals) says how
surprising the split is. The rule for keeping a change (docs/seal/README.md): it breaks no
rim of the real held-out part and raises no CER there, and on the pooled tuning sets (the real
tuning part and its perturbations) or the pooled generated seeds it fixes more than it breaks
with p < 0.05.
"""

from __future__ import annotations

import argparse
import json
import math
from collections.abc import Mapping
from pathlib import Path

Outcomes = dict[str, dict[str, dict[str, object]]]  # set -> seal key -> outcome


def mcnemar(fixed: int, broken: int) -> float:
    """Two-sided exact McNemar p-value: the binomial probability of a split at least as uneven
    as `fixed` against `broken` among the changed seals, at even odds."""
    changed = fixed + broken
    if changed == 0:
        return 1.0
    low = min(fixed, broken)
    tail: float = sum(math.comb(changed, k) for k in range(low + 1)) / 2**changed
    return min(1.0, 2.0 * tail)


def _paired(
    before: Mapping[str, dict[str, object]], after: Mapping[str, dict[str, object]]
) -> tuple[int, int, int, int, int]:
    """(seals in both, fixed, broken, edits before, edits after) over the seals of one set."""
    keys = sorted(before.keys() & after.keys())
    fixed = sum(1 for k in keys if not before[k]["exact"] and after[k]["exact"])
    broken = sum(1 for k in keys if before[k]["exact"] and not after[k]["exact"])
    edits = (sum(int(str(before[k]["edits"])) for k in keys), sum(int(str(after[k]["edits"])) for k in keys))
    return len(keys), fixed, broken, *edits


def _group(name: str) -> str:
    if "held-out" in name:
        return "real held-out"
    return "real tuning (pooled)" if name.startswith("real tuning") else "generated (pooled)"


def report(before: Outcomes, after: Outcomes) -> list[str]:
    """One line a set, then the pooled groups, each with McNemar's p."""
    lines: list[str] = []
    pooled: dict[str, list[int]] = {}
    for name in before.keys() & after.keys():
        seals, fixed, broken, edits_before, edits_after = _paired(before[name], after[name])
        total = pooled.setdefault(_group(name), [0, 0, 0, 0, 0])
        for i, value in enumerate((seals, fixed, broken, edits_before, edits_after)):
            total[i] += value
        lines.append(_line(name, seals, fixed, broken, edits_before, edits_after))
    lines.append("")
    lines += [_line(f"[{group}]", *totals) for group, totals in sorted(pooled.items())]
    return lines


def _line(name: str, seals: int, fixed: int, broken: int, edits_before: int, edits_after: int) -> str:
    return (
        f"{name}: {seals} rims, fixed {fixed}, broken {broken} (McNemar p = {mcnemar(fixed, broken):.3f}),"
        f" edits {edits_before} -> {edits_after}"
    )


def main() -> None:
    """Command line: compare two `--save` files of the seal harness."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("before", type=Path)
    parser.add_argument("after", type=Path)
    args = parser.parse_args()
    before, after = (json.loads(path.read_text(encoding="utf-8")) for path in (args.before, args.after))
    print("\n".join(report(before, after)))  # noqa: T201 - a command-line report


if __name__ == "__main__":
    main()
