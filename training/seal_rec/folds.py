"""Cross-validation folds grouped by repository: a repository's pages and strips all fall in one
fold (one repository's documents share seals, hands and scanners), by a hash of its name, so the
training side (`head.py`, `.venv-train`) and the pipeline side (`cv.py`, `.venv`) agree without
passing a file."""

from __future__ import annotations

import hashlib

FOLDS = 3


def fold_of(group: str, folds: int = FOLDS) -> int:
    """The fold of a repository (`real_strips.group_of`)."""
    return int.from_bytes(hashlib.sha256(group.encode()).digest()[:4], "big") % folds
