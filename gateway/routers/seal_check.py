"""/v1/seal's document check (`check=document`): the seals checked against the parties the page
itself names. What the caller may send, the seal model's tensors that answer it, and their JSON:
the page's `parties`, each seal's `party` and the page's `verdict`, all three present only where
the check was asked for (an answer without it is the answer as it was before the check existed)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated, Any, Literal

import numpy as np
import numpy.typing as npt
from fastapi import Query
from pydantic import BaseModel, Field

from gateway.errors import InvalidField
from gateway.routers.common import SCORE_DECIMALS, utf8
from gateway.uploads import ImageUpload

# The field and query parameter, its one value, and the seal models' input that carries it
# (imgproc/seal/expected.py checks the same value on the model's side).
CHECK, CHECK_DOCUMENT, CHECK_INPUT = "check", "document", "CHECK"
PARTY_OUTPUTS = ("PARTY_ROLES", "PARTY_TEXTS", "PARTY_BOXES", "PARTY_SOURCES", "PARTY_TAX_IDS")
LINK_OUTPUTS = ("SEAL_PARTIES", "SEAL_PARTY_SCORES")
VERDICT_OUTPUTS = ("DOCUMENT_KIND", "VERDICT", "VERDICT_REASONS")
CHECK_OUTPUTS = PARTY_OUTPUTS + LINK_OUTPUTS + VERDICT_OUTPUTS
Role = Literal["seller", "buyer", "party_a", "party_b", "party_c", "issuer", "named"]


class DocumentParty(BaseModel):
    """A party the page names."""

    role: Role = Field(
        description="seller or buyer (an invoice), party_a/party_b/party_c (甲方/乙方/丙方 of a contract),"
        " issuer (the organisation a certificate or notice is issued by), named (an organisation"
        " printed near a seal, in no role the page labels)"
    )
    text: str = Field(description="the name as the page prints it (as OCR read it)")
    box: list[int] = Field(
        min_length=4, max_length=4, description="[x0, y0, x1, y1] of the name, in upload pixels"
    )
    source: str = Field(
        description=(
            "the rule that found it: label (printed after its role's label), layout (where it"
            " stands: near a seal, at the head or foot), rim (a seal's rim printed whole beside it, or"
            " anywhere on the page where the rim scores 0.9 or more)"
        )
    )
    tax_id: str | None = Field(description="the tax ID printed with it (纳税人识别号); null where none is")


class SealParty(BaseModel):
    """The party a seal belongs to."""

    index: int = Field(ge=0, description="the party's index in `parties`")
    role: Role
    score: float = Field(
        ge=0, le=1, description="the probability that the seal says the party's name (as an expected name's)"
    )


# Every verdict the seal model gives (imgproc/seal/parties/verdict.py's `Verdict`; the gateway
# holds no triton_repo, so tests/unit/test_one_name_one_thing.py holds the two lists together),
# by the document's kind, with what it means.
VERDICTS = {
    "seller_sealed": "invoice: the seller's seal is on it and says the printed seller",
    "seller_seal_mismatch": "invoice: a seal that is not the seller's: read surely, carrying another "
    "true tax ID, or its frames giving the seller's name next to nothing",
    "seller_seal_unread": "invoice: a seal that does not read as the seller's, but was read too unsurely "
    "to call it another's (look at it)",
    "seller_unsealed": "invoice: no seal is the seller's, and none is a stranger's (only the form's "
    "全国统一发票监制章 or another party's)",
    "seller_not_found": "invoice: no seller's name was read on the page",
    "all_sealed": "contract: every party its labels name (甲方/乙方/丙方) has sealed",
    "partly_sealed": "contract: some of its parties have sealed, not all",
    "unsealed": "contract: none of its parties has sealed",
    "sealed_by_party": "other pages: a seal says a name the page prints",
    "no_party_seal": "other pages: no seal says a name the page prints",
    "no_parties": "a contract or other page that names no party",
}


class PageVerdict(BaseModel):
    """Whether the page's seals are its parties'."""

    kind: Literal["invoice", "contract", "certificate", "other"] = Field(description="the document's kind")
    verdict: str = Field(
        description="; ".join(f"{word} ({meaning})" for word, meaning in VERDICTS.items()),
        json_schema_extra={"enum": list(VERDICTS)},
    )
    reasons: list[str] = Field(description="what the verdict rests on, in words")


class CheckedPage(BaseModel):
    """What a page's answer gains with the document check (both absent without it)."""

    parties: list[DocumentParty] | None = Field(
        default=None, description="with check=document only (absent otherwise): the parties the page names"
    )
    verdict: PageVerdict | None = Field(
        default=None,
        description="with check=document only (absent otherwise): whether the seals are the parties'",
    )


CheckQuery = Annotated[
    str | None,
    Query(
        description=f"`{CHECK_DOCUMENT}`: check each seal against the parties the page itself names "
        f"(for raw bodies; beside a `{CHECK}` form field): the answer gains `parties`, each seal's "
        "`party` and the page's `verdict`"
    ),
]
CHECK_FIELD = {
    "type": "string",
    "enum": [CHECK_DOCUMENT],
    "description": "document: check each seal against the parties the page names (as the query's `check`)",
}


def requested_check(upload: ImageUpload, query: str | None) -> bool:
    """Whether the document check is asked for, by form field or query parameter (each value
    stripped); raises InvalidField for any value but `CHECK_DOCUMENT`."""
    sent = (*upload.texts.get(CHECK, ()), *(() if query is None else (query,)))
    values = [value.strip() for value in sent]
    for value in values:
        if value != CHECK_DOCUMENT:
            raise InvalidField(f"{CHECK} must be {CHECK_DOCUMENT!r}, not {value[:20]!r}")
    return bool(values)


def check_inputs(check: bool) -> dict[str, list[str]]:
    """The seal model's string input for the check (none where it is not asked for)."""
    return {CHECK_INPUT: [CHECK_DOCUMENT]} if check else {}


def parties_json(out: dict[str, npt.NDArray[Any]]) -> list[dict[str, Any]]:
    """The page's parties, one JSON object each."""
    rows = zip(*(out[name] for name in PARTY_OUTPUTS), strict=True)
    return [
        {
            "role": utf8(role),
            "text": utf8(text),
            "box": [int(v) for v in np.asarray(box).tolist()],
            "source": utf8(source),
            "tax_id": utf8(tax_id) or None,
        }
        for role, text, box, source, tax_id in rows
    ]


def seal_parties_json(
    out: dict[str, npt.NDArray[Any]], parties: Sequence[dict[str, Any]]
) -> list[dict[str, Any] | None]:
    """Each seal's party (null: none), in the order of the seals."""
    links = zip(out["SEAL_PARTIES"].tolist(), out["SEAL_PARTY_SCORES"].tolist(), strict=True)
    return [
        None
        if index < 0
        else {"index": index, "role": parties[index]["role"], "score": round(score, SCORE_DECIMALS)}
        for index, score in links
    ]


def verdict_json(out: dict[str, npt.NDArray[Any]]) -> dict[str, Any] | None:
    """The page's verdict (None where the model gave none)."""
    if not len(out["VERDICT"]):
        return None
    return {
        "kind": utf8(out["DOCUMENT_KIND"][0]),
        "verdict": utf8(out["VERDICT"][0]),
        "reasons": [utf8(reason) for reason in out["VERDICT_REASONS"]],
    }


def with_check(page: dict[str, Any], out: dict[str, npt.NDArray[Any]]) -> dict[str, Any]:
    """A page's JSON (`seals` and the rest) with its parties, each seal's party and its verdict."""
    parties = parties_json(out)
    seals = [
        {**seal, "party": party}
        for seal, party in zip(page["seals"], seal_parties_json(out, parties), strict=True)
    ]
    return {**page, "seals": seals, "parties": parties, "verdict": verdict_json(out)}
