"""The learned detector's map in the seal's own polar frame, in pieces.

Unwrapped around the fitted outline (`geometry.unwrap_band`: rows are insets from just outside
the ring to deep inside, columns run clockwise at equal arc length), a seal's text falls
apart into connected pieces. Each piece carries the share of it that lies on the seal's
ink: the detector marks black print as text too, and a piece with little seal ink is that.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from imgproc.arrays import Floats, Mask

from ..geometry import unwrap_band
from ..records import Band, SealRegion
from ..runs import Run

INKED = 255  # the ink mask as an image, for unwrapping


@dataclass(frozen=True)
class PolarParams:
    """The polar map; lengths are shares of the short semi-axis `b`."""

    threshold: float = 0.3  # probability above which a pixel is text
    min_ink: float = 0.02  # pieces with less of their area on seal ink are other print
    rows: int = 64  # polar map size: insets...
    cols: int = 720  # ...and angles (half a degree each on a circle)
    outside: float = 0.06  # the polar map starts this far outside the fitted outline...
    depth: float = 0.8  # ...and ends this deep inside
    min_piece: int = 24  # cells of the polar map: smaller pieces are specks


DEFAULT_POLAR = PolarParams()


@dataclass(frozen=True)
class Polar:
    """Text and ink unwrapped around the outline: rows are insets from `frame.outer` to
    `frame.inner`, columns perimeter shares clockwise from the fitted first axis."""

    text: Mask
    ink: Mask
    frame: Band

    @property
    def row_px(self) -> float:
        return self.frame.height / self.text.shape[0]

    def inset(self, row: float) -> float:
        """Inset of a row's top edge (row may be fractional)."""
        return self.frame.outer + row * self.row_px

    def row(self, inset: float) -> int:
        """First row at or below `inset`."""
        return int(np.clip(np.ceil((inset - self.frame.outer) / self.row_px), 0, self.text.shape[0]))


@dataclass(frozen=True)
class Piece:
    """One connected piece of text in the polar map: its columns, the share of it on seal ink,
    and its cells."""

    run: Run
    ink: float
    cells: Mask


def polar_maps(prob: Floats, ink: Mask, region: SealRegion, params: PolarParams = DEFAULT_POLAR) -> Polar:
    """The detector's map and the seal's ink mask (crop pixels, `region` in crop pixels) unwrapped."""
    b = region.axes[1]
    frame = Band(-params.outside * b, params.depth * b)
    size = (params.rows, params.cols)
    text = unwrap_band(np.asarray(prob, np.float32), region, frame, *size, outside=0.0) > params.threshold
    text[: int(np.ceil(params.outside / (params.outside + params.depth) * params.rows))] = False  # page text
    inked = unwrap_band(ink.astype(np.uint8) * INKED, region, frame, *size, outside=0.0) > INKED // 2
    return Polar(text, inked, frame)


def _piece(cells: Mask, ink: Mask, seam: int) -> Piece:
    cols = cells.shape[1]
    used = np.nonzero(cells.any(axis=0))[0]
    start = (int(used[0]) + seam) % cols
    return Piece(
        Run(start, start + int(used[-1]) + 1 - int(used[0])),
        float(ink[cells].mean()),
        np.roll(cells, seam, axis=1),
    )


def pieces(polar: Polar, params: PolarParams = DEFAULT_POLAR) -> list[Piece]:
    """The pieces of text on seal ink (the map is cut where it is emptiest, so few wrap)."""
    seam = int(np.argmin(polar.text.sum(axis=0)))
    text, ink = np.roll(polar.text, -seam, axis=1), np.roll(polar.ink, -seam, axis=1)
    count, labels = cv2.connectedComponents(text.astype(np.uint8), connectivity=8)
    found = [
        _piece(labels == i, ink, seam) for i in range(1, count) if (labels == i).sum() >= params.min_piece
    ]
    return [piece for piece in found if piece.ink >= params.min_ink]


def union(found: list[Piece], shape: tuple[int, ...]) -> Mask:
    """The cells of all the pieces."""
    return np.logical_or.reduce([piece.cells for piece in found]) if found else np.zeros(shape, bool)
