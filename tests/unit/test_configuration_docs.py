"""The README's configuration table lists every setting with the default `gateway.settings` has."""

from __future__ import annotations

import json
import re
from pathlib import Path

from gateway.settings import Settings

README = Path(__file__).resolve().parents[2] / "README.md"
ROW = re.compile(r"^\| `(GATEWAY_[A-Z0-9_]+)` \| `?([^|`]*?)`? \|", re.MULTILINE)
PREFIX = Settings.model_config.get("env_prefix", "")


def as_documented(default: object) -> str:
    """A default as the table writes it: whole numbers without a point, lists as JSON."""
    if default is None:
        return "unset"
    if isinstance(default, tuple):
        return json.dumps(list(default))
    if isinstance(default, float) and default.is_integer():
        return str(int(default))
    return str(default)


def test_as_documented_writes_defaults_as_the_table_does() -> None:
    assert [as_documented(v) for v in (None, ("a", "b"), (), 30.0, 0.5, 256)] == [
        "unset", '["a", "b"]', "[]", "30", "0.5", "256",
    ]  # fmt: skip


def test_every_setting_is_in_the_readme_with_its_default() -> None:
    documented = dict(ROW.findall(README.read_text()))
    fields = Settings.model_fields.items()
    assert documented == {f"{PREFIX}{name}".upper(): as_documented(field.default) for name, field in fields}
