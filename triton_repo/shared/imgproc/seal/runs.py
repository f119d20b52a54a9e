"""Runs of columns round a seal: text, gaps and codes in a band unwrapped all the way round.

A band unwrapped round the whole outline (`geometry.unwrap_band` with span 1) is circular: its
last column touches its first. A `Run` is columns [start, stop) of such a band of some width,
where stop may pass the width (the run wraps round), and its length is stop - start.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from imgproc.arrays import Floats, Ints, Mask


@dataclass(frozen=True, order=True)
class Run:
    """Columns [start, stop) of a circular band; stop may pass its width (wraps)."""

    start: int
    stop: int

    @property
    def length(self) -> int:
        """Number of columns."""
        return self.stop - self.start

    def centre(self, width: int) -> float:
        """Middle column, as a share of the perimeter."""
        return ((self.start + self.stop) / 2.0 / width) % 1.0

    def columns(self, width: int) -> Ints:
        """The run's column indices in a band `width` wide (wrapped into range)."""
        return np.arange(self.start, self.stop) % width


def circular_runs(flags: Mask) -> list[Run]:
    """Runs of True in a circular array, in order round it from its first False."""
    size = len(flags)
    if flags.all():
        return [Run(0, size)]
    if not flags.any():
        return []
    shift = int(np.argmin(flags))  # start at a False so that no run wraps in the rolled copy
    edges = np.diff(np.concatenate([[0], np.roll(flags, -shift).astype(np.int8), [0]]))
    starts, stops = np.nonzero(edges == 1)[0], np.nonzero(edges == -1)[0]
    return [
        Run((int(a) + shift) % size, (int(a) + shift) % size + int(z - a))
        for a, z in zip(starts, stops, strict=True)
    ]


def joined(flags: Mask, join: float) -> list[Run]:
    """Circular runs of `flags`, runs at most `join` columns apart joined."""
    flags = flags.copy()
    if flags.any():
        for gap in circular_runs(~flags):
            if gap.length <= join:
                flags[gap.columns(len(flags))] = True
    return circular_runs(flags)


def smoothed(values: Floats, window: int) -> Floats:
    """Circular moving average over `window` columns (at least one)."""
    window = max(1, window)
    padded = np.concatenate([values[-window:], values, values[:window]])
    return np.convolve(padded, np.ones(window) / window, mode="same")[window:-window]
