"""A python model's config.pbtxt: the dict Triton hands to `initialize`, and its `parameters`."""

from __future__ import annotations

import json
from typing import Any


def model_config(args: dict[str, str]) -> dict[str, Any]:
    """The model's config.pbtxt as the dict Triton hands to `initialize`."""
    config: dict[str, Any] = json.loads(args["model_config"])
    return config


def parameters(config: dict[str, Any]) -> dict[str, str]:
    """Every `parameters` entry of config.pbtxt, key to string value."""
    return {key: str(value["string_value"]) for key, value in config.get("parameters", {}).items()}


def parameter(config: dict[str, Any], key: str) -> str:
    """A `parameters` entry of config.pbtxt; raises KeyError naming the missing key."""
    try:
        return str(config["parameters"][key]["string_value"])
    except KeyError as exc:
        raise KeyError(f"config.pbtxt of {config.get('name')} lacks parameter {key!r}") from exc


def max_pixels(args: dict[str, str]) -> int:
    """The `max_pixels` parameter: the decode guard of every model that takes an upload."""
    return int(parameter(model_config(args), "max_pixels"))
