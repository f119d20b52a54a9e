"""Seal tunables in one place (imgproc.seal.config), overridable by dotted names."""

from __future__ import annotations

import pytest
from imgproc.seal.config import DEFAULT_CONFIG, with_overrides


def test_dotted_names_set_nested_fields_of_the_right_type() -> None:
    config = with_overrides(
        DEFAULT_CONFIG,
        {"locate.angular_pad": "0.6", "det.side": "640", "recognisers.others": "text_recognition, x"},
    )
    assert config.locate.angular_pad == 0.6 and config.det.side == 640
    assert config.recognisers.others == ("text_recognition", "x")
    assert config.locate.polar.threshold == DEFAULT_CONFIG.locate.polar.threshold  # the rest untouched
    assert DEFAULT_CONFIG.locate.angular_pad != 0.6  # the default is not changed


def test_a_tuple_of_numbers_is_set_as_numbers() -> None:
    config = with_overrides(
        DEFAULT_CONFIG, {"find.stroke_checks": "0.1, 0.3", "classical.layout.profile_rows": "0.1,0.5"}
    )
    assert config.find.stroke_checks == (0.1, 0.3) and config.classical.layout.profile_rows == (0.1, 0.5)
    with pytest.raises(ValueError, match="find.stroke_checks"):
        with_overrides(DEFAULT_CONFIG, {"find.stroke_checks": "0.1, thin"})


@pytest.mark.parametrize(
    ("name", "value", "message"),
    [
        ("locate.no_such", "1", "has no field 'no_such'"),
        ("locate", "1", "is a group of parameters"),
        ("det.side", "wide", "invalid literal"),
        ("crop_margin.x", "1", "has no fields"),
    ],
)
def test_a_wrong_name_or_value_is_refused_with_its_name(name: str, value: str, message: str) -> None:
    with pytest.raises(ValueError, match=message) as error:
        with_overrides(DEFAULT_CONFIG, {name: value})
    assert name in str(error.value)


def test_every_tunable_has_a_default_that_round_trips_through_text() -> None:
    overrides = {"read.sure": str(DEFAULT_CONFIG.read.sure), "strip.height": str(DEFAULT_CONFIG.strip.height)}
    assert with_overrides(DEFAULT_CONFIG, overrides) == DEFAULT_CONFIG
