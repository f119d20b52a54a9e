"""Who may import whom, read from the sources' import statements (nothing is imported here).

Tools (bench, training, evaluation) share `evaluation.support`, never the tests; the gateway
imports none of the tools; the python models' shared code imports none of the project's
packages; provisioning is a build step the gateway may call, never the other way round.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SKIPPED_DIRS = {".git", ".cache", "node_modules", "__pycache__"}
PROJECT_PACKAGES = {"gateway", "evaluation", "bench", "training", "tests", "deploy", "provision", "onnx_fold"}
TOOLS = {"evaluation", "bench", "training", "tests"}


def sources(folder: Path) -> Iterator[Path]:
    """The project's Python files under `folder`, virtual environments and caches left out."""
    for path in sorted(folder.rglob("*.py")):
        parts = path.relative_to(ROOT).parts
        if not any(part in SKIPPED_DIRS or part.startswith(".venv") for part in parts):
            yield path


def imported(path: Path) -> set[str]:
    """The top-level names of every absolute import in `path`, in functions too."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module.split(".")[0])
    return names


def offenders(folder: Path, forbidden: set[str]) -> dict[str, set[str]]:
    found = {str(path.relative_to(ROOT)): imported(path) & forbidden for path in sources(folder)}
    return {path: names for path, names in found.items() if names}


def test_the_walk_sees_the_projects_sources_and_every_form_of_import(tmp_path: Path) -> None:
    walked = {path.relative_to(ROOT).parts[0] for path in sources(ROOT)}
    assert {"gateway", "evaluation", "bench", "training", "tests", "triton_repo"} <= walked
    module = tmp_path / "module.py"
    module.write_text("import a.b, c\nfrom d.e import f\nfrom . import g\ndef h():\n    from tests import x")
    assert imported(module) == {"a", "c", "d", "tests"}


def test_nothing_outside_the_tests_imports_them() -> None:
    outside = [path for path in ROOT.iterdir() if path.is_dir() and path.name != "tests"]
    found = {path: names for folder in outside for path, names in offenders(folder, {"tests"}).items()}
    assert not found, f"import the shared tools from evaluation.support instead: {found}"


def test_the_gateway_imports_no_tool() -> None:
    assert not offenders(ROOT / "gateway", TOOLS)


@pytest.mark.parametrize("folder", ["triton_repo/shared", "triton_repo/provision"])
def test_the_triton_side_imports_nothing_of_the_projects_packages(folder: str) -> None:
    allowed = {"provision", "onnx_fold"} if folder.endswith("provision") else set()
    assert not offenders(ROOT / folder, PROJECT_PACKAGES - allowed)
