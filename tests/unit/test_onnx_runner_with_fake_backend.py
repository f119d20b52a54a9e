"""The local ONNX runner's execution-provider choice and the outputs it computes, with a FAKE
triton_python_backend_utils (the runner imports it; no server needed), made-up lists of
available providers and FAKE requests."""

from __future__ import annotations

import importlib.util
import sys
import types
from collections.abc import Iterator
from pathlib import Path

import pytest

RUNNER = Path(__file__).resolve().parents[2] / "triton_repo" / "local" / "onnx_runner.py"
CUDA, CPU = "CUDAExecutionProvider", "CPUExecutionProvider"


@pytest.fixture
def runner() -> Iterator[types.ModuleType]:
    sys.modules["triton_python_backend_utils"] = types.ModuleType("triton_python_backend_utils")
    spec = importlib.util.spec_from_file_location("onnx_runner_under_test", RUNNER)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
        yield module
    finally:
        sys.modules.pop("triton_python_backend_utils", None)


def test_a_gpu_instance_runs_on_cuda_on_its_own_device(runner: types.ModuleType) -> None:
    assert runner.providers("GPU", 1, [CUDA, CPU]) == [(CUDA, {"device_id": 1}), CPU]


def test_a_gpu_instance_without_onnxruntime_gpu_falls_back_to_the_cpu(runner: types.ModuleType) -> None:
    assert runner.providers("GPU", 0, [CPU]) == [CPU]


@pytest.mark.parametrize("kind", ["CPU", None])
def test_a_cpu_instance_stays_on_the_cpu_even_with_cuda_present(
    runner: types.ModuleType, kind: str | None
) -> None:
    assert runner.providers(kind, 0, [CUDA, CPU]) == [CPU]


class FakeRequest:
    def __init__(self, names: list[str]) -> None:
        self.names = names

    def requested_output_names(self) -> list[str]:
        return self.names


@pytest.mark.parametrize(
    ("asked", "computed"),
    [
        (["logits"], ("logits",)),
        (["present.0", "logits"], ("logits", "present.0")),
        ([], ("logits", "present.0")),
    ],
)
def test_only_the_outputs_a_request_asks_for_are_computed(
    runner: types.ModuleType, asked: list[str], computed: tuple[str, ...]
) -> None:
    model = object.__new__(runner.TritonPythonModel)
    model._outputs = ["logits", "present.0"]
    assert model._wanted(FakeRequest(asked)) == computed
