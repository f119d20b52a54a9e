"""What every image route shares: its OpenAPI request body and error responses, and the
splitting of a document model's answer into pages."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt
from pydantic import BaseModel

from gateway.triton import Inference
from gateway.uploads import FIELD


class ErrorBody(BaseModel):
    status: int
    code: str
    message: str


class ErrorResponse(BaseModel):
    error: ErrorBody


class ModelRef(BaseModel):
    name: str
    version: str


def model_ref(result: Inference) -> dict[str, str]:
    """Which model and version answered, as every route reports it (`ModelRef`)."""
    return {"name": result.model, "version": result.version}


# The body is read by gateway.uploads (streamed, capped), so it is declared here for the docs.
IMAGE_REQUEST_BODY: dict[str, Any] = {
    "requestBody": {
        "required": True,
        "content": {
            "multipart/form-data": {
                "schema": {
                    "type": "object",
                    "required": [FIELD],
                    "properties": {FIELD: {"type": "string", "format": "binary"}},
                }
            },
            "application/octet-stream": {"schema": {"type": "string", "format": "binary"}},
        },
    }
}

# A PDF is sent like an image (multipart field or raw body, `application/pdf` too).
DOCUMENT_REQUEST_BODY: dict[str, Any] = {
    "requestBody": {
        **IMAGE_REQUEST_BODY["requestBody"],
        "content": {
            **IMAGE_REQUEST_BODY["requestBody"]["content"],
            "application/pdf": {"schema": {"type": "string", "format": "binary"}},
        },
    }
}
# The document models' page table (triton_repo/shared/pydocument.py): each page's row count
# of each output, and each rendered page's height and width.
PAGE_ROWS, PAGE_SIZES = "PAGE_ROWS", "PAGE_SIZES"
PAGE_TABLE = (PAGE_ROWS, PAGE_SIZES)


@dataclass(frozen=True)
class Page:
    """One page of a document model's answer, with the page model's outputs for it alone."""

    number: int  # from 1
    height: int
    width: int
    outputs: dict[str, npt.NDArray[Any]]


def split_pages(outputs: dict[str, npt.NDArray[Any]], names: tuple[str, ...]) -> list[Page]:
    """A document model's stacked outputs `names`, cut back into pages by its page table."""
    rows = outputs[PAGE_ROWS].reshape(-1, len(names))
    sizes = outputs[PAGE_SIZES].reshape(-1, 2)
    starts = np.zeros(len(names), np.int64)
    pages = []
    for number, (counts, (height, width)) in enumerate(zip(rows, sizes, strict=True), start=1):
        part = {
            name: outputs[name][start : start + count]
            for name, start, count in zip(names, starts, counts, strict=True)
        }
        starts += counts
        pages.append(Page(number, int(height), int(width), part))
    return pages


_ERRORS = {
    400: "empty upload or malformed or truncated body",
    401: "API keys are configured and none valid was sent (Authorization: Bearer <key>)",
    413: "upload larger than the byte cap",
    415: "not a supported image format (or a PDF where only images are read)",
    422: "missing field, undecodable image or PDF, over the pixel cap, or a PDF over the page cap",
    429: "too many requests in flight (see Retry-After)",
    502: "a model failed on the request (retrying will not help; details in the gateway's log)",
    503: "inference server unavailable",
    504: "inference server did not answer in time",
}
ERROR_RESPONSES: dict[int | str, dict[str, Any]] = {
    status: {"model": ErrorResponse, "description": text} for status, text in _ERRORS.items()
}
