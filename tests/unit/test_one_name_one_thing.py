"""One name, one thing: no public name is defined twice in the served code, and the wire names
the gateway sends and reads are the ones the models declare (the gateway's image holds no
triton_repo, so each side writes them once and this test holds them together)."""

from __future__ import annotations

import ast
import re
from collections import defaultdict
from pathlib import Path

from imgproc.seal import expected
from imgproc.seal.parties.verdict import VERDICTS

from gateway.documents import PAGE_TABLE
from gateway.routers import mnist, ocr, seal, seal_check
from gateway.triton import IMAGE_INPUT

ROOT = Path(__file__).resolve().parents[2]
MODELS = ROOT / "triton_repo" / "models"
SERVED = [
    ROOT / "gateway",
    ROOT / "triton_repo" / "shared" / "imgproc",
    ROOT / "triton_repo" / "shared" / "pymodel",
]
ENTRY_POINTS = {"main"}  # each command's own


def defined_names() -> dict[str, list[str]]:
    files = [path for folder in SERVED for path in folder.rglob("*.py")]
    files.append(ROOT / "triton_repo" / "shared" / "pydocument.py")
    where: dict[str, list[str]] = defaultdict(list)
    for path in files:
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                if not node.name.startswith("_") and node.name not in ENTRY_POINTS:
                    where[node.name].append(str(path.relative_to(ROOT)))
    return where


def test_no_public_name_is_defined_twice() -> None:
    twice = {name: paths for name, paths in defined_names().items() if len(paths) > 1}
    assert twice == {}


def tensors(model: str, direction: str) -> set[str]:
    """The tensor names a model's config.pbtxt declares as its `input` or `output`."""
    config = (MODELS / model / "config.pbtxt").read_text(encoding="utf-8")
    block = re.search(rf"^{direction} \[(.*?)^\]", config, re.MULTILINE | re.DOTALL)
    assert block is not None, f"{model} declares no {direction}"
    return set(re.findall(r'name: "([A-Z_0-9]+)"', block.group(1)))


def test_the_gateways_wire_names_are_the_models() -> None:
    for model in (mnist.MODEL, ocr.PAGE_MODEL, ocr.LINE_MODEL, seal.MODEL):
        assert IMAGE_INPUT in tensors(model, "input"), model
    assert mnist.OUTPUT in tensors(mnist.MODEL, "output")
    for model in (ocr.PAGE_MODEL, ocr.LINE_MODEL, ocr.DOCUMENT_MODEL):
        assert set(ocr.OUTPUTS) <= tensors(model, "output"), model
    for model in (seal.MODEL, seal.DOCUMENT_MODEL):
        assert set(seal.OUTPUTS) <= tensors(model, "output"), model
        assert seal.EXPECTED_INPUT in tensors(model, "input"), model
        assert seal_check.CHECK_INPUT in tensors(model, "input"), model
    for model in (ocr.DOCUMENT_MODEL, seal.DOCUMENT_MODEL):
        assert PAGE_TABLE <= tensors(model, "output"), model
        assert IMAGE_INPUT in tensors(model, "input"), model


def test_the_expected_names_limits_are_the_seal_models() -> None:
    assert (seal.MAX_EXPECTED, seal.MAX_NAME_CHARS) == (expected.MAX_EXPECTED, expected.MAX_NAME_CHARS)


def test_the_document_check_is_asked_for_in_the_seal_models_word() -> None:
    assert seal_check.CHECK_DOCUMENT == expected.CHECK_DOCUMENT


def test_the_gateway_and_the_readme_name_every_verdict_the_seal_model_gives() -> None:
    assert list(seal_check.VERDICTS) == list(VERDICTS)
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert [word for word in VERDICTS if f"`{word}`" not in readme] == []
    page = (ROOT / "gateway" / "page" / "page.js").read_text(encoding="utf-8")
    for kind in ("GOOD", "UNSURE"):  # the page's colours for verdicts name only verdicts
        named = re.search(rf"{kind}_VERDICTS = new Set\(\[(.*?)\]\)", page)
        assert named is not None and set(re.findall(r'"(\w+)"', named.group(1))) <= set(VERDICTS)


def dict_keys(path: Path) -> set[str]:
    """The upper-case string keys of a module's dict displays (a model's output tensors)."""
    keys = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Dict):
            keys |= {k.value for k in node.keys if isinstance(k, ast.Constant) and str(k.value).isupper()}
    return keys


def test_the_seal_model_answers_the_outputs_its_config_declares() -> None:
    assert dict_keys(MODELS / "seal" / "1" / "model.py") == tensors(seal.MODEL, "output")


def test_the_document_models_page_table_is_the_gateways() -> None:
    source = (ROOT / "triton_repo" / "shared" / "pydocument.py").read_text(encoding="utf-8")
    for node in ast.parse(source).body:
        if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", "") == "PAGE_TABLE":
            names = {getattr(element, "id", "") for element in getattr(node.value, "elts", [])}
            assert names == PAGE_TABLE  # each constant is named as its value (PAGE = "PAGE")
            assert all(f'"{name}"' in source for name in names)
            return
    raise AssertionError("pydocument has no PAGE_TABLE")
