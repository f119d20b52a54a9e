"""A JSON response rendered with orjson: several times faster than the stdlib for our bodies."""

from __future__ import annotations

from typing import Any

import orjson
from starlette.responses import JSONResponse as _StarletteJSONResponse


class JSONResponse(_StarletteJSONResponse):
    """Starlette's JSONResponse, serialised by orjson (NumPy arrays included)."""

    def render(self, content: Any) -> bytes:
        return orjson.dumps(content, option=orjson.OPT_SERIALIZE_NUMPY)
