"""POST /v1/ocr: an image in, its text lines (reading order, upload-pixel geometry) out."""

from __future__ import annotations

from functools import partial
from typing import Annotated, Any

import numpy as np
import numpy.typing as npt
from fastapi import APIRouter, Query, Request
from pydantic import BaseModel, Field
from starlette.responses import Response

from gateway.deps import DocumentUploadDep, TritonDep
from gateway.documents import DocumentBody
from gateway.responses import JSONResponse
from gateway.routers.common import (
    DOCUMENT_REQUEST_BODY,
    SCORE_DECIMALS,
    AcceptHeader,
    ModelRef,
    answer_document,
    stream_responses,
)
from gateway.uploads import PDF

PAGE_MODEL = "ocr"  # detection, direction, recognition
LINE_MODEL = "ocr_line"  # the whole image is one line (detect=false)
DOCUMENT_MODEL = "ocr_document"  # a PDF's pages, each read by PAGE_MODEL
OUTPUTS = ("TEXTS", "SCORES", "POLYGONS", "IMAGE_SIZE")
COORDINATE_DECIMALS = 1
router = APIRouter(prefix="/v1", tags=["ocr"])

Point = Annotated[list[float], Field(min_length=2, max_length=2)]


class OcrLine(BaseModel):
    text: str
    score: float = Field(ge=0, le=1, description="mean character confidence")
    polygon: list[Point] = Field(
        min_length=4,
        max_length=4,
        description="corners [x, y]: top-left, top-right, bottom-right, bottom-left",
    )
    box: list[float] = Field(min_length=4, max_length=4, description="axis-aligned bounds [x0, y0, x1, y1]")


class OcrResult(BaseModel):
    width: int = Field(description="upload width in pixels, after EXIF orientation")
    height: int = Field(description="upload height in pixels, after EXIF orientation")
    lines: list[OcrLine] = Field(description="in reading order: top to bottom, left to right")
    text: str = Field(description="the lines' texts joined by newlines")
    model: ModelRef


class OcrPage(BaseModel):
    page: int = Field(ge=1)
    width: int = Field(description="the rendered page's width in pixels; coordinates are in these pixels")
    height: int
    lines: list[OcrLine]
    text: str


class OcrPages(BaseModel):
    """The answer for a PDF: every page read as an image is."""

    pages: list[OcrPage]
    model: ModelRef


def line_json(text: bytes, score: float, polygon: npt.NDArray[np.float32]) -> dict[str, Any]:
    """One line's JSON, coordinates rounded to 0.1 px."""
    corners = np.round(polygon.astype(np.float64), COORDINATE_DECIMALS)
    bounds = [*corners.min(axis=0).tolist(), *corners.max(axis=0).tolist()]
    return {
        "text": text.decode("utf-8"),
        "score": round(float(score), SCORE_DECIMALS),
        "polygon": corners.tolist(),
        "box": bounds,
    }


def ocr_page_json(out: dict[str, npt.NDArray[Any]], min_score: float) -> dict[str, Any]:
    """One page's size, lines and text from the ocr model's outputs."""
    lines = [
        line_json(text, score, polygon)
        for text, score, polygon in zip(out["TEXTS"], out["SCORES"], out["POLYGONS"], strict=True)
        if score >= min_score
    ]
    height, width = (int(side) for side in out["IMAGE_SIZE"])
    return {
        "width": width,
        "height": height,
        "lines": lines,
        "text": "\n".join(line["text"] for line in lines),
    }


@router.post(
    "/ocr",
    response_model=OcrResult | OcrPages,
    responses=stream_responses(OcrPage),
    openapi_extra=DOCUMENT_REQUEST_BODY,
    summary="Read the text in an image or a PDF",
)
async def read_text(
    request: Request,
    upload: DocumentUploadDep,
    triton: TritonDep,
    min_score: Annotated[float, Query(ge=0, le=1, description="drop lines scoring below this")] = 0.0,
    detect: Annotated[
        bool, Query(description="false: the whole image is one text line (PDF pages are always detected)")
    ] = True,
    accept: AcceptHeader = None,
) -> Response:
    """Detect and recognise text lines (English and Chinese, PP-OCRv4), as RapidOCR does. A
    PDF's pages are rendered and read inside Triton; its answer has one entry per page, or,
    asked for as `application/x-ndjson`, one line per page as soon as it is read."""
    if upload.format == PDF:
        body = DocumentBody(partial(ocr_page_json, min_score=min_score))
        return await answer_document(request, accept, triton, DOCUMENT_MODEL, upload.data, body)
    result = await triton.infer_image(PAGE_MODEL if detect else LINE_MODEL, upload.data, OUTPUTS)
    return JSONResponse({**ocr_page_json(result.outputs, min_score), "model": result.model_ref()})
