"""Where Triton places each model's instances, read from the configs as written.

The ONNX models name no `kind`: Triton then puts them on every GPU where there is one (the
production image, a lent GPU machine) and on the CPU where there is none (local, CI), so one
config serves both (ARCHITECTURE.md). The python models are pinned to `KIND_CPU`: their work
is NumPy and OpenCV, and without a kind Triton would start `count` instances per GPU of them.
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
