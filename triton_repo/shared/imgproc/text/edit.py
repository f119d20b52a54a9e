"""Edit distance between strings: used to grade OCR in the tests, to correct legal forms and
to line up two readings of one line."""

from __future__ import annotations

from collections.abc import Sequence


def levenshtein(a: str, b: str) -> int:
    """Edit distance (insertions, deletions, substitutions all cost 1) between two strings."""
    if len(a) < len(b):
        a, b = b, a
    previous = list(range(len(b) + 1))
    for i, char_a in enumerate(a, start=1):
        current = [i]
        for j, char_b in enumerate(b, start=1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (char_a != char_b)))
        previous = current
    return previous[-1]


def aligned_pairs(a: Sequence[str], b: Sequence[str]) -> list[tuple[int, int]]:
    """Positions (i, j) that one cheapest edit of `a` into `b` keeps or substitutes, in order
    (`a` and `b` are strings or sequences of characters).

    Two readings of one line that differ by a few characters align here, so each of `a`'s
    characters learns what the other reading saw in its place.
    """
    rows, cols = len(a) + 1, len(b) + 1
    cost = [[i + j if i == 0 or j == 0 else 0 for j in range(cols)] for i in range(rows)]
    for i in range(1, rows):
        for j in range(1, cols):
            change = cost[i - 1][j - 1] + (a[i - 1] != b[j - 1])
            cost[i][j] = min(cost[i - 1][j] + 1, cost[i][j - 1] + 1, change)
    pairs, i, j = [], len(a), len(b)
    while i > 0 and j > 0:
        if cost[i][j] == cost[i - 1][j - 1] + (a[i - 1] != b[j - 1]):
            pairs.append((i - 1, j - 1))
            i, j = i - 1, j - 1
        elif cost[i][j] == cost[i - 1][j] + 1:
            i -= 1
        else:
            j -= 1
    return pairs[::-1]
