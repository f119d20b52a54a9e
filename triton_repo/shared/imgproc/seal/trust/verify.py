"""Whether a seal says a name the caller expects, and how sure that is.

A name is scored on the seal's frames, not on its reading: its support (`evidence.support`:
its best path from any start on the ring, by any recogniser, on any strip, against the best
reading there) is mapped to (0, 1), 0.5 at `TrustParams.name_support`; a faded or
overprinted character that was misread still supports the right name, while a character no
recogniser saw there costs about 11.5 (the floor of an unseen class), which no true name
pays, and so does a character the frames read (`TrustParams.name_sure`) that the name leaves
out: its path reads the blank over it at that floor. A seal whose rim (or, for a rectangular
seal, any line) reads the name as it is, after normalizing both (`Words.normalized`), scores
at least its rim's calibrated score: a standard text restored under print has no frames to
rest on, but its reading does.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..records import Match, SealEvidence, Verdict
from ..words import Words
from .evidence import CharTable, bound, char_table, sigmoid, worst_weighted
from .params import DEFAULT_TRUST, TrustParams


def name_score(
    name: str,
    seal: SealEvidence,
    words: Words,
    params: TrustParams = DEFAULT_TRUST,
    table: CharTable | None = None,
    exact: bool = True,
) -> float:
    """How sure it is that `seal` says `name` (normalized), in (0, 1). `table`: the seal's
    sources' characters, read once for every name of a request (else read for this one).
    Unless `exact`, a name that even `bound` puts `name_skip` below the threshold is scored
    by that bound, at least its score and under 5e-5 (no verdict changes, and JSON's four
    decimals show 0 either way), without the Viterbi: most names of a long list are not on a
    given seal."""
    score = 0.0
    if seal.sources and name:
        table = table or char_table(seal.sources, [name], words.forms, params.name_sure)
        most = bound(table, name)
        hopeless = (most - params.name_support) * params.name_slope <= -params.name_skip
        spotted = (
            most if hopeless and not exact else float(worst_weighted(table, name, params.name_worst).max())
        )
        score = sigmoid((spotted - params.name_support) * params.name_slope)
    reading = seal.reading
    texts = [reading.rim_text, *(text for text, _ in reading.inner)]
    if any(words.normalized(text) == name for text in texts if text):
        score = max(score, reading.rim_score)
    return score


def verdicts(
    names: Sequence[str], seals: Sequence[SealEvidence], words: Words, params: TrustParams = DEFAULT_TRUST
) -> tuple[list[Verdict], list[Match | None]]:
    """Each expected name's verdict (the seal that says it best; found at `found_score`), and
    each seal's best expected name where the seal carries it (at `found_score` too; else
    None), exactly: of the names a seal scores by their bound, those that could still beat
    its best are scored in full."""
    normalized = [words.normalized(name) for name in names]
    tables = [char_table(seal.sources, normalized, words.forms, params.name_sure) for seal in seals]
    scores = [
        [
            name_score(name, seal, words, params, table, exact=False)
            for seal, table in zip(seals, tables, strict=True)
        ]
        for name in normalized
    ]
    matches = [
        _best_name(names, normalized, scores, j, seal, table, words, params)
        for j, (seal, table) in enumerate(zip(seals, tables, strict=True))
    ]
    found = []
    for name, row in zip(names, scores, strict=True):
        first = max(range(len(row)), key=row.__getitem__, default=None)
        score = row[first] if first is not None else 0.0
        kept = score >= params.found_score
        found.append(Verdict(name, kept, score, first if kept else None))
    return found, matches


def _best_name(
    names: Sequence[str],
    normalized: Sequence[str],
    scores: list[list[float]],
    seal_index: int,
    seal: SealEvidence,
    table: CharTable,
    words: Words,
    params: TrustParams,
) -> Match | None:
    """The seal's best expected name, scored exactly (updating `scores`): the names in order of
    their scores so far (a bound's at least its name's), each scored in full until none left
    could beat the best; None where even the best is not found on it (a match is a name the
    seal carries)."""
    best: tuple[float, str] | None = None
    for i in sorted(range(len(names)), key=lambda i: -scores[i][seal_index]):
        if best is not None and scores[i][seal_index] < best[0]:
            break
        scores[i][seal_index] = name_score(normalized[i], seal, words, params, table)
        best = max(best or (-1.0, ""), (scores[i][seal_index], names[i]))
    return None if best is None or best[0] < params.found_score else Match(best[1], best[0])


def name_scores(
    names: Sequence[str], seals: Sequence[SealEvidence], words: Words, params: TrustParams = DEFAULT_TRUST
) -> list[list[float]]:
    """Every seal's score for every name (`name_score`; the names normalized): [seal][name].
    A name that even its bound puts far under the threshold is scored by that bound."""
    normalized = [words.normalized(name) for name in names]
    scores = []
    for seal in seals:
        table = char_table(seal.sources, normalized, words.forms, params.name_sure)
        scores.append([name_score(name, seal, words, params, table, exact=False) for name in normalized])
    return scores
