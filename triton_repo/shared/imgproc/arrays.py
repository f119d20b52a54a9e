"""The array types of the image code, named by what an array holds (numpy.typing aliases).

`Pixels` are uint8 images (HxW grey, HxWx3 RGB or BGR) and `Mask`s bool. `Floats` are model
tensors, probabilities, maps and coordinates: float32 where the code makes them, typed as any
float because numpy's stubs widen arithmetic on float32 to `floating[Any]`. `Ints` are labels,
indices, counts and integer points. `Strings` are object arrays of bytes (Triton's BYTES
tensors). `AnyArray` is for an array whose dtype genuinely varies (a Triton tensor of whatever
type its model declares, a function that keeps its input's dtype).

OpenCV's stubs type every result as any number (`cv2.typing.MatLike`); where the code knows
better (uint8 in, uint8 out), `as_pixels`, `as_floats` and `as_ints` name it without copying or
converting.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, TypeAlias, cast

import numpy as np
import numpy.typing as npt

if TYPE_CHECKING:
    from cv2.typing import MatLike

Pixels: TypeAlias = npt.NDArray[np.uint8]
Mask: TypeAlias = npt.NDArray[np.bool_]
Floats: TypeAlias = npt.NDArray[np.floating[Any]]
Ints: TypeAlias = npt.NDArray[np.integer[Any]]
Strings: TypeAlias = npt.NDArray[np.object_]
AnyArray: TypeAlias = npt.NDArray[Any]


def as_pixels(array: MatLike) -> Pixels:
    """An OpenCV result known to be uint8, typed so (no copy, no conversion)."""
    return cast(Pixels, array)


def as_floats(array: MatLike) -> Floats:
    """An OpenCV result known to be float, typed so (no copy, no conversion)."""
    return cast(Floats, array)


def as_ints(array: MatLike) -> Ints:
    """An OpenCV result known to be integer (contours, labels), typed so (no copy, no conversion)."""
    return cast(Ints, array)
