"""White balance: the page's paper made white before red ink is told from it.

The ink mask's thresholds assume white paper. A phone photo under cold light has bluish,
dim paper, on which a pale seal's ink is barely saturated and its hue drifts; under warm
light the grey edges of black print turn reddish and join the mask. Paper is most of a page,
so each channel's paper level is a high percentile of that channel (read on a sparse grid of
pixels, which is plenty for a percentile); each channel is then scaled so the paper is white.
Pages already on white paper are left as they are.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from imgproc.arrays import Floats, Pixels, as_pixels
from imgproc.imaging import WHITE

LEVELS = 256  # of an 8-bit channel


@dataclass(frozen=True)
class BalanceParams:
    """Paper estimate and channel gains."""

    stride: int = 4  # every this many rows and columns are read for the estimate: plenty for a percentile
    paper_percentile: float = 90.0  # a channel's paper level: most of a page is paper
    # No channel is brightened beyond this gain: a page this dark is a dark photo, not paper.
    max_gain: float = 2.0
    min_change: float = 0.02  # gains closer to 1 than this leave the page as it is


DEFAULT_BALANCE = BalanceParams()


def paper_colour(rgb: Pixels, params: BalanceParams = DEFAULT_BALANCE) -> Floats:
    """The RGB paper level of a page: per channel, a high percentile of a grid of its pixels."""
    grid = rgb[:: params.stride, :: params.stride].reshape(-1, 3)
    level = np.empty(3)
    for channel in range(3):
        counts = np.cumsum(np.bincount(grid[:, channel], minlength=LEVELS))
        level[channel] = np.searchsorted(counts, counts[-1] * params.paper_percentile / 100.0)
    return level


def white_balanced(rgb: Pixels, params: BalanceParams = DEFAULT_BALANCE) -> Pixels:
    """The page with each channel scaled so that its paper is white (the page itself when it is)."""
    gains = WHITE / np.maximum(paper_colour(rgb, params), WHITE / params.max_gain)
    if np.all(np.abs(gains - 1.0) < params.min_change):
        return rgb
    ramp = np.arange(LEVELS, dtype=np.float64)[:, None] * gains[None, :]
    table = np.clip(np.rint(ramp), 0, WHITE).astype(np.uint8).reshape(LEVELS, 1, 3)
    return as_pixels(cv2.LUT(rgb, table))
