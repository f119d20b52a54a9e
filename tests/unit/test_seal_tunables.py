"""Every seal tunable has its reason beside it, and docs/seal/tunables.md is the table of them."""

from __future__ import annotations

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
