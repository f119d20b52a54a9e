"""What every image route shares: its OpenAPI request body and error responses, and the
answer for a PDF (one JSON answer, or its pages streamed as NDJSON lines: gateway.documents)."""

from __future__ import annotations

from functools import partial
from typing import Annotated, Any

from fastapi import Header, Request
from pydantic import BaseModel, Field
from starlette.responses import Response, StreamingResponse

from gateway.documents import (
    NDJSON,
    DocumentBody,
    document_json,
    ndjson_lines,
    open_document,
    wants_stream,
)
from gateway.metrics import GatewayMetrics
from gateway.observe import report_failure
from gateway.responses import JSONResponse
from gateway.settings import Settings
from gateway.triton import TextInputs, TritonClient
from gateway.uploads import FIELD

SCORE_DECIMALS = 4  # the digits of every score a JSON answer gives


def utf8(value: bytes) -> str:
    """A string tensor's element as text."""
    return value.decode("utf-8")


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


def with_form_fields(body: dict[str, Any], fields: dict[str, Any]) -> dict[str, Any]:
    """A request body whose multipart form also has `fields` (JSON schemas by name) beside
    the image."""
    content = body["requestBody"]["content"]
    form = content["multipart/form-data"]["schema"]
    schema = {**form, "properties": {**form["properties"], **fields}}
    multipart = {"multipart/form-data": {"schema": schema}}
    return {"requestBody": {**body["requestBody"], "content": {**content, **multipart}}}


AcceptHeader = Annotated[
    str | None,
    Header(description=f"`{NDJSON}`: a PDF's pages streamed, one JSON line per page as it is read"),
]


class DocumentStart(BaseModel):
    """The stream's first line: how many pages will follow."""

    pages: int = Field(ge=1)
    model: ModelRef


class PageError(BaseModel):
    """A page that could not be read (the others still come)."""

    page: int = Field(ge=1)
    error: ErrorBody


class DocumentEnd(BaseModel):
    """The stream's last line, once every page has been answered."""

    done: bool
    pages: int = Field(ge=1)
    failed: int = Field(ge=0, description="pages answered with an error")
    model: ModelRef


class StreamError(BaseModel):
    """The last line of a stream cut short (Triton gone, or silent): no closing line follows."""

    error: ErrorBody


COMPONENTS = "#/components/schemas/{model}"


def _inline(model: type[BaseModel]) -> dict[str, Any]:
    # Its $defs (ModelRef, ErrorBody) are components of every route's JSON answer already.
    schema = model.model_json_schema(ref_template=COMPONENTS)
    schema.pop("$defs", None)
    return schema


def stream_responses(
    page: type[BaseModel], end: type[DocumentEnd] = DocumentEnd
) -> dict[int | str, dict[str, Any]]:
    """The OpenAPI 200 of a route that streams a PDF's pages (its closing line `end`), beside
    its errors."""
    lines: list[type[BaseModel]] = [DocumentStart, page, PageError, end, StreamError]
    schema = {
        "anyOf": [
            {"$ref": COMPONENTS.format(model=page.__name__)} if model is page else _inline(model)
            for model in lines
        ]
    }
    description = (
        "The answer (JSON). For a PDF sent with `Accept: application/x-ndjson`: one JSON object "
        "per line, the page count first, then each page as soon as it is read (in the order "
        "they are read; a page that fails is its error, and the others still come), then the "
        "closing line; a stream cut short ends with an error line instead."
    )
    return {200: {"description": description, "content": {NDJSON: {"schema": schema}}}, **ERROR_RESPONSES}


async def answer_document(
    request: Request,
    accept: str | None,
    triton: TritonClient,
    model: str,
    data: bytes,
    body: DocumentBody,
    texts: TextInputs | None = None,
) -> Response:
    """A PDF's answer: its pages streamed where `accept` asks for NDJSON, else one JSON answer;
    `texts` are string inputs the model passes to each page's. Raises GatewayError (before
    the stream: the PDF refused, Triton unavailable)."""
    settings: Settings = request.state.settings
    metrics: GatewayMetrics = request.state.metrics
    document = await open_document(triton, model, data, settings, texts)
    if wants_stream(accept):
        failed_with = partial(report_failure, request.scope)
        lines = ndjson_lines(document, body, metrics, settings.retry_after_s, failed_with)
        return StreamingResponse(lines, media_type=NDJSON)
    return JSONResponse(await document_json(document, body, metrics, settings))


_ERRORS = {
    400: "empty upload or malformed or truncated body",
    401: "API keys are configured and none valid was sent (Authorization: Bearer <key>)",
    413: "upload larger than the byte cap (an image's, or a PDF's)",
    415: "not a supported image format (or a PDF where only images are read)",
    422: (
        "missing field, too many form parts, a text field or query parameter that cannot be used as "
        "sent (expected names, check), undecodable image or PDF, over the pixel cap, or a PDF over the "
        "page cap"
    ),
    429: "too many requests in flight (see Retry-After)",
    502: "a model failed on the request (retrying will not help; details in the gateway's log)",
    503: "inference server unavailable",
    504: "inference server did not answer in time (for a PDF: its deadline, growing with its pages)",
}
ERROR_RESPONSES: dict[int | str, dict[str, Any]] = {
    status: {"model": ErrorResponse, "description": text} for status, text in _ERRORS.items()
}
