"""The gateway's log: one JSON object a line, each carrying the request id and trace id of the
request it was written for, so that a log line, a trace and a metric exemplar lead to each
other (`-` and null outside a request or with tracing off).

    {"time": "2025-01-31T09:12:44.120Z", "level": "INFO", "logger": "gateway.access",
     "message": "request", "request_id": "3f1c...", "trace_id": "4bf9...", "span_id": "00f0...",
     "method": "POST", "route": "/v1/seal", "status": 200, ...}

Fields a line adds of its own come as `extra={"fields": {...}}` (gateway.observe's access line).
"""

from __future__ import annotations

import logging
import time
from typing import Any

import orjson
from opentelemetry import trace

from gateway.requestid import RequestIdFilter

FIELDS = "fields"  # the LogRecord attribute that holds a line's own fields


class LogContextFilter(RequestIdFilter):
    """Gives every record `request_id`, `trace_id` and `span_id` (None outside a valid span)."""

    def filter(self, record: logging.LogRecord) -> bool:
        super().filter(record)
        context = trace.get_current_span().get_span_context()
        record.trace_id = f"{context.trace_id:032x}" if context.is_valid else None
        record.span_id = f"{context.span_id:016x}" if context.is_valid else None
        return True


def _utc(created: float) -> str:
    seconds = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(created))
    return f"{seconds}.{int(created % 1 * 1000):03d}Z"


class JsonFormatter(logging.Formatter):
    """One JSON object per record (see the module docstring)."""

    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, Any] = {
            "time": _utc(record.created),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
            "request_id": getattr(record, "request_id", None),
            "trace_id": getattr(record, "trace_id", None),
            "span_id": getattr(record, "span_id", None),
            **getattr(record, FIELDS, {}),
        }
        if record.exc_info:
            line["exception"] = self.formatException(record.exc_info)
        return orjson.dumps(line).decode()


def configure_logging(level: int = logging.INFO) -> None:
    """Route the root logger's records to stderr as JSON lines with the request's ids."""
    handler = logging.StreamHandler()
    handler.setFormatter(JsonFormatter())
    handler.addFilter(LogContextFilter())
    logging.basicConfig(level=level, handlers=[handler], force=True)
