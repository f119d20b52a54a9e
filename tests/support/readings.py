"""Recogniser readings written by hand, for the unit tests of the seal's reading decisions."""

from __future__ import annotations

from imgproc.text import Decoded


def decoded(text: str, *probs: float) -> Decoded:
    """`text` read with the given per-character probabilities (one value: all of them)."""
    return Decoded(tuple(text), probs if len(probs) == len(text) else probs * len(text))
