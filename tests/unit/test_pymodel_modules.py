"""pymodel is a package, one module per concern, installed whole where Triton runs the models."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SHARED = ROOT / "triton_repo" / "shared"


def names_the_models_import() -> set[str]:
    names: set[str] = set()
    for path in [*ROOT.glob("triton_repo/models/*/1/model.py"), SHARED / "pydocument.py"]:
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module == "pymodel":
                names |= {alias.name for alias in node.names}
    return names


def test_every_name_the_models_import_is_pymodels_and_the_image_installs_the_package() -> None:
    exported = set(ast.literal_eval(_all_of(SHARED / "pymodel" / "__init__.py")))
    assert names_the_models_import() <= exported
    packaging = (SHARED / "pyproject.toml").read_text()  # deploy/triton: pip install shared
    assert 'include = ["imgproc*", "pymodel*"]' in packaging
    assert 'py-modules = ["pydocument"]' in packaging
    modules = sorted(path.stem for path in (SHARED / "pymodel").glob("*.py"))
    assert modules == ["__init__", "bls", "boundary", "errors", "params", "recognisers", "tensors"]


def _all_of(path: Path) -> str:
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", "") == "__all__":
            return ast.unparse(node.value)
    raise AssertionError(f"{path} has no __all__")
