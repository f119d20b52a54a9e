"""One error hierarchy for the gateway; each class carries its HTTP status and code.

    GatewayError
    ├── ClientError (4xx)
    │   ├── EmptyUpload            400 empty_upload
    │   ├── PayloadTooLarge        413 payload_too_large
    │   ├── UnsupportedMediaType   415 unsupported_media_type
    │   ├── MissingField           422 missing_field
    │   ├── InvalidImage           422 invalid_image    (also Triton's INVALID_ARG)
    │   └── Overloaded             429 overloaded       (with Retry-After)
    └── UpstreamError              502 upstream_error   (a model failed on the request)
        ├── TritonUnavailable      503 triton_unavailable
        └── UpstreamTimeout        504 upstream_timeout

`install_error_handlers` renders these, FastAPI's validation errors and Starlette's HTTP
errors in one JSON shape: {"error": {"status", "code", "message"}}.
"""

from __future__ import annotations

import logging
from typing import Any, ClassVar

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.responses import Response

from gateway.responses import JSONResponse

logger = logging.getLogger(__name__)
# What a client is told of an error the gateway did not expect (its details are in the log).
INTERNAL_MESSAGE = "internal server error"


class GatewayError(Exception):
    """Base of every error the gateway answers on purpose."""

    status: ClassVar[int] = 500
    code: ClassVar[str] = "internal_error"

    def __init__(self, message: str, *, retry_after_s: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.retry_after_s = retry_after_s


class ClientError(GatewayError):
    status = 400
    code = "bad_request"


class EmptyUpload(ClientError):
    status = 400
    code = "empty_upload"


class PayloadTooLarge(ClientError):
    status = 413
    code = "payload_too_large"


class UnsupportedMediaType(ClientError):
    status = 415
    code = "unsupported_media_type"


class MissingField(ClientError):
    status = 422
    code = "missing_field"


class InvalidImage(ClientError):
    status = 422
    code = "invalid_image"


class InvalidField(ClientError):
    """A text field or query parameter beside the upload that cannot be used as sent."""

    status = 422
    code = "invalid_field"


class Overloaded(ClientError):
    status = 429
    code = "overloaded"


class UpstreamError(GatewayError):
    status = 502
    code = "upstream_error"


class TritonUnavailable(UpstreamError):
    status = 503
    code = "triton_unavailable"


class UpstreamTimeout(UpstreamError):
    status = 504
    code = "upstream_timeout"


def error_body(status: int, code: str, message: str) -> dict[str, Any]:
    """The one JSON error shape's inner object (an NDJSON page line carries it too)."""
    return {"status": status, "code": code, "message": message}


def error_response(status: int, code: str, message: str, retry_after_s: int | None = None) -> Response:
    """The one JSON error shape."""
    headers = {"Retry-After": str(retry_after_s)} if retry_after_s is not None else None
    return JSONResponse({"error": error_body(status, code, message)}, status_code=status, headers=headers)


def _count_rejection(request: Request, code: str) -> None:
    metrics = getattr(request.state, "metrics", None)  # absent only if the lifespan never ran
    if metrics is not None:
        metrics.rejections.labels(code).inc()


async def _gateway_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, GatewayError)  # registered for GatewayError only
    _count_rejection(request, exc.code)
    return error_response(exc.status, exc.code, exc.message, exc.retry_after_s)


async def _validation_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, RequestValidationError)
    details: list[Any] = list(exc.errors())
    where = ", ".join(".".join(str(p) for p in d.get("loc", ())) for d in details) or "request"
    _count_rejection(request, "validation_error")
    return error_response(422, "validation_error", f"invalid request: {where}")


async def _http_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, StarletteHTTPException)
    code = {404: "not_found", 405: "method_not_allowed"}.get(exc.status_code, "http_error")
    return error_response(exc.status_code, code, str(exc.detail))


async def _unexpected(request: Request, exc: Exception) -> Response:
    logger.exception("unhandled error on %s %s", request.method, request.url.path)
    return error_response(GatewayError.status, GatewayError.code, INTERNAL_MESSAGE)


def install_error_handlers(app: FastAPI) -> None:
    """Route every error through the one JSON shape."""
    app.add_exception_handler(GatewayError, _gateway_error)
    app.add_exception_handler(RequestValidationError, _validation_error)
    app.add_exception_handler(StarletteHTTPException, _http_error)
    app.add_exception_handler(Exception, _unexpected)
