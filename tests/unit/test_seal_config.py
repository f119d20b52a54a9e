"""Seal tunables in one tree (imgproc.seal.config), overridable by dotted names."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import fields, is_dataclass, replace
from typing import Any

import pytest
from imgproc.seal.config import DEFAULT_CONFIG, MODEL_PARAMETERS, served_config, with_overrides


def test_dotted_names_set_nested_fields_of_the_right_type() -> None:
    config = with_overrides(
        DEFAULT_CONFIG,
        {
            "locate.angular_pad": "0.6",
            "locate.det.side": "640",
            "read.recognisers.others": "text_recognition, x",
        },
    )
    assert config.locate.angular_pad == 0.6 and config.locate.det.side == 640
    assert config.read.recognisers.others == ("text_recognition", "x")
    assert config.locate.polar.threshold == DEFAULT_CONFIG.locate.polar.threshold  # the rest untouched
    assert DEFAULT_CONFIG.locate.angular_pad != 0.6  # the default is not changed


def test_a_tuple_of_numbers_is_set_as_numbers() -> None:
    config = with_overrides(
        DEFAULT_CONFIG, {"fit.stroke_checks": "0.1, 0.3", "locate.classical.layout.profile_rows": "0.1,0.5"}
    )
    assert config.fit.stroke_checks == (0.1, 0.3) and config.locate.classical.layout.profile_rows == (
        0.1,
        0.5,
    )
    with pytest.raises(ValueError, match="fit.stroke_checks"):
        with_overrides(DEFAULT_CONFIG, {"fit.stroke_checks": "0.1, thin"})


@pytest.mark.parametrize(
    ("name", "value", "message"),
    [
        ("locate.no_such", "1", "has no field 'no_such'"),
        ("locate", "1", "is a group of parameters"),
        ("locate.det.side", "wide", "invalid literal"),
        ("max_seals.x", "1", "has no fields"),
        ("fit.ransac.arc_span", "0.3", "expected 2 values, got 1"),  # RANSAC would draw from one
        ("locate.classical.layout.profile_rows", "0.1, 0.2, 0.3", "expected 2 values, got 3"),
        ("find.grey.other_values", "180, 0.5", "invalid literal for int"),
    ],
)
def test_a_wrong_name_or_value_is_refused_with_its_name(name: str, value: str, message: str) -> None:
    with pytest.raises(ValueError, match=message) as error:
        with_overrides(DEFAULT_CONFIG, {name: value})
    assert name in str(error.value)


def _leaves(node: Any, prefix: str = "") -> Iterator[tuple[str, Any]]:
    for item in fields(node):
        value = getattr(node, item.name)
        if is_dataclass(value):
            yield from _leaves(value, f"{prefix}{item.name}.")
        else:
            yield f"{prefix}{item.name}", value


def _text(value: Any) -> str:
    if isinstance(value, tuple):
        return ",".join(str(item) for item in value)
    return str(value).lower() if isinstance(value, bool) else str(value)


def test_every_tunable_round_trips_through_text() -> None:
    overrides = {name: _text(value) for name, value in _leaves(DEFAULT_CONFIG)}
    assert len(overrides) > 200
    assert with_overrides(DEFAULT_CONFIG, overrides) == DEFAULT_CONFIG


def test_the_served_configuration_takes_top_level_tunables_too() -> None:
    # config.pbtxt's max_seals and any dotted name apply; the model's own parameters are left to it.
    served = served_config({"max_seals": "3", "cut.margin": "0.2", "max_pixels": "100"})
    assert served.max_seals == 3 and served.cut.margin == 0.2
    assert "max_pixels" in MODEL_PARAMETERS
    assert served_config({"max_pixels": "100"}) == DEFAULT_CONFIG


def test_the_served_configuration_refuses_a_parameter_that_names_no_tunable() -> None:
    with pytest.raises(ValueError, match="max_seal"):
        served_config({"max_seal": "3"})  # a typo must not pass unnoticed


def test_a_tuple_takes_its_items_types_from_the_field_not_from_its_default() -> None:
    # An empty default says nothing of its items' type; the field's annotation does.
    grey = replace(DEFAULT_CONFIG.find.grey, other_values=())
    empty = replace(DEFAULT_CONFIG, find=replace(DEFAULT_CONFIG.find, grey=grey))
    assert with_overrides(empty, {"find.grey.other_values": "200"}).find.grey.other_values == (200,)
    assert with_overrides(DEFAULT_CONFIG, {"read.recognisers.others": ""}).read.recognisers.others == ()
