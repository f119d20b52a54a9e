"""PerRequestModel's contract, with a FAKE triton_python_backend_utils (no server needed).

One request whose handler raises must fail alone, with one response per request, in order.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import importlib.util
import json
import sys
import types
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

MODULES_OVER_IT = ("pymodel", "pydocument")


class FakeTritonError:
    INVALID_ARG, INTERNAL, UNAVAILABLE, CANCELLED = "INVALID_ARG", "INTERNAL", "UNAVAILABLE", "CANCELLED"

    def __init__(self, message: str, code: str = "INTERNAL") -> None:
        self.message, self.code = message, code


class FakeResponse:
    def __init__(self, output_tensors: list[Any] | None = None, error: FakeTritonError | None = None) -> None:
        self.output_tensors, self.error = output_tensors, error


@contextlib.contextmanager
def fake_backend() -> Iterator[None]:
    """The fake triton_python_backend_utils installed; the modules that import it are imported
    afresh inside (and forgotten after)."""
    fake = types.ModuleType("triton_python_backend_utils")
    fake.TritonError = FakeTritonError  # type: ignore[attr-defined]
    fake.InferenceResponse = FakeResponse  # type: ignore[attr-defined]
    fake.Tensor = lambda name, value: (name, value)  # type: ignore[attr-defined]
    fake.InferenceRequest = lambda **fields: fields  # type: ignore[attr-defined]
    fake.logged = []  # type: ignore[attr-defined]
    fake.Logger = types.SimpleNamespace(  # type: ignore[attr-defined]
        log_error=fake.logged.append, log_warn=fake.logged.append, log_info=fake.logged.append
    )
    fake.TRITONSERVER_RESPONSE_COMPLETE_FINAL = 1  # type: ignore[attr-defined]
    sys.modules["triton_python_backend_utils"] = fake
    forget_modules_over_it()
    try:
        yield
    finally:
        forget_modules_over_it()
        sys.modules.pop("triton_python_backend_utils", None)


def forget_modules_over_it() -> None:
    """Drops the modules that import the backend, pymodel's own modules too."""
    for name in [name for name in sys.modules if name.split(".")[0] in MODULES_OVER_IT]:
        sys.modules.pop(name, None)


@pytest.fixture
def pymodel() -> Iterator[types.ModuleType]:
    with fake_backend():
        yield importlib.import_module("pymodel")


TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736"


class FakeRequest:
    def __init__(self, name: str, cancelled: bool = False, traced: bool = True) -> None:
        self.name, self.cancelled, self.traced = name, cancelled, traced

    def is_cancelled(self) -> bool:
        return self.cancelled

    def request_id(self) -> str:
        return f"id-{self.name}"

    def trace(self) -> Any:  # Triton's InferenceTrace: get_context() is None when not traced
        context = f'{{"traceparent": "00-{TRACE_ID}-00f067aa0ba902b7-01"}}' if self.traced else None
        return types.SimpleNamespace(owner=self.name, get_context=lambda: context)


def logged() -> list[str]:
    return sys.modules["triton_python_backend_utils"].logged  # type: ignore[attr-defined,no-any-return]


def model_raising(pymodel: types.ModuleType, exc: Exception) -> Any:
    class Model(pymodel.PerRequestModel):  # type: ignore[name-defined,misc]
        def respond(self, request: FakeRequest) -> Any:
            if request.name == "bad":
                raise exc
            return pymodel.response(OUT=request.name)

    return Model()


def test_a_raising_request_fails_alone(pymodel: types.ModuleType) -> None:
    responses = model_raising(pymodel, RuntimeError("geometry bug")).execute(
        [FakeRequest("a"), FakeRequest("bad"), FakeRequest("c")]
    )
    assert [r.error is None for r in responses] == [True, False, True]
    assert responses[2].output_tensors == [("OUT", "c")]


def test_a_bug_is_internal_with_a_generic_message_and_the_details_in_the_log(
    pymodel: types.ModuleType,
) -> None:
    (response,) = model_raising(pymodel, ValueError("charset has 6625 classes")).execute([FakeRequest("bad")])
    assert response.error.code == "INTERNAL"
    assert "charset" not in response.error.message and "id-bad" in response.error.message
    assert "id-bad" in logged()[0] and "charset has 6625 classes" in logged()[0]
    assert f"trace {TRACE_ID}" in logged()[0]  # the id the gateway's log and the trace store show


def test_the_trace_id_is_read_from_tritons_context_or_dashed(pymodel: types.ModuleType) -> None:
    assert pymodel.trace_id_of(f'{{"traceparent": "00-{TRACE_ID}-00f067aa0ba902b7-01"}}') == TRACE_ID
    for context in (None, "", "{}", "not json", '{"traceparent": "garbled"}', "[1]"):
        assert pymodel.trace_id_of(context) == "-", context
    model_raising(pymodel, ValueError("x")).execute([FakeRequest("bad", traced=False)])
    assert "request id-bad trace -:" in logged()[0]


def test_a_bad_image_is_invalid_arg_with_its_message(pymodel: types.ModuleType) -> None:
    from imgproc.imaging import ImageError

    (response,) = model_raising(pymodel, ImageError("not a recognised image format")).execute(
        [FakeRequest("bad")]
    )
    assert (response.error.code, response.error.message) == ("INVALID_ARG", "not a recognised image format")


def test_a_failed_call_to_another_model_is_unavailable(pymodel: types.ModuleType) -> None:
    error = pymodel.ModelCallError("text_recognition", "model is not ready")
    (response,) = model_raising(pymodel, error).execute([FakeRequest("bad")])
    assert response.error.code == "UNAVAILABLE" and "text_recognition" in response.error.message


def test_a_cancelled_request_stops_at_its_check_and_is_answered_cancelled(pymodel: types.ModuleType) -> None:
    class Model(pymodel.AsyncPerRequestModel):  # type: ignore[name-defined,misc]
        async def respond(self, request: FakeRequest) -> Any:
            pymodel.check_cancelled(request)
            return pymodel.response(OUT=request.name)

    gone, waiting = FakeRequest("gone", cancelled=True), FakeRequest("waiting")
    responses = asyncio.run(Model().execute([gone, waiting]))
    assert responses[0].error.code == "CANCELLED" and "id-gone" in logged()[0]
    assert responses[1].error is None


def test_a_bls_call_made_for_a_cancelled_request_is_never_sent(pymodel: types.ModuleType) -> None:
    sent: list[Any] = []

    class Model(pymodel.AsyncPerRequestModel):  # type: ignore[name-defined,misc]
        async def respond(self, request: FakeRequest) -> Any:
            async def call() -> None:  # in a task of its own, as the pipelines' calls are
                sent.append(pymodel.bls._request("text_recognition", {}, ["OUT"]))

            await asyncio.gather(call())
            return pymodel.response(OUT=request.name)

    responses = asyncio.run(Model().execute([FakeRequest("gone", cancelled=True), FakeRequest("waiting")]))
    assert [r.error.code if r.error else None for r in responses] == ["CANCELLED", None]
    assert [call["model_name"] for call in sent] == ["text_recognition"]  # the waiting one's only
    assert sent[0]["trace"].owner == "waiting"  # the call is traced as a child of its own request


def test_a_called_model_that_refused_its_input_is_told_from_one_that_failed(
    pymodel: types.ModuleType,
) -> None:
    from imgproc.imaging import Refused

    class ErrorResult:  # what BLS hands back: the message kept, the code always INTERNAL
        def __init__(self, message: str) -> None:
            self._error = types.SimpleNamespace(message=lambda: message, code=lambda: "INTERNAL")

        def has_error(self) -> bool:
            return True

        def error(self) -> Any:
            return self._error

    for message, invalid in ((str(Refused("30 seals found")), True), ("model is not ready", False)):
        with pytest.raises(pymodel.ModelCallError) as raised:
            pymodel.bls._checked(ErrorResult(message), "seal")
        assert raised.value.invalid is invalid and raised.value.message == message


def test_the_async_base_has_the_same_boundary(pymodel: types.ModuleType) -> None:
    class Model(pymodel.AsyncPerRequestModel):  # type: ignore[name-defined,misc]
        async def respond(self, request: FakeRequest) -> Any:
            if request.name == "bad":
                raise KeyError("boom")
            return pymodel.response(OUT=request.name)

    responses = asyncio.run(Model().execute([FakeRequest("bad"), FakeRequest("ok")]))
    assert responses[0].error.code == "INTERNAL" and "boom" not in responses[0].error.message
    assert responses[1].output_tensors == [("OUT", "ok")]


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

    monkeypatch.setattr(pymodel.recognisers, "recognise_chars", fake_recognise)
    lines = asyncio.run(pymodel.recognise_grouped(crops, ("",), batch_size=3))
    assert [line.text for line in lines] == [str(width) for width in widths]
    assert calls == [[60, 100, 120], [150, 300, 500], [700, 900]]  # RapidOCR's groups: narrowest first


def test_no_crops_make_no_call(pymodel: types.ModuleType, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(pymodel.recognisers, "recognise_chars", None)  # calling it would raise
    assert asyncio.run(pymodel.recognise_grouped([], ("",))) == []


def test_the_seal_model_serves_every_tunable_its_config_sets_top_level_ones_too(
    pymodel: types.ModuleType,
) -> None:
    """config.pbtxt's `max_seals` (a top-level tunable, no dot in its name) reaches the reader."""
    path = Path(__file__).resolve().parents[2] / "triton_repo" / "models" / "seal" / "1" / "model.py"
    spec = importlib.util.spec_from_file_location("seal_model_under_test", path)
    assert spec is not None and spec.loader is not None
    seal = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(seal)
    parameters = {"max_seals": {"string_value": "3"}, "max_pixels": {"string_value": "100"}}
    config = seal.seal_config({"model_config": json.dumps({"parameters": parameters})})
    assert config.max_seals == 3
    with pytest.raises(ValueError, match="max_seal"):
        seal.seal_config({"model_config": json.dumps({"parameters": {"max_seal": {"string_value": "3"}}})})
    one_number = {"fit.ransac.arc_span": {"string_value": "0.3"}}  # a pair: the model must not load
    with pytest.raises(ValueError, match=r"fit\.ransac\.arc_span='0\.3': expected 2 values, got 1"):
        seal.seal_config({"model_config": json.dumps({"parameters": one_number})})
