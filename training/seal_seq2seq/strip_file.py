"""The file of labelled rim strips that `strips.py` writes and the trainers read (one npz:
every strip's pixels flattened into one array, their heights and widths, their rim texts).
Needs numpy only, so both the serving and the training environment import it."""

from __future__ import annotations

from pathlib import Path

import numpy as np


def save(
    path: Path | str, images: list[np.ndarray], texts: list[str], **columns: list[str] | list[int]
) -> None:
    """Writes the strips; `columns` are more per-strip values (a strip's group, its page...)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    heights = np.array([im.shape[0] for im in images], np.int32)
    widths = np.array([im.shape[1] for im in images], np.int32)
    flat = np.concatenate([im.reshape(-1) for im in images]) if images else np.zeros(0, np.uint8)
    np.savez_compressed(
        path,
        pixels=flat,
        heights=heights,
        widths=widths,
        texts=np.array(texts),
        **{k: np.array(v) for k, v in columns.items()},
    )


def load_strips(path: Path) -> tuple[list[np.ndarray], list[str]]:
    """The strips (uint8, height x width x 3) and rim texts `save` wrote."""
    data = np.load(path)
    pixels = data["pixels"]  # each access to an npz member decompresses it again
    images, start = [], 0
    for height, width in zip(data["heights"], data["widths"], strict=True):
        size = int(height) * int(width) * 3
        images.append(pixels[start : start + size].reshape(int(height), int(width), 3))
        start += size
    return images, [str(t) for t in data["texts"]]


def load_column(path: Path, name: str) -> list[str]:
    """One of the per-strip columns `save` wrote beside the strips, as text."""
    return [str(v) for v in np.load(path)[name]]
