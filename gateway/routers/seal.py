"""POST /v1/seal: a page in, every red seal on it with its rim text, inner lines and codes; where
the caller names the organisations it expects (`expect`), whether a seal says each; and, asked
for (`check=document`, gateway.routers.seal_check), each seal checked against the parties the
page itself names."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Annotated, Any, Literal

import numpy as np
import numpy.typing as npt
from fastapi import APIRouter, Query, Request
from pydantic import BaseModel, Field
from starlette.responses import Response

from gateway.deps import DocumentUploadDep, TritonDep
from gateway.documents import DocumentBody
from gateway.errors import InvalidField
from gateway.responses import JSONResponse
from gateway.routers.common import (
    DOCUMENT_REQUEST_BODY,
    SCORE_DECIMALS,
    AcceptHeader,
    DocumentEnd,
    ModelRef,
    answer_document,
    stream_responses,
    utf8,
    with_form_fields,
)
from gateway.routers.seal_check import (
    CHECK,
    CHECK_FIELD,
    CHECK_OUTPUTS,
    CheckedPage,
    CheckQuery,
    SealParty,
    check_inputs,
    requested_check,
    with_check,
)
from gateway.uploads import PDF, ImageUpload

MODEL = "seal"
DOCUMENT_MODEL = "seal_document"  # a PDF's pages, each read by MODEL
SEAL_OUTPUTS = ("BOXES", "SHAPES", "RIM_TEXTS", "RIM_SCORES", "SEAL_SCORES", "MATCH_TEXTS", "MATCH_SCORES")
LINE_OUTPUTS = ("INNER_TEXTS", "INNER_SCORES", "INNER_SEALS", "CODES", "CODE_SCORES", "CODE_SEALS")
EXPECTED_OUTPUTS = ("EXPECTED_FOUND", "EXPECTED_SCORES", "EXPECTED_SEALS")
OUTPUTS = SEAL_OUTPUTS + LINE_OUTPUTS + EXPECTED_OUTPUTS + CHECK_OUTPUTS
# The expected names: a form field (repeated) or a query parameter (raw bodies), sent to the
# seal model as its EXPECTED input. Its limits are the model's own (imgproc/seal/expected.py).
EXPECT, EXPECTED_INPUT = "expect", "EXPECTED"
MAX_EXPECTED, MAX_NAME_CHARS = 20, 64
router = APIRouter(prefix="/v1", tags=["seal"])
# What a score of 0.9 or more has meant on real seals never tuned on (the seal corpus's held-out
# part), for each score a seal carries: written with docs/seal/trust.md by
# `python -m evaluation.seal.trust --heldout --no-fit --write docs/seal/trust.md`.
SCORE_MEANINGS: dict[str, dict[str, Any]] = json.loads(
    Path(__file__).with_name("seal_scores.json").read_text(encoding="utf-8")
)


def sure_means(score: str, cases: str, right: str) -> str:
    """What `SCORE_MEANINGS[score]` says of a score of 0.9 or more, in words: how many of the
    `cases` scored that high were `right`, with the share's 95% interval."""
    said = SCORE_MEANINGS[score]
    count, good, total = said["count"], said["good"], said["total"]
    if not count:
        return f"none of {total} {cases} scored 0.9 or more"
    interval = f"95% {said['low']:.2f}-{said['high']:.2f}"
    return (
        f"{good} of {count} {cases} scored 0.9 or more {right} ({good / count:.2f}, {interval};"
        f" {count} of {total} score that high)"
    )


NEVER_TUNED = "on real seals never tuned on"
TRUST_PAGE = "docs/seal/trust.md"
MAIN_TEXTS = "rectangular seals' main texts"


class SealLine(BaseModel):
    text: str
    score: float = Field(
        ge=0,
        le=1,
        description=f"the probability that the line reads exactly; {NEVER_TUNED},"
        f" {sure_means('inner_line', 'inner lines', 'read exactly')}: {TRUST_PAGE}",
    )


class SealMatch(BaseModel):
    """A seal's best expected name and the probability that the seal says it."""

    text: str
    score: float = Field(ge=0, le=1)


class Seal(BaseModel):
    box: list[int] = Field(min_length=4, max_length=4, description="[x0, y0, x1, y1] in upload pixels")
    shape: Literal["round", "oval", "rect"]
    rim_text: str = Field(description="the curved text along the border, read clockwise from its start")
    rim_score: float = Field(
        ge=0,
        le=1,
        description="the probability that the rim (a rectangular seal's main text) reads exactly;"
        f" {NEVER_TUNED}, {sure_means('rim', 'rims', 'read exactly')};"
        f" {sure_means('main_text', MAIN_TEXTS, 'read exactly')}: {TRUST_PAGE}",
    )
    score: float = Field(
        ge=0,
        le=1,
        description="the probability that this is a real seal at all; on real pages never tuned on,"
        f" {sure_means('seal', 'regions', 'were seals')}; a region under"
        f" {SCORE_MEANINGS['seal']['least']}, or where nothing was read under"
        f" {SCORE_MEANINGS['seal']['textless']}, is not answered: {TRUST_PAGE}",
    )
    inner_texts: list[SealLine] = Field(description="horizontal lines inside, e.g. 合同专用章")
    codes: list[str] = Field(description="number lines: a tax ID, the bottom-arc seal code")
    code_scores: list[float] = Field(
        description="one per code, in the order of `codes`: the probability that it reads exactly;"
        f" {NEVER_TUNED}, {sure_means('code', 'codes', 'read exactly')}: {TRUST_PAGE}",
    )
    match: SealMatch | None = Field(description="the best expected name it carries (null: it carries none)")
    party: SealParty | None = Field(
        default=None,
        description="with check=document only (absent otherwise): the party of `parties` whose name it"
        " says (null: none of them)",
    )


class ExpectedName(BaseModel):
    """An expected name's verdict on a page."""

    text: str = Field(description="the name as sent")
    found: bool = Field(
        description="a seal says it: its score reached the seal model's trust.found_score (0.5)"
    )
    score: float = Field(
        ge=0,
        le=1,
        description="the probability that the best seal for it says it; on real seals never tuned on,"
        " 78 of 84 true names were found (0.93, 95% 0.85-0.97), 1 of 336 names with one character"
        " changed, 48 of 336 with one character inside left out and none of 336 other"
        " organisations' names: docs/seal/trust.md",
    )
    seal: int | None = Field(
        ge=0, description="the index in `seals` of the seal that says it; null when none"
    )


class SealResult(CheckedPage):
    seals: list[Seal]
    expected: list[ExpectedName] = Field(description="one per expected name, in the order sent")
    model: ModelRef


class SealPage(CheckedPage):
    page: int = Field(ge=1)
    width: int = Field(description="the rendered page's width in pixels; boxes are in these pixels")
    height: int
    seals: list[Seal]
    expected: list[ExpectedName]


class DocumentExpectedName(BaseModel):
    """An expected name's verdict over a PDF: its best page."""

    text: str
    found: bool
    score: float = Field(ge=0, le=1)
    page: int | None = Field(ge=1, description="the page whose seal says it best; null when no page holds it")
    seal: int | None = Field(ge=0, description="that page's seal index; null when none")


class SealDocumentEnd(DocumentEnd):
    """The stream's last line, once every page has been answered, with on which page each
    expected name was found."""

    expected: list[DocumentExpectedName]


class SealPages(BaseModel):
    """The answer for a PDF: every page's seals, and where each expected name was found."""

    pages: list[SealPage]
    expected: list[DocumentExpectedName]
    model: ModelRef


def _lines_of(seal: int, owners: npt.NDArray[np.int32], values: list[Any]) -> list[Any]:
    return [value for owner, value in zip(owners.tolist(), values, strict=True) if owner == seal]


def seals_json(out: dict[str, npt.NDArray[Any]]) -> list[dict[str, Any]]:
    """Regroup the BLS model's flat tensors into one JSON object per seal."""
    inner = [
        {"text": utf8(t), "score": round(float(s), SCORE_DECIMALS)}
        for t, s in zip(out["INNER_TEXTS"], out["INNER_SCORES"], strict=True)
    ]
    codes = [utf8(code) for code in out["CODES"]]
    code_scores = [round(float(score), SCORE_DECIMALS) for score in out["CODE_SCORES"]]
    return [
        {
            "box": [int(round(v)) for v in box.tolist()],
            "shape": utf8(shape),
            "rim_text": utf8(rim),
            "rim_score": round(float(score), SCORE_DECIMALS),
            "score": round(float(seal_score), SCORE_DECIMALS),
            "inner_texts": _lines_of(i, out["INNER_SEALS"], inner),
            "codes": _lines_of(i, out["CODE_SEALS"], codes),
            "code_scores": _lines_of(i, out["CODE_SEALS"], code_scores),
            "match": _match(match, match_score),
        }
        for i, (box, shape, rim, score, seal_score, match, match_score) in enumerate(
            zip(
                out["BOXES"],
                out["SHAPES"],
                out["RIM_TEXTS"],
                out["RIM_SCORES"],
                out["SEAL_SCORES"],
                out["MATCH_TEXTS"],
                out["MATCH_SCORES"],
                strict=True,
            )
        )
    ]


def _match(text: bytes, score: float) -> dict[str, Any] | None:
    return {"text": utf8(text), "score": round(float(score), SCORE_DECIMALS)} if text else None


def expected_json(out: dict[str, npt.NDArray[Any]], names: Sequence[str]) -> list[dict[str, Any]]:
    """Each expected name's verdict, in the order sent."""
    verdicts = zip(names, out["EXPECTED_FOUND"], out["EXPECTED_SCORES"], out["EXPECTED_SEALS"], strict=True)
    return [
        {
            "text": name,
            "found": bool(found),
            "score": round(float(score), SCORE_DECIMALS),
            "seal": None if seal < 0 else int(seal),
        }
        for name, found, score, seal in verdicts
    ]


def seal_page_json(
    out: dict[str, npt.NDArray[Any]], names: Sequence[str], check: bool = False
) -> dict[str, Any]:
    """A page's seals and expected names, and, where the document check was asked for, its
    parties and verdict (a PDF page's number and size come with it: gateway.documents)."""
    page = {"seals": seals_json(out), "expected": expected_json(out, names)}
    return with_check(page, out) if check else page


def _best_page(text: str, pages: Sequence[dict[str, Any]], index: int) -> dict[str, Any]:
    """Where one expected name is best said over a document's pages (found before not)."""
    verdicts = [(page["page"], page["expected"][index]) for page in pages if "expected" in page]
    if not verdicts:
        return {"text": text, "found": False, "score": 0.0, "page": None, "seal": None}
    number, best = max(verdicts, key=lambda v: (v[1]["found"], v[1]["score"], -v[0]))
    return {**best, "page": None if best["seal"] is None else number}


def document_expected(names: Sequence[str], pages: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """The document's verdict on each expected name from its pages' (failed pages have none)."""
    return {"expected": [_best_page(text, pages, i) for i, text in enumerate(names)]}


def requested_names(upload: ImageUpload, query: Sequence[str] | None) -> list[str]:
    """The expected names, form fields first then the query's, each stripped; raises
    InvalidField for more than MAX_EXPECTED, an empty one or one over MAX_NAME_CHARS."""
    names = [name.strip() for name in (*upload.texts.get(EXPECT, ()), *(query or ()))]
    if len(names) > MAX_EXPECTED:
        raise InvalidField(f"{len(names)} expected names sent; at most {MAX_EXPECTED} are checked")
    for name in names:
        if not name:
            raise InvalidField("an expected name is empty")
        if len(name) > MAX_NAME_CHARS:
            raise InvalidField(
                f"an expected name has {len(name)} characters; at most {MAX_NAME_CHARS}: {name[:20]}..."
            )
    return names


EXPECT_FIELD = {
    "type": "array",
    "items": {"type": "string", "minLength": 1, "maxLength": MAX_NAME_CHARS},
    "maxItems": MAX_EXPECTED,
    "description": "an organisation name the seals should say (the field repeated for each name)",
}
SEAL_REQUEST_BODY = with_form_fields(DOCUMENT_REQUEST_BODY, {EXPECT: EXPECT_FIELD, CHECK: CHECK_FIELD})
ExpectQuery = Annotated[
    list[str] | None,
    Query(
        description=f"an organisation name the seals should say, repeatable (at most {MAX_EXPECTED}, each "
        f"1 to {MAX_NAME_CHARS} characters); for raw bodies, beside the `{EXPECT}` form fields"
    ),
]


@router.post(
    "/seal",
    response_model=SealResult | SealPages,
    responses=stream_responses(SealPage, SealDocumentEnd),
    openapi_extra=SEAL_REQUEST_BODY,
    summary="Read the red seals (公章) on a page or in a PDF",
)
async def read_seals(
    request: Request,
    upload: DocumentUploadDep,
    triton: TritonDep,
    accept: AcceptHeader = None,
    expect: ExpectQuery = None,
    check: CheckQuery = None,
) -> Response:
    """Find red stamps, unwrap their curved text and read rim, inner lines and codes. With
    expected names (`expect`), say for each whether a seal carries it, scored on the
    recognisers' probabilities rather than on the reading. A PDF's pages are rendered and read
    inside Triton; its answer has one entry per page, or, asked for as `application/x-ndjson`,
    one line per page as soon as it is read; either way the document's own `expected` says on
    which page each name was found. With `check=document`, each seal is checked against the
    parties the page itself names (an invoice's seller and buyer, a contract's 甲方/乙方, a
    certificate's issuer): the page's answer gains `parties`, each seal its `party` and the page
    its `verdict`."""
    names = requested_names(upload, expect)
    checked = requested_check(upload, check)
    texts = ({EXPECTED_INPUT: names} if names else {}) | check_inputs(checked)
    if upload.format == PDF:
        body = DocumentBody(
            lambda out: seal_page_json(out, names, checked), lambda pages: document_expected(names, pages)
        )
        return await answer_document(request, accept, triton, DOCUMENT_MODEL, upload.data, body, texts)
    result = await triton.infer_image(MODEL, upload.data, OUTPUTS, texts=texts)
    return JSONResponse({**seal_page_json(result.outputs, names, checked), "model": result.model_ref()})
