"""POST /v1/ocr: an image in, its text lines (reading order, upload-pixel geometry) out."""

from __future__ import annotations

from typing import Annotated, Any

import numpy as np
import numpy.typing as npt
from fastapi import APIRouter, Query
from pydantic import BaseModel, Field
from starlette.responses import Response

from gateway.deps import TritonDep, UploadDep
from gateway.responses import JSONResponse
from gateway.routers.common import ERROR_RESPONSES, IMAGE_REQUEST_BODY, ModelRef

PAGE_MODEL = "ocr"  # detection, direction, recognition
LINE_MODEL = "ocr_line"  # the whole image is one line (detect=false)
OUTPUTS = ("TEXTS", "SCORES", "POLYGONS", "IMAGE_SIZE")
COORDINATE_DECIMALS = 1
SCORE_DECIMALS = 4
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


@router.post(
    "/ocr",
    response_model=OcrResult,
    responses=ERROR_RESPONSES,
    openapi_extra=IMAGE_REQUEST_BODY,
    summary="Read the text in an image",
)
async def read_text(
    upload: UploadDep,
    triton: TritonDep,
    min_score: Annotated[float, Query(ge=0, le=1, description="drop lines scoring below this")] = 0.0,
    detect: Annotated[bool, Query(description="false: the whole image is one text line")] = True,
) -> Response:
    """Detect and recognise text lines (English and Chinese, PP-OCRv4), as RapidOCR does."""
    result = await triton.infer_image(PAGE_MODEL if detect else LINE_MODEL, upload.data, OUTPUTS)
    out = result.outputs
    lines = [
        line_json(text, score, polygon)
        for text, score, polygon in zip(out["TEXTS"], out["SCORES"], out["POLYGONS"], strict=True)
        if score >= min_score
    ]
    height, width = (int(side) for side in out["IMAGE_SIZE"])
    return JSONResponse(
        {
            "width": width,
            "height": height,
            "lines": lines,
            "text": "\n".join(line["text"] for line in lines),
            "model": {"name": result.model, "version": result.version},
        }
    )
