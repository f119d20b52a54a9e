"""One scorer for seal recognition, shared by the tests, the benchmarks and the harness.

A page's found seals are matched to its true seals by box overlap (greedy, best overlap
first, `MATCH_IOU` at least); a found seal that matches a box to ignore counts for nothing,
one that matches nothing is a false seal. Each true seal then scores:

- found or missed (recall, over every seal that is not ignored);
- its rim text, where the truth knows it: exact or not, and the edit distance (CER = edits
  over truth characters; a missed seal costs its whole text), after NFKC and without spaces;
- its inner lines and codes: each true line is hit when the seal's answer holds it, as an
  inner line or as a code (the boundary between the two is the reader's business).

`Summary` adds results up; `summarize` chooses which (a split, a group, the round and oval
seals the accuracy targets are about).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from difflib import SequenceMatcher
from typing import Any

from evaluation.seal.dataset import Box, TruthPage, TruthSeal, box_iou
from evaluation.text import levenshtein, normalize

MATCH_IOU = 0.5  # a found seal matches a true one when their boxes overlap this much
Z_95 = 1.959964  # the normal quantile of a two-sided 95% interval
# A wrong rim that shares less than this (difflib's ratio) with the truth is garbage, not a
# few characters off: a faint seal, a tiny one, or print read instead of it.
GARBAGE_RATIO = 0.6
EDIT_NAMES = {"replace": "wrong", "delete": "dropped", "insert": "added"}
ELLIPTIC = frozenset({"round", "oval"})


@dataclass(frozen=True)
class FoundSeal:
    """What the service (or the harness) answered for one seal."""

    box: Box
    shape: str
    rim_text: str
    inner_texts: tuple[str, ...] = ()
    codes: tuple[str, ...] = ()

    @classmethod
    def from_json(cls, seal: dict[str, Any]) -> FoundSeal:
        """One entry of `/v1/seal`'s `seals`."""
        x0, y0, x1, y1 = (round(float(v)) for v in seal["box"])
        inner = tuple(str(line["text"]) for line in seal.get("inner_texts", []))
        return cls((x0, y0, x1, y1), str(seal["shape"]), str(seal["rim_text"]), inner, tuple(seal["codes"]))


@dataclass(frozen=True)
class SealResult:
    """One true seal and what was found for it (None: missed)."""

    page: TruthPage
    truth: TruthSeal
    found: FoundSeal | None

    @property
    def read(self) -> str:
        return normalize(self.found.rim_text) if self.found else ""

    @property
    def distance(self) -> int:
        """Edits between the rim read and the true rim (0 when the truth has no text)."""
        truth = normalize(self.truth.rim_text or "")
        return min(levenshtein(self.read, truth), len(truth)) if self.truth.rim_text else 0

    def _answered(self) -> list[str]:
        """The answer's inner lines and codes, normalised (none for a missed seal)."""
        return [normalize(t) for t in (*self.found.inner_texts, *self.found.codes)] if self.found else []

    def lines_hit(self) -> tuple[int, int, int, int]:
        """(inner lines hit, inner lines, codes hit, codes) of this seal."""
        answered = set(self._answered())
        inner = sum(normalize(t) in answered for t in self.truth.inner_texts)
        codes = sum(normalize(t) in answered for t in self.truth.codes)
        return inner, len(self.truth.inner_texts), codes, len(self.truth.codes)

    def stray_lines(self) -> int:
        """Lines the seal's answer holds (inner lines and codes) that are none of its true ones:
        print or rim characters read as a line, or a line read in pieces."""
        truth = {normalize(t) for t in (*self.truth.inner_texts, *self.truth.codes)}
        return sum(text not in truth for text in self._answered())

    def miss_kind(self) -> str:
        """What is wrong with a rim that does not read right: missed, unread, garbage, or which
        characters are wrong, dropped or added, at its start, inside or at its end (the places
        each kind of fix works on)."""
        if self.found is None:
            return "missed"
        return edit_kind(normalize(self.truth.rim_text or ""), self.read)

    def describe(self) -> str:
        """One line for a failure list."""
        where = f"{self.page.name} {self.truth.shape}{' cut' if self.truth.cut else ''}"
        if self.found is None:
            return f"{where}: {self.truth.rim_text} -> MISSED"
        inner = "/".join(self.found.inner_texts + self.found.codes)
        want = "/".join(self.truth.inner_texts + self.truth.codes)
        return f"{where}: {self.truth.rim_text} -> {self.found.rim_text}  [{want} -> {inner}]"


@dataclass(frozen=True)
class PageResult:
    """Every true seal of a page with its outcome, and the false seals."""

    page: TruthPage
    seals: tuple[SealResult, ...]
    false_seals: tuple[FoundSeal, ...]


def matched_pairs(boxes: Sequence[Box], found: Sequence[Box]) -> list[tuple[int, int]]:
    """Greedy one-to-one matching of true boxes to found seals' boxes, best overlap first."""
    scored = sorted(
        ((box_iou(box, seal), i, j) for i, box in enumerate(boxes) for j, seal in enumerate(found)),
        reverse=True,
    )
    used_box: set[int] = set()
    used_found: set[int] = set()
    pairs = []
    for iou, i, j in scored:
        if iou < MATCH_IOU:
            break
        if i not in used_box and j not in used_found:
            used_box.add(i)
            used_found.add(j)
            pairs.append((i, j))
    return pairs


def score_page(page: TruthPage, found: Sequence[FoundSeal]) -> PageResult:
    """Match a page's found seals to its truth and score them."""
    boxes = [seal.box for seal in page.seals] + list(page.ignore)
    pairs = dict(matched_pairs(boxes, [seal.box for seal in found]))
    results = tuple(
        SealResult(page, seal, found[pairs[i]] if i in pairs else None) for i, seal in enumerate(page.seals)
    )
    matched = set(pairs.values())
    return PageResult(page, results, tuple(seal for j, seal in enumerate(found) if j not in matched))


@dataclass
class Summary:
    """Totals over some page results."""

    pages: int = 0
    empty_pages: int = 0
    false_on_empty: int = 0
    false_seals: int = 0
    seals: int = 0
    found: int = 0
    rims: int = 0  # seals whose rim text is known, of the shapes asked for
    exact: int = 0
    edits: int = 0
    chars: int = 0
    inner: list[int] = field(default_factory=lambda: [0, 0])  # hit, total
    codes: list[int] = field(default_factory=lambda: [0, 0])
    stray: int = 0  # answered lines that are no true line (`SealResult.stray_lines`)
    misses: list[str] = field(default_factory=list)
    miss_kinds: Counter[str] = field(default_factory=Counter)  # rim misses by `miss_kind`
    # Seals whose rim reads right (or is not counted) but an inner line or a code is missed.
    line_misses: list[str] = field(default_factory=list)

    def add(self, result: PageResult, shapes: frozenset[str]) -> None:
        """Count one page; rims of seals of `shapes` only (recall counts every seal)."""
        self.pages += 1
        self.false_seals += len(result.false_seals)
        if not result.page.seals:
            self.empty_pages += 1
            self.false_on_empty += len(result.false_seals)
        for seal in result.seals:
            self._add_seal(seal, shapes)

    def _add_seal(self, seal: SealResult, shapes: frozenset[str]) -> None:
        self.seals += 1
        self.found += seal.found is not None
        inner_hit, inner, codes_hit, codes = seal.lines_hit()
        self.inner = [self.inner[0] + inner_hit, self.inner[1] + inner]
        self.codes = [self.codes[0] + codes_hit, self.codes[1] + codes]
        self.stray += seal.stray_lines()
        if seal.truth.shape not in shapes:
            return
        rim = seal.truth.rim_text
        if rim is not None:
            self.rims += 1
            self.exact += seal.distance == 0
            self.edits += seal.distance
            self.chars += len(normalize(rim))
        if rim is not None and seal.distance:
            self.misses.append(seal.describe())
            self.miss_kinds[seal.miss_kind()] += 1
        elif seal.found is not None and (inner_hit < inner or codes_hit < codes):
            self.line_misses.append(seal.describe())

    @property
    def recall(self) -> float:
        return self.found / max(self.seals, 1)

    @property
    def exact_rate(self) -> float:
        return self.exact / max(self.rims, 1)

    @property
    def cer(self) -> float:
        return self.edits / max(self.chars, 1)

    def line(self) -> str:
        """The figures on one line."""
        low, high = wilson_interval(self.exact, self.rims)
        return (
            f"{self.pages} pages, {self.seals} seals: recall {self.recall:.3f}; "
            f"rim exact {self.exact}/{self.rims} = {self.exact_rate:.3f}"
            f" (95% {low:.2f}-{high:.2f}), CER {self.cer:.3f}; "
            f"inner lines {self.inner[0]}/{self.inner[1]},"
            f" codes {self.codes[0]}/{self.codes[1]}, stray lines {self.stray};"
            f" false seals {self.false_seals}"
            f" ({self.false_on_empty} on {self.empty_pages} pages without a seal)"
        )


def edit_kind(truth: str, read: str) -> str:
    """How `read` differs from `truth` (see `SealResult.miss_kind`); "" when they are equal."""
    if not read:
        return "unread"
    matcher = SequenceMatcher(None, truth, read, autojunk=False)
    if matcher.ratio() < GARBAGE_RATIO:
        return "garbage"
    kinds = set()
    for op, start, stop, _, _ in matcher.get_opcodes():
        if op != "equal":
            where = "start" if start == 0 else "end" if stop == len(truth) else "inside"
            kinds.add(f"{EDIT_NAMES[op]} {where}")
    return " + ".join(sorted(kinds))


def wilson_interval(hits: int, total: int, z: float = Z_95) -> tuple[float, float]:
    """Wilson's score interval for a rate of `hits` in `total`: with 21 real held-out rims one
    seal moves the rate by 0.05, and the interval says how far the figure may be from the rate
    the pipeline would reach on many more such documents. (0, 1) for no trials."""
    if total <= 0:
        return 0.0, 1.0
    rate = hits / total
    centre = (rate + z * z / (2 * total)) / (1 + z * z / total)
    half = z * math.sqrt(rate * (1 - rate) / total + z * z / (4 * total * total)) / (1 + z * z / total)
    return max(0.0, centre - half), min(1.0, centre + half)


def summarize(results: Iterable[PageResult], shapes: frozenset[str] = ELLIPTIC) -> Summary:
    """Totals over `results`, rim figures over the seals of `shapes`."""
    summary = Summary()
    for result in results:
        summary.add(result, shapes)
    return summary
