"""X-Request-ID: accepted from the client (or generated), echoed on the response, written in
every log line of the request and sent to Triton as the inference request's id, so one id
follows a request from the client through the gateway's log into Triton's.

The id lives in a ContextVar set by pure ASGI middleware (outermost, so that every response,
refusals included, carries it); tasks the request spawns inherit it. A client's id is used
only if it is short and plain (letters, digits, `-_.:`), so it cannot forge log lines.
"""

from __future__ import annotations

import logging
import re
import uuid
from contextvars import ContextVar

from starlette.types import ASGIApp, Message, Receive, Scope, Send

HEADER = b"x-request-id"
NO_REQUEST = "-"
_VALID = re.compile(rb"[A-Za-z0-9._:-]{1,128}")
current_request_id: ContextVar[str] = ContextVar("request_id", default=NO_REQUEST)


def request_id_of(scope: Scope) -> str:
    """The client's X-Request-ID if it is acceptable, else a fresh one."""
    for name, value in scope["headers"]:
        if name == HEADER and _VALID.fullmatch(value):
            return str(value.decode())
    return uuid.uuid4().hex


class RequestIdMiddleware:
    """Sets the request's id for its whole handling and echoes it on the response."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        request_id = request_id_of(scope)
        token = current_request_id.set(request_id)

        async def echoing(message: Message) -> None:
            if message["type"] == "http.response.start":
                message = {**message, "headers": [*message.get("headers", []), (HEADER, request_id.encode())]}
            await send(message)

        try:
            await self.app(scope, receive, echoing)
        finally:
            current_request_id.reset(token)


class RequestIdFilter(logging.Filter):
    """Gives every log record a `request_id` attribute (`-` outside a request)."""

    def filter(self, record: logging.LogRecord) -> bool:
        record.request_id = current_request_id.get()
        return True
