"""The table of every seal tunable, with its default and its reason, read from the source.

A tunable's reason is the comment beside it, or the comment block above it, or, for a field
in a run of fields with no blank line between them, the block above the run (a reason that
several fields share, such as a window's bounds). `python -m imgproc.seal.tunables [PATH]`
writes the table (docs/seal/tunables.md from the project root); the tests fail when a field
has no reason or the written table is not what this prints.
"""

from __future__ import annotations

import inspect
import io
import sys
import tokenize
from collections.abc import Iterator
from dataclasses import dataclass, fields, is_dataclass
from functools import cache
from pathlib import Path
from typing import Any

from .config import DEFAULT_CONFIG, SealConfig

TITLE = "# Seal reader tunables"


@dataclass(frozen=True)
class Tunable:
    """One leaf field of the configuration: its dotted name, default, reason, and whether the
    reason is the previous field's (one comment for a run of fields)."""

    name: str
    default: Any
    reason: str
    shared: bool


def _comment_text(line: str) -> str:
    return line.strip().removeprefix("#").strip()


def _statements(source: str) -> Iterator[tuple[str, list[str], bool]]:
    """The class body's logical lines: each statement's first physical line, the comments
    within it (beside it, or inside its brackets), and whether a blank line came before it;
    a comment on a line of its own is a statement of its own (first line '#...')."""
    tokens = list(tokenize.generate_tokens(io.StringIO(source).readline))
    first, comments, blank, previous_end = "", [], False, 0
    for token in tokens:
        if token.type == tokenize.COMMENT and not first:
            blank |= token.start[0] > previous_end + 1
            yield token.string, [], blank
            blank, previous_end = False, token.start[0]
        elif token.type == tokenize.COMMENT:
            comments.append(_comment_text(token.string))
        elif token.type == tokenize.NEWLINE:
            yield first, comments, blank
            first, comments, blank, previous_end = "", [], False, token.start[0]
        elif token.type not in (tokenize.NL, tokenize.INDENT, tokenize.DEDENT) and not first:
            blank |= token.start[0] > previous_end + 1
            first = token.line.strip()


@cache
def _reasons(cls: type) -> dict[str, tuple[str, bool]]:
    """Each field of a dataclass's source with its reason (see the module docstring)."""
    source = inspect.getsource(cls)
    reasons: dict[str, tuple[str, bool]] = {}
    block: list[str] = []  # the comment lines read since the last field or blank line
    run: str | None = None  # the reason of the run of fields this one belongs to
    for first, comments, blank in _statements(source):
        if blank:
            block, run = [], None
        if first.startswith("#"):
            block.append(_comment_text(first))
        elif ":" in first and first.split(":")[0].isidentifier():
            name = first.split(":")[0]
            own = " ".join([*block, *comments]).strip()
            reasons[name] = (own, False) if own else (run or "", run is not None)
            run = own or run
            block = []
    return reasons


def tunables(node: Any = DEFAULT_CONFIG, prefix: str = "") -> Iterator[Tunable]:
    """Every leaf field under `node` (a dataclass), depth first in declaration order."""
    kind: type = type(node)
    reasons = _reasons(kind)
    for item in fields(node):
        value = getattr(node, item.name)
        if is_dataclass(value):
            yield from tunables(value, f"{prefix}{item.name}.")
        else:
            reason, shared = reasons.get(item.name, ("", False))
            yield Tunable(f"{prefix}{item.name}", value, reason, shared)


def _default(value: Any) -> str:
    if isinstance(value, tuple):
        return ", ".join(str(item) for item in value) or "(none)"
    return str(value).lower() if isinstance(value, bool) else str(value)


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def _group(name: str) -> str:
    return name.rsplit(".", 1)[0] if "." in name else ""


def _sections(config: SealConfig) -> dict[str, list[Tunable]]:
    """The tunables by group of parameters, in the order each group is first met (a class's own
    fields in one section, also where its nested parameters come between them)."""
    sections: dict[str, list[Tunable]] = {}
    for tunable in tunables(config):
        sections.setdefault(_group(tunable.name), []).append(tunable)
    return sections


def _rows(group: list[Tunable]) -> list[str]:
    rows, previous = [], None
    for tunable in group:
        shared = tunable.shared and previous is not None and previous.reason == tunable.reason
        reason = "as above" if shared else _cell(tunable.reason)
        rows.append(f"| `{tunable.name}` | {_cell(_default(tunable.default))} | {reason} |")
        previous = tunable
    return rows


def table(config: SealConfig = DEFAULT_CONFIG) -> str:
    """The Markdown table of every tunable, a section per group of parameters."""
    out = [
        TITLE,
        "",
        "Written by `python -m imgproc.seal.tunables docs/seal/tunables.md` from the fields of",
        "`imgproc.seal.config.SealConfig` and the comments beside them: do not edit by hand. Any of",
        "them can be set in `triton_repo/models/seal/config.pbtxt` by its dotted name",
        '(`parameters { key: "read.sure" value: { string_value: "0.95" } }`). A reason written',
        '"as above" is the previous row\'s: one comment explains a run of fields.',
        "",
        f"{sum(1 for _ in tunables(config))} tunables.",
    ]
    for group, listed in _sections(config).items():
        out += ["", f"## {group or 'top level'}", "", "| name | default | reason |", "|---|---|---|"]
        out += _rows(listed)
    return "\n".join(out) + "\n"


def main() -> None:
    """Command line: print the table, or write it to the path given."""
    text = table()
    if len(sys.argv) > 1:
        Path(sys.argv[1]).write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)


if __name__ == "__main__":
    main()
