"""Every seal tunable has its reason beside it, and docs/seal/tunables.md is the table of them."""

from __future__ import annotations

import re
from pathlib import Path

from imgproc.seal.tunables import table, tunables

TABLE = Path(__file__).resolve().parents[2] / "docs" / "seal" / "tunables.md"


def test_every_tunable_has_a_reason() -> None:
    missing = [tunable.name for tunable in tunables() if not tunable.reason]
    assert missing == [], f"tunables without a reason (a comment beside or above the field): {missing}"


def test_the_written_table_is_up_to_date() -> None:
    assert TABLE.read_text(encoding="utf-8") == table(), (
        "docs/seal/tunables.md is out of date: run `python -m imgproc.seal.tunables docs/seal/tunables.md`"
    )


def test_a_shared_reason_is_the_one_above_it() -> None:
    listed = list(tunables())
    assert not listed[0].shared
    for before, tunable in zip(listed, listed[1:], strict=False):
        assert not tunable.shared or tunable.reason == before.reason


def test_what_was_tried_and_not_kept_is_no_tunable() -> None:
    """The tunables docs/seal/README.md says were tried and not kept (`repair.prior=names`) are
    not served: git keeps their code, the tree does not."""
    readme = (TABLE.parent / "README.md").read_text(encoding="utf-8")
    tried = readme.split("## Tried and not kept")[1].split("\n## ")[0]
    stages = {name.split(".")[0] for name in (tunable.name for tunable in tunables())}
    named = {
        name for name in re.findall(r"\b([a-z_]+(?:\.[a-z_]+)+)\b", tried) if name.split(".")[0] in stages
    }
    assert named, "the section names the tunables it tried"
    assert named.isdisjoint(tunable.name for tunable in tunables())
