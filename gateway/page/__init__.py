"""The try-it page at `/`: static HTML, CSS and JS served by the gateway, nothing from a CDN.

The page posts the chosen file to `/v1/{mnist,ocr,seal}` with the API key the user entered
(if any) and draws the answer on the picture; it holds no logic the API does not expose.
"""

from __future__ import annotations

from pathlib import Path

from fastapi import FastAPI
from fastapi.responses import FileResponse
from fastapi.staticfiles import StaticFiles

ASSETS = Path(__file__).parent
STATIC_PREFIX = "/static/page"


def install_page(app: FastAPI) -> None:
    """Serve the page at `/` and its assets under `STATIC_PREFIX`."""
    app.mount(STATIC_PREFIX, StaticFiles(directory=ASSETS, check_dir=True), name="page-assets")

    @app.get("/", include_in_schema=False)
    async def page() -> FileResponse:
        return FileResponse(ASSETS / "index.html", media_type="text/html")
