"""Each seal stage imports no other stage (but the one exception docs/seal/README.md names:
find hands its blobs to fit), and what the stages share imports none: the pipeline calls
them in turn."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from imgproc.seal.tunables import table

ROOT = Path(__file__).resolve().parents[2]
SEAL = ROOT / "triton_repo" / "shared" / "imgproc" / "seal"
STAGES = ("find", "fit", "cut", "locate", "unwrap", "read", "repair", "trust", "parties")
SHARED = ("records", "geometry", "runs", "ink", "codes", "words")
EXCEPTIONS = {"find": {"fit"}}  # find runs fit on each blob inside its search (README: The stages)


def stages_imported(path: Path) -> set[str]:
    """The stages a module imports, relatively or by name."""
    imported = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module:
            name = node.module.removeprefix("imgproc.seal.") if node.level == 0 else node.module
            if node.level in (0, 2) or path.parent == SEAL:
                imported.add(name.split(".")[0])
    return imported & set(STAGES)


def test_a_stage_imports_no_other_stage() -> None:
    found = {}
    for stage in STAGES:
        others = set().union(*(stages_imported(path) for path in (SEAL / stage).glob("*.py"))) - {stage}
        if others:
            found[stage] = others
    assert found == EXCEPTIONS


def test_what_the_stages_share_imports_no_stage() -> None:
    assert {name: stages_imported(SEAL / f"{name}.py") for name in SHARED} == {name: set() for name in SHARED}


def test_the_tunables_table_has_one_section_per_parameter_class_and_counts_them() -> None:
    text = table()
    sections = re.findall(r"^## (.+)$", text, re.MULTILINE)
    assert len(sections) == len(set(sections)), sections
    rows = len(re.findall(r"^\| `", text, re.MULTILINE))
    assert f"\n{rows} tunables.\n" in text


def test_no_count_of_tunables_is_typed_by_hand() -> None:
    for page in (ROOT / "README.md", SEAL.parents[3] / "docs" / "seal" / "README.md"):
        assert not re.search(r"\b\d+ tunables\b", page.read_text(encoding="utf-8")), page
