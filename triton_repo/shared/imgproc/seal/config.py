"""Every tunable of the seal pipeline, in one place, each documented where it is declared.

`SealConfig` gathers the stages' parameter classes in the order the data flows: finding
(`ink`, `find`), cutting (`crop_margin`), the learned detector (`det`) and reading its map
(`locate`), the classical fallback (`classical`), strips (`strip`), reading (`read`,
`recognisers`) and repairing (`repair`). The seal model's config.pbtxt may override any
field by a dotted name (`parameters { key: "locate.angular_pad" value: { string_value:
"0.6" } }`), which `with_overrides` applies, so a deployment can be tuned without code.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields, is_dataclass, replace
from typing import Any

from .classical import DEFAULT_CLASSICAL, ClassicalParams
from .crop import CROP_MARGIN
from .detect import DEFAULT_DET, DetParams
from .ink import DEFAULT_INK, RedInkThresholds
from .locate import DEFAULT_LOCATE, LocateParams
from .params import DEFAULT_FIND, FindParams
from .read import DEFAULT_READ, ReadParams
from .repair import DEFAULT_REPAIR, RepairParams
from .strips import DEFAULT_STRIP, StripParams


@dataclass(frozen=True)
class Recognisers:
    """Triton models that read strips: `first` reads everything; the others re-read an unsure
    rim (`ReadParams.sure`), and the surest reading is kept. Names of Triton models: the CTC
    recognisers (`pymodel.RECOGNITION_MODELS`) or an encoder-decoder BLS model
    (`seq2seq_recognition`, off by default: see its model card for what it adds)."""

    first: str = "text_recognition_v6"
    others: tuple[str, ...] = ("text_recognition", "text_recognition_v5")


@dataclass(frozen=True)
class SealConfig:
    """Every tunable of the seal pipeline (see the module docstring)."""

    ink: RedInkThresholds = DEFAULT_INK
    find: FindParams = DEFAULT_FIND
    crop_margin: float = CROP_MARGIN
    det: DetParams = DEFAULT_DET
    locate: LocateParams = DEFAULT_LOCATE
    classical: ClassicalParams = DEFAULT_CLASSICAL
    strip: StripParams = DEFAULT_STRIP
    read: ReadParams = DEFAULT_READ
    recognisers: Recognisers = field(default_factory=Recognisers)
    repair: RepairParams = DEFAULT_REPAIR
    # A page with more seals than this is refused before any is read (`pipeline.TooManySeals`,
    # the gateway's 422). Reading takes about 0.55 s a seal on two cores (a page of 36 took
    # 20 s), so 24 stay well inside the gateway's 30 s deadline, and a page of a hundred
    # seals is told so in a second or two instead of holding the model for a minute.
    max_seals: int = 24


DEFAULT_CONFIG = SealConfig()


def _parsed(current: Any, text: str) -> Any:
    """`text` as a value of the type of `current`; raises ValueError."""
    if isinstance(current, bool):
        if text.lower() not in ("true", "false"):
            raise ValueError(f"expected true or false, got {text!r}")
        return text.lower() == "true"
    if isinstance(current, tuple):
        # Items take the type of the default's (a tuple of floats stays floats); names are text.
        item = type(current[0]) if current else str
        return tuple(item(part.strip()) for part in text.split(",") if part.strip())
    return type(current)(text)


def _with(node: Any, path: list[str], text: str) -> Any:
    """`node` with the field at the dotted `path` set from `text`; raises ValueError."""
    names = {f.name for f in fields(node)}
    if path[0] not in names:
        raise ValueError(f"{type(node).__name__} has no field {path[0]!r}")
    current = getattr(node, path[0])
    if len(path) == 1:
        if is_dataclass(current):
            raise ValueError(f"{path[0]!r} is a group of parameters, not one")
        return replace(node, **{path[0]: _parsed(current, text)})
    if not is_dataclass(current):
        raise ValueError(f"{path[0]!r} has no fields")
    return replace(node, **{path[0]: _with(current, path[1:], text)})


def with_overrides(config: SealConfig, overrides: dict[str, str]) -> SealConfig:
    """`config` with each dotted-name field of `overrides` set; raises ValueError naming a
    field that does not exist or a value of the wrong type."""
    for name, text in overrides.items():
        try:
            config = _with(config, name.split("."), text)
        except (TypeError, ValueError) as exc:
            raise ValueError(f"seal parameter {name}={text!r}: {exc}") from exc
    return config
