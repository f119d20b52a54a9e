"""Where a seal's reading fails, and the figures by class of document, shape and capture.

`stage_of` puts each miss in the class of the stage that can fix it (issue 46's list):

- not found: no found seal overlaps the true one (finding);
- fitted wrong: found, but nothing like its rim was read, or a round seal answered as a
  rectangle or the reverse (fitting, cutting);
- read from the wrong start: the reading is the rim turned round (locating the start);
- cut short at its start / at its end: characters dropped at one end only (unwrapping, the rim's
  span);
- stray marks: characters added at an end only (print or the star read as text);
- misread over print: characters wrong inside a seal that lies over print;
- misreading: characters wrong inside, the recogniser's own error;
- false seal: a found seal that is no true one.

`by_class` regroups page results so that `summarize` gives one row a class.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable
from difflib import SequenceMatcher

from evaluation.seal.scoring import ELLIPTIC, PageResult, SealResult, Summary, edit_kind, summarize
from evaluation.text import normalize

NOT_FOUND, FITTED, WRONG_START = "not found", "fitted wrong", "read from the wrong start"
SHORT_START, SHORT_END, STRAY = "cut short at its start", "cut short at its end", "stray marks"
OVER_PRINT, MISREAD, FALSE_SEAL = "misread over print", "misreading", "false seal"
STAGES = (NOT_FOUND, FITTED, WRONG_START, SHORT_START, SHORT_END, STRAY, OVER_PRINT, MISREAD, FALSE_SEAL)
# A reading is the rim turned round when some turn of the truth is this much closer to it
# (difflib's ratio) than the truth itself, and close (at most a character in ten off).
TURN_GAIN, TURN_RATIO = 0.15, 0.9


def _turned(truth: str, read: str) -> bool:
    plain = SequenceMatcher(None, truth, read, autojunk=False).ratio()
    turns = (
        SequenceMatcher(None, truth[k:] + truth[:k], read, autojunk=False).ratio()
        for k in range(1, len(truth))
    )
    best = max(turns, default=0.0)
    return best >= TURN_RATIO and best - plain >= TURN_GAIN


def _shape_class(shape: str) -> str:
    return "elliptic" if shape in ELLIPTIC else shape


def stage_of(seal: SealResult) -> str:
    """The class of a rim that does not read right (see the module docstring)."""
    if seal.found is None:
        return NOT_FOUND
    truth, read = normalize(seal.truth.rim_text or ""), seal.read
    kind = edit_kind(truth, read)
    if kind in ("unread", "garbage") or _shape_class(seal.found.shape) != _shape_class(seal.truth.shape):
        return FITTED
    if _turned(truth, read):
        return WRONG_START
    edits = set(kind.split(" + "))
    if edits == {"dropped start"}:
        return SHORT_START
    if edits <= {"dropped end"}:
        return SHORT_END
    if edits <= {"added start", "added end"}:
        return STRAY
    return OVER_PRINT if seal.truth.over_print else MISREAD


def misses(results: Iterable[PageResult]) -> list[tuple[str, str]]:
    """(class, description) of every round or oval rim not read right, and every false seal."""
    found = []
    for result in results:
        for seal in result.seals:
            if seal.truth.rim_text is not None and seal.truth.shape in ELLIPTIC and seal.distance:
                found.append((stage_of(seal), seal.describe()))
            elif seal.truth.rim_text is None and seal.found is None:
                found.append((NOT_FOUND, seal.describe()))
        for false in result.false_seals:
            found.append((FALSE_SEAL, f"{result.page.name}: {false.shape} {false.box} {false.rim_text!r}"))
    return found


def stage_counts(results: Iterable[PageResult]) -> Counter[str]:
    """How many misses of each class."""
    return Counter(stage for stage, _ in misses(results))


def _seals_where(result: PageResult, keep: Callable[[SealResult], bool]) -> PageResult:
    """The page with only the seals `keep` chooses (and no false seals: they have no class)."""
    return PageResult(result.page, tuple(seal for seal in result.seals if keep(seal)), ())


SEAL_CLASSES: dict[str, Callable[[SealResult], str]] = {
    "document": lambda seal: seal.page.kind or "?",
    "capture": lambda seal: seal.page.capture or "?",
    "shape": lambda seal: seal.truth.shape,
    "over print": lambda seal: "over print" if seal.truth.over_print else "clear",
}


def by_class(results: list[PageResult]) -> dict[str, dict[str, Summary]]:
    """For each way of classing a seal, one Summary a class (rims of every shape counted)."""
    shapes = frozenset(seal.truth.shape for result in results for seal in result.seals)
    table: dict[str, dict[str, Summary]] = {}
    for name, class_of in SEAL_CLASSES.items():
        classes = sorted({class_of(seal) for result in results for seal in result.seals})
        table[name] = {
            value: summarize(
                (_seals_where(r, lambda s, v=value, c=class_of: c(s) == v) for r in results),  # type: ignore[misc]
                shapes,
            )
            for value in classes
        }
    return table
