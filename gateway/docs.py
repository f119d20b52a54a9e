"""/docs and /redoc served entirely by the gateway: no CDN, so they work without internet."""

from __future__ import annotations

from pathlib import Path

import fastapi_offline
from fastapi import FastAPI
from fastapi.openapi.docs import get_redoc_html, get_swagger_ui_html
from fastapi.responses import HTMLResponse
from fastapi.staticfiles import StaticFiles

ASSETS = Path(fastapi_offline.__file__).parent / "static"
STATIC_PREFIX = "/static/docs"


def install_offline_docs(app: FastAPI) -> None:
    """Mount the bundled Swagger UI and ReDoc assets and the two pages that use them."""
    app.mount(STATIC_PREFIX, StaticFiles(directory=ASSETS), name="docs-assets")
    title = app.title
    openapi_url = app.openapi_url or "/openapi.json"

    @app.get("/docs", include_in_schema=False)
    async def swagger_ui() -> HTMLResponse:
        return get_swagger_ui_html(
            openapi_url=openapi_url,
            title=f"{title} - docs",
            swagger_js_url=f"{STATIC_PREFIX}/swagger-ui-bundle.js",
            swagger_css_url=f"{STATIC_PREFIX}/swagger-ui.css",
            swagger_favicon_url=f"{STATIC_PREFIX}/favicon.png",
        )

    @app.get("/redoc", include_in_schema=False)
    async def redoc() -> HTMLResponse:
        return get_redoc_html(
            openapi_url=openapi_url,
            title=f"{title} - ReDoc",
            redoc_js_url=f"{STATIC_PREFIX}/redoc.standalone.js",
            redoc_favicon_url=f"{STATIC_PREFIX}/favicon.png",
            with_google_fonts=False,
        )
