"""Which files a run sends: the paths given, folders walked, and what a resumed run skips."""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path

# What the gateway reads; anything else in a folder is left alone (a file named on the
# command line is sent whatever its name: the service, not its suffix, decides what it is).
SUFFIXES = frozenset({".jpg", ".jpeg", ".png", ".webp", ".bmp", ".tif", ".tiff", ".gif", ".pdf"})


def discover(paths: Iterable[Path]) -> list[Path]:
    """Every file to send, in a stable order: files as given, folders walked for `SUFFIXES`;
    raises FileNotFoundError for a path that does not exist."""
    found: list[Path] = []
    for path in paths:
        if path.is_dir():
            found += sorted(p for p in path.rglob("*") if p.is_file() and p.suffix.lower() in SUFFIXES)
        elif path.is_file():
            found.append(path)
        else:
            raise FileNotFoundError(f"no such file or folder: {path}")
    return list(dict.fromkeys(found))  # a file named twice is sent once


def is_final(status: int) -> bool:
    """Whether an answer settles a file: success, or a client error other than 429 (the same
    request would fail the same way). Overload, server errors and lost connections do not."""
    return 200 <= status < 300 or (400 <= status < 500 and status != 429)


def settled(output: Path) -> set[str]:
    """The files that already have a final answer in a JSON Lines output (empty if absent).
    A line cut short by an interrupted run is ignored, and so are a PDF's page lines: a PDF
    whose own line never came is sent again."""
    if not output.exists():
        return set()
    done: set[str] = set()
    for line in output.read_text(encoding="utf-8").splitlines():
        try:
            record = json.loads(line)
        except json.JSONDecodeError:
            continue
        if isinstance(record, dict) and "page" not in record and is_final(int(record.get("status", 0))):
            done.add(str(record["file"]))  # a file's own line: a PDF's page lines come before it
    return done
