"""PerRequestModel's contract, with a FAKE triton_python_backend_utils (no server needed).

One request whose handler raises must fail alone, with one response per request, in order.
"""

from __future__ import annotations

import asyncio
import importlib
import sys
import types
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest


class FakeTritonError:
    INVALID_ARG, INTERNAL = "INVALID_ARG", "INTERNAL"

    def __init__(self, message: str, code: str = "INTERNAL") -> None:
        self.message, self.code = message, code


class FakeResponse:
    def __init__(self, output_tensors: list[Any] | None = None, error: FakeTritonError | None = None) -> None:
        self.output_tensors, self.error = output_tensors, error


@pytest.fixture
def pymodel() -> Iterator[types.ModuleType]:
    fake = types.ModuleType("triton_python_backend_utils")
    fake.TritonError = FakeTritonError  # type: ignore[attr-defined]
    fake.InferenceResponse = FakeResponse  # type: ignore[attr-defined]
    fake.Tensor = lambda name, value: (name, value)  # type: ignore[attr-defined]
    fake.logged = []  # type: ignore[attr-defined]
    fake.Logger = types.SimpleNamespace(log_error=fake.logged.append)  # type: ignore[attr-defined]
    sys.modules["triton_python_backend_utils"] = fake
    sys.modules.pop("pymodel", None)
    try:
        yield importlib.import_module("pymodel")
    finally:
        sys.modules.pop("pymodel", None)
        sys.modules.pop("triton_python_backend_utils", None)


def test_a_raising_request_fails_alone(pymodel: types.ModuleType) -> None:
    class Model(pymodel.PerRequestModel):  # type: ignore[name-defined,misc]
        def respond(self, request: Any) -> Any:
            if request == "bad":
                raise RuntimeError("geometry bug")
            return pymodel.response(OUT=request)

    responses = Model().execute(["a", "bad", "c"])
    assert [r.error is None for r in responses] == [True, False, True]
    assert responses[1].error.code == "INTERNAL" and "geometry bug" in responses[1].error.message
    assert responses[2].output_tensors == [("OUT", "c")]
    assert "geometry bug" in sys.modules["triton_python_backend_utils"].logged[0]  # type: ignore[attr-defined]


def test_invalid_argument_is_a_per_request_client_error(pymodel: types.ModuleType) -> None:
    assert pymodel.invalid_argument("bad bytes").error.code == "INVALID_ARG"


def test_lines_are_recognised_in_width_groups_and_answered_in_order(
    pymodel: types.ModuleType, monkeypatch: pytest.MonkeyPatch
) -> None:
    from imgproc.text import Decoded

    widths = [900, 100, 500, 120, 300, 700, 150, 60]  # height 30: aspect = width / 30
    crops = [np.zeros((30, width, 3), np.uint8) for width in widths]
    calls: list[list[int]] = []

    async def fake_recognise(images: list[np.ndarray], charset: Any, model: Any) -> list[Any]:
        calls.append([image.shape[1] for image in images])
        return [Decoded((str(image.shape[1]),), (1.0,)) for image in images]

    monkeypatch.setattr(pymodel, "recognise_chars", fake_recognise)
    lines = asyncio.run(pymodel.recognise_grouped(crops, ("",), batch_size=3))
    assert [line.text for line in lines] == [str(width) for width in widths]
    assert calls == [[60, 100, 120], [150, 300, 500], [700, 900]]  # RapidOCR's groups: narrowest first


def test_no_crops_make_no_call(pymodel: types.ModuleType, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(pymodel, "recognise_chars", None)  # calling it would raise
    assert asyncio.run(pymodel.recognise_grouped([], ("",))) == []
