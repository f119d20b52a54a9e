"""Every tunable of the seal reader, in one tree: one parameter class per stage, in the order
the data flows, each field with its reason beside it (`python -m imgproc.seal.tunables`
writes them all into docs/seal/tunables.md).

`SealConfig` nests the stages' classes: `ink` (what seal ink is: find and cut both read it),
`find`, `fit`, `cut`, `locate`, `unwrap`, `read`, `repair`, `trust`, and `parties` (the seals
checked against the parties the page names). The seal model's config.pbtxt may
override any field by its dotted name (`parameters { key: "locate.angular_pad" value: {
string_value: "0.6" } }`, `max_seals` at the top), which `served_config` applies; the
evaluation harness builds its configuration the same way from the same file, so it measures
what is served.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass, fields, is_dataclass, replace
from typing import Any, get_args, get_origin, get_type_hints

from .cut import DEFAULT_CUT, CutParams
from .find import DEFAULT_FIND, FindParams
from .fit import DEFAULT_FIT, FitParams
from .ink import DEFAULT_INK, InkParams
from .locate import DEFAULT_LOCATE, LocateParams
from .parties import DEFAULT_PARTIES, PartiesParams
from .read import DEFAULT_READ, ReadParams
from .repair import DEFAULT_REPAIR, RepairParams
from .trust import DEFAULT_TRUST, TrustParams
from .unwrap import DEFAULT_UNWRAP, UnwrapParams


@dataclass(frozen=True)
class SealConfig:
    """Every tunable of the seal reader (see the module docstring)."""

    # A page with more seals than this is refused before any is cut (`pipeline.TooManySeals`,
    # the gateway's 422). Reading takes about 0.55 s a seal on two cores (a page of 36 took
    # 20 s), so 24 stay well inside the gateway's 30 s deadline, and a page of a hundred
    # seals is told so in a second or two instead of holding the model for a minute.
    max_seals: int = 24
    ink: InkParams = DEFAULT_INK  # what red ink is, and a grey image (see `ink`)
    find: FindParams = DEFAULT_FIND  # page -> blobs (see `find`)
    fit: FitParams = DEFAULT_FIT  # blob -> seal outline (see `fit`)
    cut: CutParams = DEFAULT_CUT  # seal -> its crop and ink image (see `cut`)
    locate: LocateParams = DEFAULT_LOCATE  # crop -> where its text is (see `locate`)
    unwrap: UnwrapParams = DEFAULT_UNWRAP  # where the text is -> strips (see `unwrap`)
    read: ReadParams = DEFAULT_READ  # strips -> readings (see `read`)
    repair: RepairParams = DEFAULT_REPAIR  # readings -> the seal's text (see `repair`)
    trust: TrustParams = DEFAULT_TRUST  # the text -> scores that mean what they say (see `trust`)
    parties: PartiesParams = DEFAULT_PARTIES  # the page's lines -> its parties, each seal's (see `parties`)


DEFAULT_CONFIG = SealConfig()
# The seal model's own config.pbtxt parameters, which are not the reader's tunables.
MODEL_PARAMETERS = frozenset({"max_pixels"})


def _parsed(kind: Any, text: str) -> Any:
    """`text` as a value of the annotated type `kind` (bool, int, float, str, or a tuple of
    them); raises ValueError."""
    if get_origin(kind) is tuple:
        return _parsed_tuple(get_args(kind), text)
    if kind is bool:
        if text.lower() not in ("true", "false"):
            raise ValueError(f"expected true or false, got {text!r}")
        return text.lower() == "true"
    return kind(text)


def _parsed_tuple(items: tuple[Any, ...], text: str) -> tuple[Any, ...]:
    """Comma-separated `text` as a tuple of `items` (`tuple[float, float]`'s: exactly two;
    `tuple[int, ...]`'s: any number); raises ValueError."""
    parts = [part.strip() for part in text.split(",") if part.strip()]
    if len(items) == 2 and items[1] is Ellipsis:
        items = (items[0],) * len(parts)
    elif len(parts) != len(items):
        raise ValueError(f"expected {len(items)} values, got {len(parts)}")
    return tuple(_parsed(item, part) for item, part in zip(items, parts, strict=True))


def _with(node: Any, path: list[str], text: str) -> Any:
    """`node` with the field at the dotted `path` set from `text`; raises ValueError."""
    names = {f.name for f in fields(node)}
    if path[0] not in names:
        raise ValueError(f"{type(node).__name__} has no field {path[0]!r}")
    current = getattr(node, path[0])
    if len(path) == 1:
        if is_dataclass(current):
            raise ValueError(f"{path[0]!r} is a group of parameters, not one")
        return replace(node, **{path[0]: _parsed(get_type_hints(type(node))[path[0]], text)})
    if not is_dataclass(current):
        raise ValueError(f"{path[0]!r} has no fields")
    return replace(node, **{path[0]: _with(current, path[1:], text)})


def with_overrides(config: SealConfig, overrides: Mapping[str, str]) -> SealConfig:
    """`config` with each dotted-name field of `overrides` set, each value parsed as its field's
    annotation says (a tuple's items comma-separated, as many as it holds); raises ValueError
    naming a field that does not exist or a value of the wrong type or length."""
    for name, text in overrides.items():
        try:
            config = _with(config, name.split("."), text)
        except (TypeError, ValueError) as exc:
            raise ValueError(f"seal parameter {name}={text!r}: {exc}") from exc
    return config


def served_config(parameters: Mapping[str, str], own: Collection[str] = MODEL_PARAMETERS) -> SealConfig:
    """The configuration a seal model serves: the defaults with every parameter of its
    config.pbtxt applied but its `own` (the model's, not the reader's); raises ValueError for
    any other that names no tunable (a typo must not pass unnoticed)."""
    return with_overrides(DEFAULT_CONFIG, {key: value for key, value in parameters.items() if key not in own})
