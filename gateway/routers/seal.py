"""POST /v1/seal: a page in, every red seal on it with its rim text, inner lines and codes."""

from __future__ import annotations

from typing import Any, Literal

import numpy as np
import numpy.typing as npt
from fastapi import APIRouter, Request
from pydantic import BaseModel, Field
from starlette.responses import Response

from gateway.deps import DocumentUploadDep, TritonDep
from gateway.responses import JSONResponse
from gateway.routers.common import (
    DOCUMENT_REQUEST_BODY,
    AcceptHeader,
    ModelRef,
    answer_document,
    stream_responses,
)
from gateway.uploads import PDF

MODEL = "seal"
DOCUMENT_MODEL = "seal_document"  # a PDF's pages, each read by MODEL
SEAL_OUTPUTS = ("BOXES", "SHAPES", "RIM_TEXTS", "RIM_SCORES")
LINE_OUTPUTS = ("INNER_TEXTS", "INNER_SCORES", "INNER_SEALS", "CODES", "CODE_SEALS")
OUTPUTS = SEAL_OUTPUTS + LINE_OUTPUTS
SCORE_DECIMALS = 4
router = APIRouter(prefix="/v1", tags=["seal"])


class SealLine(BaseModel):
    text: str
    score: float = Field(ge=0, le=1)


class Seal(BaseModel):
    box: list[int] = Field(min_length=4, max_length=4, description="[x0, y0, x1, y1] in upload pixels")
    shape: Literal["round", "oval", "rect"]
    rim_text: str = Field(description="the curved text along the border, read clockwise from its start")
    rim_score: float = Field(ge=0, le=1)
    inner_texts: list[SealLine] = Field(description="horizontal lines inside, e.g. 合同专用章")
    codes: list[str] = Field(description="number lines: a tax ID, the bottom-arc seal code")


class SealResult(BaseModel):
    seals: list[Seal]
    model: ModelRef


class SealPage(BaseModel):
    page: int = Field(ge=1)
    width: int = Field(description="the rendered page's width in pixels; boxes are in these pixels")
    height: int
    seals: list[Seal]


class SealPages(BaseModel):
    """The answer for a PDF: every page's seals."""

    pages: list[SealPage]
    model: ModelRef


def _text(value: bytes) -> str:
    return value.decode("utf-8")


def _lines_of(seal: int, owners: npt.NDArray[np.int32], values: list[Any]) -> list[Any]:
    return [value for owner, value in zip(owners.tolist(), values, strict=True) if owner == seal]


def seals_json(out: dict[str, npt.NDArray[Any]]) -> list[dict[str, Any]]:
    """Regroup the BLS model's flat tensors into one JSON object per seal."""
    inner = [
        {"text": _text(t), "score": round(float(s), SCORE_DECIMALS)}
        for t, s in zip(out["INNER_TEXTS"], out["INNER_SCORES"], strict=True)
    ]
    codes = [_text(code) for code in out["CODES"]]
    return [
        {
            "box": [int(round(v)) for v in box.tolist()],
            "shape": _text(shape),
            "rim_text": _text(rim),
            "rim_score": round(float(score), SCORE_DECIMALS),
            "inner_texts": _lines_of(i, out["INNER_SEALS"], inner),
            "codes": _lines_of(i, out["CODE_SEALS"], codes),
        }
        for i, (box, shape, rim, score) in enumerate(
            zip(out["BOXES"], out["SHAPES"], out["RIM_TEXTS"], out["RIM_SCORES"], strict=True)
        )
    ]


def page_seals(outputs: dict[str, npt.NDArray[Any]]) -> dict[str, Any]:
    """A PDF page's reading (its number and size come with it: gateway.documents)."""
    return {"seals": seals_json(outputs)}


@router.post(
    "/seal",
    response_model=SealResult | SealPages,
    responses=stream_responses(SealPage),
    openapi_extra=DOCUMENT_REQUEST_BODY,
    summary="Read the red seals (公章) on a page or in a PDF",
)
async def read_seals(
    request: Request, upload: DocumentUploadDep, triton: TritonDep, accept: AcceptHeader = None
) -> Response:
    """Find red stamps, unwrap their curved text and read rim, inner lines and codes. A PDF's
    pages are rendered and read inside Triton; its answer has one entry per page, or, asked
    for as `application/x-ndjson`, one line per page as soon as it is read."""
    if upload.format == PDF:
        return await answer_document(request, accept, triton, DOCUMENT_MODEL, upload.data, page_seals)
    result = await triton.infer_image(MODEL, upload.data, OUTPUTS)
    return JSONResponse({"seals": seals_json(result.outputs), "model": result.model_ref()})
