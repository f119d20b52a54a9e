"""parties: the page's lines and its trusted seals in, the seals checked against the parties
the page names out (`DocumentCheck`).

The parties are found from the page's OCR lines by label and by layout (`find`: 销售方 and
名称 on an invoice, with its tax IDs; 甲方, 乙方 and 丙方 on a contract; an organisation's name
near a seal or in the page's head or foot), with the kind of document its title says. Each
seal is scored against each party's name as an expected name is (the caller scores them:
`trust.name_scores`, since no stage imports another), and an invoice seal's tax ID against the
printed one (`link`); a seal is linked to the one party it clearly is, and the page gets its
verdict (`verdict`). `PartiesParams` holds every threshold.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace

from imgproc.text.lines import TextLine

from ..records import Box, DocumentCheck, Party
from .find import document_kind, find_parties
from .layout import join_under_seals, near_seal, split_at_seals, under_seal
from .link import SealSays, linked, party_scores
from .names import DATE_CHARS, ORG_ENDINGS, SUPERVISION
from .params import DEFAULT_PARTIES, PartiesParams
from .verdict import verdict

__all__ = ["DEFAULT_PARTIES", "PartiesParams", "SealSays", "document_check", "page_parties"]


def page_parties(
    lines: Sequence[TextLine],
    seals: Sequence[Box],
    page_height: int,
    normalized: Callable[[str], str],
    params: PartiesParams = DEFAULT_PARTIES,
    rims: Sequence[str] = (),
    rim_scores: Sequence[float] = (),
) -> tuple[str, list[Party]]:
    """The kind of document a page is and the parties it names, from its lines (their text
    brought to one form by `normalized`, as expected names are), its seals' boxes and their
    rims as read (normalized)."""
    lines = [replace(line, text=normalized(line.text)) for line in lines if line.text.strip()]
    lines = join_under_seals(lines, seals, ORG_ENDINGS, DATE_CHARS, params)
    reach = params.split_reach
    lines = [piece for line in lines for piece in split_at_seals(line, seals, ORG_ENDINGS, reach)]
    kind = document_kind(lines)
    return kind, find_parties(lines, seals, page_height, kind, params, rims, rim_scores)


def _claimed_elsewhere(
    parties: Sequence[Party], box: Box, boxes: Sequence[Box], params: PartiesParams
) -> list[int]:
    """The parties printed under another seal and not near the one at `box`: a name printed
    under a seal is that seal's to claim, not a seal's elsewhere on the page (two seals of one
    university, each stamped over its own office's name)."""
    others = [other for other in boxes if other != box]
    return [
        k
        for k, party in enumerate(parties)
        if under_seal(party.box, others) and not near_seal(party.box, [box], params)
    ]


def document_check(
    kind: str,
    parties: Sequence[Party],
    name_scores: Sequence[Sequence[float]],
    seals: Sequence[SealSays],
    boxes: Sequence[Box],
    found_score: float,
    params: PartiesParams = DEFAULT_PARTIES,
) -> DocumentCheck:
    """Each seal (at `boxes`, page pixels) linked to the party it is (`name_scores[seal][party]`:
    its frames' support for the party's name, scored as an expected name is; linked from
    `found_score`), and the page's verdict."""
    links, chances = [], []
    for scores, seal, box in zip(name_scores, seals, boxes, strict=True):
        under = [under_seal(party.box, [box]) for party in parties]
        probabilities, full = party_scores(scores, seal, parties, found_score, params, under)
        for k in _claimed_elsewhere(parties, box, boxes, params):
            probabilities[k] = 0.0
        form = SUPERVISION in seal.rim  # the form's own seal: its inner line is printed as a party
        link = None if form else linked(probabilities, full, parties, box, found_score, params)
        links.append(link)
        chances.append(probabilities)
    word, reasons = verdict(kind, parties, links, seals, chances, params)
    return DocumentCheck(kind, list(parties), links, word, reasons)
