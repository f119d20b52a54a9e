"""What every image route shares: its OpenAPI request body and error responses."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

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

_ERRORS = {
    400: "empty upload or malformed or truncated body",
    401: "API keys are configured and none valid was sent (Authorization: Bearer <key>)",
    413: "upload larger than the byte cap",
    415: "not a supported image format",
    422: "missing field, undecodable image, or over the pixel cap",
    429: "too many requests in flight (see Retry-After)",
    503: "inference server unavailable",
    504: "inference server did not answer in time",
}
ERROR_RESPONSES: dict[int | str, dict[str, Any]] = {
    status: {"model": ErrorResponse, "description": text} for status, text in _ERRORS.items()
}
