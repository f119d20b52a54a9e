"""Optional API keys: when any are configured, `/v1/*` needs `Authorization: Bearer <key>`.

Keys come from `GATEWAY_API_KEYS` (a JSON list) and/or `GATEWAY_API_KEYS_FILE` (one key per
line, as a Kubernetes secret is mounted); none configured means no authentication. The check is
pure ASGI middleware in front of admission control, so a request without a valid key costs no
in-flight slot, no body read and no dependency resolution. Probes and scrapes (`/healthz`,
`/readyz`, `/metrics`) and the docs stay open. Every configured key is compared in constant
time (`hmac.compare_digest`), all of them each time, so the answer's timing tells nothing about
how much of a guess was right or which key it was near. The OpenAPI schema declares a bearer
scheme, so the docs page has an Authorize button that sends the key.
"""

from __future__ import annotations

import hmac
from pathlib import Path
from typing import Any

from fastapi import FastAPI
from starlette.types import ASGIApp, Receive, Scope, Send

from gateway.errors import error_response

PROTECTED_PREFIX = "/v1/"
SCHEME = "bearerAuth"
_BEARER = b"bearer "


def load_keys(keys: tuple[str, ...], path: Path | None) -> tuple[bytes, ...]:
    """The configured keys, from the list and the file (blank lines and spaces ignored)."""
    from_file = path.read_text().splitlines() if path is not None else []
    return tuple(key.strip().encode() for key in (*keys, *from_file) if key.strip())


def presented_key(scope: Scope) -> bytes | None:
    """The key after `Bearer ` in the Authorization header, or None."""
    for name, value in scope["headers"]:
        if name == b"authorization" and value[: len(_BEARER)].lower() == _BEARER:
            return bytes(value[len(_BEARER) :].strip())
    return None


def is_allowed(presented: bytes | None, keys: tuple[bytes, ...]) -> bool:
    """Constant time in the key's content: every key is compared, the result folded at the end."""
    matches = [hmac.compare_digest(presented or b"", key) for key in keys]
    return presented is not None and any(matches)


class ApiKeyMiddleware:
    """401 JSON for a `/v1/` request without a configured key; everything else passes."""

    def __init__(self, app: ASGIApp, keys: tuple[bytes, ...]) -> None:
        self.app, self.keys = app, keys

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if (
            scope["type"] != "http"
            or not self.keys
            or not scope["path"].startswith(PROTECTED_PREFIX)
            or is_allowed(presented_key(scope), self.keys)
        ):
            await self.app(scope, receive, send)
            return
        metrics = scope["state"]["metrics"]
        metrics.rejections.labels("unauthorized").inc()
        response = error_response(401, "unauthorized", "send a valid API key as Authorization: Bearer <key>")
        response.headers["WWW-Authenticate"] = "Bearer"
        await response(scope, receive, send)


def install_api_key_docs(app: FastAPI) -> None:
    """Declare the bearer scheme on every `/v1/` operation of the OpenAPI schema."""
    build = app.openapi

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            schema = build()
            schemes = schema.setdefault("components", {}).setdefault("securitySchemes", {})
            schemes[SCHEME] = {"type": "http", "scheme": "bearer", "description": "an API key"}
            for path, operations in schema.get("paths", {}).items():
                if path.startswith(PROTECTED_PREFIX):
                    for operation in operations.values():
                        operation["security"] = [{SCHEME: []}]
            app.openapi_schema = schema
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]
