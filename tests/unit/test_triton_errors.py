"""tritonclient errors become the gateway's own, with the right HTTP status."""

from __future__ import annotations

import pytest
from tritonclient.utils import InferenceServerException

from gateway.errors import InvalidImage, Overloaded, TritonUnavailable, UpstreamError, UpstreamTimeout
from gateway.triton import translate


@pytest.mark.parametrize(
    "status, message, expected, http_status",
    [
        ("StatusCode.INVALID_ARGUMENT", "cannot decode", InvalidImage, 422),
        ("StatusCode.UNAVAILABLE", "Exceeds maximum queue size", Overloaded, 429),
        ("StatusCode.RESOURCE_EXHAUSTED", "too many", Overloaded, 429),
        ("StatusCode.DEADLINE_EXCEEDED", "Deadline Exceeded", UpstreamTimeout, 504),
        ("StatusCode.UNAVAILABLE", "failed to connect", TritonUnavailable, 503),
        ("StatusCode.NOT_FOUND", "model not found", TritonUnavailable, 503),
        ("StatusCode.INTERNAL", "seal: internal error (request 7)", UpstreamError, 502),
        ("StatusCode.UNKNOWN", "ValueError: bad charset", UpstreamError, 502),
        (None, "socket closed", TritonUnavailable, 503),
    ],
)
def test_translate(status: str | None, message: str, expected: type, http_status: int) -> None:
    error = translate(InferenceServerException(message, status=status), retry_after_s=3)
    assert type(error) is expected
    assert (error.status, error.code) == (http_status, expected.code)


def test_only_an_invalid_arguments_message_reaches_the_client() -> None:
    assert translate(
        InferenceServerException("cannot decode", status="StatusCode.INVALID_ARGUMENT"), 1
    ).message == ("cannot decode")
    for status in ("StatusCode.INTERNAL", "StatusCode.UNKNOWN", "StatusCode.UNAVAILABLE", None):
        error = translate(InferenceServerException("ValueError: secret detail", status=status), 1)
        assert "secret" not in error.message and "ValueError" not in error.message


def test_a_model_failure_is_not_retried_with_retry_after() -> None:
    assert (
        translate(InferenceServerException("x", status="StatusCode.INTERNAL"), retry_after_s=7).retry_after_s
        is None
    )


def test_overload_and_unavailable_carry_retry_after() -> None:
    for status in ("StatusCode.RESOURCE_EXHAUSTED", "StatusCode.UNAVAILABLE"):
        assert translate(InferenceServerException("x", status=status), retry_after_s=7).retry_after_s == 7
