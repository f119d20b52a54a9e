"""OTLP protobuf for the gateway's spans, written straight to bytes.

The SDK's OTLP encoder builds a protobuf object for every span, attribute and value, then
serialises them: about 16 µs a span here, half of what a traced request adds to the gateway
(docs/tracing.md). The gateway's spans are simple (scalar attributes, a few events, no links),
so this writes the same message field by field. A batch holding anything else (an array
attribute, a link) goes to the SDK's encoder. tests/unit/test_spanwire.py parses both
encodings back and checks that they are the same message.

The wire format, from opentelemetry-proto's trace.proto and common.proto: each field is a
varint key (`number << 3 | wire type`), then a varint, 8 or 4 little-endian bytes, or a
varint length and that many bytes.
"""

from __future__ import annotations

import struct
from collections.abc import Mapping, Sequence
from typing import Any

from opentelemetry.exporter.otlp.proto.common._internal import (
    _encode_instrumentation_scope,
    _encode_resource,
)
from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
from opentelemetry.sdk.trace import ReadableSpan

_U64 = (1 << 64) - 1
# Span.flags: the parent's is_remote is known (and, with the second bit, true).
HAS_IS_REMOTE, IS_REMOTE = 0x100, 0x200
_FIXED64, _FIXED32, _DOUBLE = struct.Struct("<Q"), struct.Struct("<I"), struct.Struct("<d")


class Unsupported(Exception):
    """The span holds something this encoder does not write."""


def _varint(value: int) -> bytes:
    if value < 0x80:
        return bytes((value,))
    out = bytearray()
    while value > 0x7F:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def _bytes(key: int, payload: bytes) -> bytes:
    """A length-delimited field (`key` already holds wire type 2)."""
    size = len(payload)
    if size < 0x80:
        return bytes((key, size)) + payload
    return bytes((key,)) + _varint(size) + payload


def _any_value(value: Any) -> bytes:
    if isinstance(value, bool):  # before int: a bool is an int
        return b"\x10\x01" if value else b"\x10\x00"
    if isinstance(value, int):
        return b"\x18" + _varint(value & _U64)
    if isinstance(value, float):
        return b"\x21" + _DOUBLE.pack(value)
    if isinstance(value, str):
        return _bytes(0x0A, value.encode())
    raise Unsupported(type(value).__name__)


# Most attributes repeat from request to request (a route, a status, a model, an outcome):
# their KeyValue is written once. Bounded: cleared when full, so ids and sizes cannot grow it.
_KEY_VALUES: dict[tuple[str, type, Any], bytes] = {}
KEY_VALUE_CACHE_SIZE = 4096


def _key_value(name: str, value: Any) -> bytes:
    cache_key = (name, type(value), value)  # the type too: True == 1, and 1 == 1.0
    try:
        encoded = _KEY_VALUES.get(cache_key)
    except TypeError as exc:  # an unhashable value: not one of the scalars written here
        raise Unsupported(type(value).__name__) from exc
    if encoded is None:
        if len(_KEY_VALUES) >= KEY_VALUE_CACHE_SIZE:
            _KEY_VALUES.clear()
        encoded = _KEY_VALUES[cache_key] = _bytes(0x0A, name.encode()) + _bytes(0x12, _any_value(value))
    return encoded


def _attributes(key: int, attributes: Mapping[str, Any] | None) -> bytes:
    """Repeated KeyValue{1: key, 2: AnyValue} as field `key` of the enclosing message."""
    if not attributes:
        return b""
    return b"".join([_bytes(key, _key_value(name, value)) for name, value in attributes.items()])


def _event(event: Any) -> bytes:
    body = b"\x09" + _FIXED64.pack(event.timestamp) + _bytes(0x12, event.name.encode())
    body += _attributes(0x1A, event.attributes)
    if event.dropped_attributes:
        body += b"\x20" + _varint(event.dropped_attributes)
    return _bytes(0x5A, body)


def _span(span: ReadableSpan) -> bytes:
    context = span.get_span_context()
    if context is None or span.links or span.start_time is None or span.end_time is None:
        raise Unsupported("a span with links, or without a context or times")
    parts = [
        b"\x0a\x10" + context.trace_id.to_bytes(16, "big"),
        b"\x12\x08" + context.span_id.to_bytes(8, "big"),
    ]
    if context.trace_state:
        state = ",".join(f"{key}={value}" for key, value in context.trace_state.items())
        parts.append(_bytes(0x1A, state.encode()))
    if span.parent is not None:
        parts.append(b"\x22\x08" + span.parent.span_id.to_bytes(8, "big"))
    parts += [
        _bytes(0x2A, span.name.encode()),
        b"\x30" + _varint(span.kind.value + 1),  # SPAN_KIND_INTERNAL is 1: the API's 0 shifted
        b"\x39" + _FIXED64.pack(span.start_time),
        b"\x41" + _FIXED64.pack(span.end_time),
        _attributes(0x4A, span.attributes),
    ]
    for count, key in ((span.dropped_attributes, 0x50), (span.dropped_events, 0x60)):
        if count:
            parts.append(bytes((key,)) + _varint(count))
    parts += [_event(event) for event in span.events]
    status = b""
    if span.status.description:
        status += _bytes(0x12, span.status.description.encode())
    if span.status.status_code.value:
        status += b"\x18" + _varint(span.status.status_code.value)
    remote = IS_REMOTE if span.parent is not None and span.parent.is_remote else 0
    parts += [_bytes(0x7A, status), b"\x85\x01" + _FIXED32.pack(HAS_IS_REMOTE | remote)]
    return _bytes(0x12, b"".join(parts))  # ScopeSpans.spans (field 2)


def _fast(spans: Sequence[ReadableSpan]) -> bytes:
    # Resource -> scope -> encoded spans, in first-seen order, as the SDK's encoder groups them;
    # by identity (one provider's spans share one resource and one scope object), because
    # hashing a Resource serialises its attributes to JSON each time.
    groups: dict[int, tuple[Any, dict[int, tuple[Any, list[bytes]]]]] = {}
    for span in spans:
        resource, scope = span.resource, span.instrumentation_scope
        scopes = groups.setdefault(id(resource), (resource, {}))[1]
        scopes.setdefault(id(scope), (scope, []))[1].append(_span(span))
    out = []
    for resource, scopes in groups.values():
        body = _bytes(0x0A, _encode_resource(resource).SerializeToString())
        for scope, encoded in scopes.values():
            scope_body = _bytes(0x0A, _encode_instrumentation_scope(scope).SerializeToString())
            scope_body += b"".join(encoded)
            if scope is not None and scope.schema_url:
                scope_body += _bytes(0x1A, scope.schema_url.encode())
            body += _bytes(0x12, scope_body)
        if resource.schema_url:
            body += _bytes(0x1A, resource.schema_url.encode())
        out.append(_bytes(0x0A, body))  # ExportTraceServiceRequest.resource_spans (field 1)
    return b"".join(out)


def encode(spans: Sequence[ReadableSpan]) -> bytes:
    """A serialised ExportTraceServiceRequest of `spans`."""
    try:
        return _fast(spans)
    except Unsupported:
        return bytes(encode_spans(spans).SerializePartialToString())
