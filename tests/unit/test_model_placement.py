"""Where Triton places each model's instances, read from the configs as written.

The ONNX models name no `kind`: Triton then puts them on every GPU where there is one (the
production image, a lent GPU machine) and on the CPU where there is none (local, CI), so one
config serves both (ARCHITECTURE.md). The python models are pinned to `KIND_CPU`: their work
is NumPy and OpenCV, and without a kind Triton would start `count` instances per GPU of them.
A document model is sized and shaped from its page model: its pages in flight, its tensors.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

MODELS = Path(__file__).resolve().parents[2] / "triton_repo" / "models"
CONFIGS = sorted(MODELS.glob("*/config.pbtxt"))
INSTANCE_GROUP = re.compile(r"^instance_group\s*\[(.*?)\]\s*$", re.MULTILINE | re.DOTALL)


def _kinds(text: str) -> list[str]:
    groups = INSTANCE_GROUP.findall(text)
    return [kind for group in groups for kind in re.findall(r"kind:\s*(\w+)", group)]


@pytest.mark.parametrize("config", CONFIGS, ids=lambda path: path.parent.name)
def test_instances_are_placed_for_gpu_and_cpu_machines_alike(config: Path) -> None:
    text = config.read_text()
    if 'platform: "ensemble"' in text:
        assert not INSTANCE_GROUP.search(text)
    elif 'backend: "python"' in text:
        groups = INSTANCE_GROUP.findall(text)
        assert groups and _kinds(text) == ["KIND_CPU"] * len(groups), config
    else:
        assert 'platform: "onnxruntime_onnx"' in text, config
        assert INSTANCE_GROUP.search(text) and _kinds(text) == [], config


PAGES_IN_FLIGHT = re.compile(r'key: "pages_in_flight" value: \{ string_value: "(\d+)" \}')
PAGE_MODEL = re.compile(r'key: "page_model" value: \{ string_value: "(\w+)" \}')
ENSEMBLE_STEP = re.compile(r"^\s*model_name:", re.MULTILINE)


@pytest.mark.parametrize("document", ["seal_document", "ocr_document"])
def test_a_document_model_keeps_a_page_at_each_step_of_its_page_model_and_one_waiting(document: str) -> None:
    """pages_in_flight is sized from the page model: one page per step of its pipeline (an
    ensemble's steps; one for a single model) and one rendered, waiting for the first."""
    config = (MODELS / document / "config.pbtxt").read_text()
    (page_model,) = PAGE_MODEL.findall(config)
    steps = len(ENSEMBLE_STEP.findall((MODELS / page_model / "config.pbtxt").read_text())) or 1
    assert int(PAGES_IN_FLIGHT.findall(config)[0]) == steps + 1


TENSOR = re.compile(r'\{\s*name:\s*"(\w+)"\s*data_type:\s*(\w+)\s*dims:\s*\[([^\]]*)\]\s*(optional: true)?')
PAGE_TABLE = {"PAGE_COUNT", "PAGE", "PAGE_SIZE", "PAGE_ERROR"}


def _tensors(config: str, section: str) -> set[tuple[str, ...]]:
    block = re.search(rf"^{section}\s*\[(.*?)^\]", config, re.MULTILINE | re.DOTALL)
    assert block, section
    return {tuple(part.strip() for part in found) for found in TENSOR.findall(block.group(1))}


@pytest.mark.parametrize("document", ["seal_document", "ocr_document"])
def test_a_document_model_takes_its_page_models_inputs_and_answers_its_outputs(document: str) -> None:
    """pydocument passes every input but the PDF to each page's call, and each page's answer is
    the page model's outputs beside the page table: the configs must say the same tensors."""
    config = (MODELS / document / "config.pbtxt").read_text()
    (page_model,) = PAGE_MODEL.findall(config)
    page_config = (MODELS / page_model / "config.pbtxt").read_text()
    assert _tensors(config, "input") == _tensors(page_config, "input")
    outputs = {tensor for tensor in _tensors(config, "output") if tensor[0] not in PAGE_TABLE}
    assert outputs == _tensors(page_config, "output")
