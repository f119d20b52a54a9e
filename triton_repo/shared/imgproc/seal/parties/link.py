"""Which party each seal is: the probability that a seal is a party's, from how well the
seal's frames support the party's printed name (scored as an expected name is, by the caller:
`trust.name_scores`), from its rim reading a part of that name, and, for an invoice's parties,
from the seal's tax ID against the printed one; then the one party a seal is linked to, where
one is clearly it."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..codes import passes_checks
from ..records import Party, PartyLink
from .params import DEFAULT_PARTIES, PartiesParams


@dataclass(frozen=True)
class SealSays:
    """What a seal says that a party is checked on: its rim as read (normalized), the
    probability the rim reads exactly, and its codes."""

    rim: str
    rim_score: float
    codes: tuple[str, ...]


def tax_id_agrees(printed: str | None, codes: Sequence[str]) -> bool | None:
    """True where a seal's code is the printed tax ID; False where the seal carries a tax ID
    that passes its checks and the printed one passes too but they differ (two true IDs,
    two organisations); None where nothing tells (no printed ID, no code of the kind, or one
    read wrong: it fails its checks)."""
    if printed is None:
        return None
    if printed in codes:
        return True
    rivals = [code for code in codes if len(code) == len(printed) and passes_checks(code)]
    return False if rivals and passes_checks(printed) else None


def party_scores(
    name_scores: Sequence[float],
    seal: SealSays,
    parties: Sequence[Party],
    found_score: float,
    params: PartiesParams = DEFAULT_PARTIES,
) -> tuple[list[float], list[bool]]:
    """The probability that the seal is each party's: its name's score (`name_scores`, in
    party order), at least the rim's score where the rim reads a part of the name, raised by
    an agreeing tax ID and lowered by a differing one; and whether the seal says the party's
    whole name (its name's score or its tax ID says so), not only a part of it."""
    scores, full = [], []
    for score, party in zip(name_scores, parties, strict=True):
        whole = score >= found_score
        if len(seal.rim) >= params.min_part_chars and seal.rim in party.text:
            score = max(score, seal.rim_score)
        agrees = tax_id_agrees(party.tax_id, seal.codes)
        if agrees is not None:
            score = max(score, params.tax_id_score) if agrees else min(score, 1 - params.tax_id_score)
            whole = agrees
        scores.append(score)
        full.append(whole)
    return scores, full


def linked(
    scores: Sequence[float],
    full: Sequence[bool],
    parties: Sequence[Party],
    found_score: float,
    params: PartiesParams = DEFAULT_PARTIES,
) -> PartyLink | None:
    """The party a seal is linked to: of those it is at least `found_score` likely to be,
    the ones whose whole name the seal supports (`full`) before those whose name it only
    reads a part of; of several within `tie_margin`, the longest name where the others lie
    within it (中国工商银行 inside 中国工商银行股份有限公司), else none (a seal that says 中南大学
    between two of its offices)."""
    likely = [i for i, score in enumerate(scores) if score >= found_score]
    best = [i for i in likely if full[i]] or likely
    if not best:
        return None
    top = max(scores[i] for i in best)
    close = [i for i in best if scores[i] >= top - params.tie_margin]
    chosen = max(close, key=lambda i: (len(parties[i].text), scores[i]))
    if any(parties[i].text not in parties[chosen].text for i in close):
        return None
    return PartyLink(chosen, parties[chosen].role, scores[chosen])
