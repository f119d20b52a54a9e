"""The page's verdict on its seals and parties, in a word with its reasons in sentences: for
an invoice, whether the seller's seal is there and is the seller's; for a contract, which of
its parties have sealed; otherwise, whether a seal is one of the parties the page names."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal, get_args

from ..records import Party, PartyLink
from .link import SealSays, tax_id_agrees
from .names import SUPERVISION
from .params import DEFAULT_PARTIES, PartiesParams

# Every verdict the check gives, written once: mypy holds each function below to these words, and
# tests/unit/test_one_name_one_thing.py holds the gateway's (its OpenAPI text gives each its
# meaning) and the README's list to them.
Verdict = Literal[
    "seller_sealed",
    "seller_seal_mismatch",
    "seller_seal_unread",
    "seller_unsealed",
    "seller_not_found",
    "all_sealed",
    "partly_sealed",
    "unsealed",
    "sealed_by_party",
    "no_party_seal",
    "no_parties",
]
VERDICTS: tuple[Verdict, ...] = get_args(Verdict)


def _seal_name(rim: str) -> str:
    return f'"{rim}"' if rim else "an unread rim"


def _is_anothers(seal: SealSays, seller: Party, chance: float, params: PartiesParams) -> bool:
    """Whether a seal that is not the seller's is surely someone else's: its rim read surely,
    a tax ID of its own that differs from the seller's, or the seller's name as good as absent
    from its frames (`chance`, the probability that the seal is the seller's, under
    `not_seller`): a rim misread in a character or two is not exact, yet says another name."""
    return (
        seal.rim_score >= params.sure_rim
        or tax_id_agrees(seller.tax_id, seal.codes) is False
        or chance < params.not_seller
    )


def invoice_verdict(
    parties: Sequence[Party],
    links: Sequence[PartyLink | None],
    seals: Sequence[SealSays],
    chances: Sequence[Sequence[float]],
    params: PartiesParams = DEFAULT_PARTIES,
) -> tuple[Verdict, list[str]]:
    """seller_sealed; seller_seal_mismatch (a seal that is not the seller's, read surely);
    seller_seal_unread (a seal that is not the seller's as far as it was read, but read too
    unsurely to call it another's); seller_unsealed; or seller_not_found (no seller's name
    was read on the page)."""
    seller = next((i for i, party in enumerate(parties) if party.role == "seller"), None)
    if seller is None:
        return "seller_not_found", ["no seller's name was found on the page"]
    name = parties[seller].text
    for j, link in enumerate(links):
        if link is not None and link.index == seller:
            return "seller_sealed", [
                f"seal {j} ({_seal_name(seals[j].rim)}) is the seller {name}'s ({link.score:.2f})"
            ]
    others = [j for j, link in enumerate(links) if link is None and SUPERVISION not in seals[j].rim]
    sure = [j for j in others if _is_anothers(seals[j], parties[seller], chances[j][seller], params)]
    if sure:
        return "seller_seal_mismatch", [
            f"seal {j} ({_seal_name(seals[j].rim)}) is not the seller {name}'s" for j in sure
        ]
    if others:
        return "seller_seal_unread", [
            f"seal {j} ({_seal_name(seals[j].rim)}) was read too unsurely to tell whether it is the "
            f"seller {name}'s (rim {seals[j].rim_score:.2f}, the seller's {chances[j][seller]:.2g})"
            for j in others
        ]
    return "seller_unsealed", [f"no seal on the page is the seller {name}'s"]


def contract_verdict(
    parties: Sequence[Party], links: Sequence[PartyLink | None]
) -> tuple[Verdict, list[str]]:
    """all_sealed, partly_sealed or unsealed by the contract's parties (甲方, 乙方, 丙方, or
    its seller and buyer), or no_parties where none was found."""
    named = [i for i, party in enumerate(parties) if party.source == "label"]
    if not named:
        return "no_parties", ["no party of the contract was found on the page"]
    sealed = {link.index for link in links if link is not None}
    reasons = [
        f"{parties[i].role} {parties[i].text} has {'sealed' if i in sealed else 'not sealed'}" for i in named
    ]
    done = sum(i in sealed for i in named)
    word: Verdict = "all_sealed" if done == len(named) else "partly_sealed" if done else "unsealed"
    return word, reasons


def named_verdict(parties: Sequence[Party], links: Sequence[PartyLink | None]) -> tuple[Verdict, list[str]]:
    """sealed_by_party where a seal is one of the parties', no_party_seal where none is, and
    no_parties where the page names none."""
    if not parties:
        return "no_parties", ["no organisation's name was found on the page"]
    reasons = [
        f"seal {j} is {parties[link.index].text}'s ({link.score:.2f})" for j, link in enumerate(links) if link
    ]
    if reasons:
        return "sealed_by_party", reasons
    return "no_party_seal", [f"no seal is one of the {len(parties)} parties named on the page"]


def verdict(
    kind: str,
    parties: Sequence[Party],
    links: Sequence[PartyLink | None],
    seals: Sequence[SealSays],
    chances: Sequence[Sequence[float]],
    params: PartiesParams = DEFAULT_PARTIES,
) -> tuple[Verdict, list[str]]:
    """The page's verdict and its reasons, by its kind (`chances[seal][party]`: the probability
    that the seal is the party's, `link.party_scores`)."""
    if kind == "invoice":
        return invoice_verdict(parties, links, seals, chances, params)
    if kind == "contract":
        return contract_verdict(parties, links)
    return named_verdict(parties, links)
