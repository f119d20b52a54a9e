"""Detector input: the working image and the PP-OCRv4 detection tensor, as RapidOCR 1.4.4 builds them.

Two stages, kept apart because the crops are cut from the first one's output:

1. `prepare_image`: RGB upload -> BGR *working image*. Sides above `MAX_SIDE_LEN` are
   shrunk (before the channel swap, so an 8000x6000 upload is copied only once, at working
   size) and sides under `MIN_SIDE_LEN` grown, both snapping to multiples of 32; very flat or
   very short images get black bands above and below (RapidOCR's letterbox), which gives the
   detector context around a single word. `ScaleInfo` records how to map working pixels
   back to the upload.
2. `det_preprocess`: working image -> float32[1, 3, H, W] for `text_detection`, with the
   short side brought up to `DET_LIMIT_SIDE_LEN` and both sides multiples of 32.

The models were trained on OpenCV's BGR order, so every tensor built here and in
`recognition` is BGR. Rounding follows Python's `round` (half to even) like RapidOCR, so
the tensor shapes match it exactly.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from imgproc.arrays import AnyArray, Floats, Pixels, as_pixels
from imgproc.imaging import ImageError

MAX_SIDE_LEN = 2000
MIN_SIDE_LEN = 30
MIN_HEIGHT = 30
MAX_WIDTH_HEIGHT_RATIO = 8
DET_LIMIT_SIDE_LEN = 736
# The detector input's long side beyond which an image is refused: bringing the short side of a
# 1 x 3000 sliver up to DET_LIMIT_SIDE_LEN would make a 45632 x 736 input, a minute of CPU
# for a picture with no room for text. Real pages and receipts stay well under it.
MAX_DET_SIDE_LEN = 8000
SIZE_MULTIPLE = 32
PIXEL_SCALE = 1.0 / 255.0
DET_MEAN = 0.5
DET_STD = 0.5
SCALE_INFO_FIELDS = 5


@dataclass(frozen=True)
class ScaleInfo:
    """How working-image pixels map back to the uploaded image.

    upload_x = (working_x - pad_left) * ratio_w, upload_y = (working_y - pad_top) * ratio_h.
    """

    height: int
    width: int
    ratio_h: float
    ratio_w: float
    pad_top: int

    def to_array(self) -> Floats:
        """float64[5] for carrying through a Triton tensor: height, width, ratio_h, ratio_w, pad_top."""
        return np.array([self.height, self.width, self.ratio_h, self.ratio_w, self.pad_top], np.float64)

    @classmethod
    def from_array(cls, values: AnyArray) -> ScaleInfo:
        """Inverse of `to_array`; raises ValueError on a wrong length."""
        flat = np.asarray(values, np.float64).reshape(-1)
        if flat.size != SCALE_INFO_FIELDS:
            raise ValueError(f"scale info needs {SCALE_INFO_FIELDS} values, got {flat.size}")
        height, width, ratio_h, ratio_w, pad_top = flat.tolist()
        return cls(int(height), int(width), ratio_h, ratio_w, int(pad_top))


def _snap(side: float) -> int:
    """Nearest multiple of 32, half to even as Python's round does, never below 32."""
    return max(SIZE_MULTIPLE, int(round(side / SIZE_MULTIPLE) * SIZE_MULTIPLE))


def _resize_snapped(image: Pixels, ratio: float) -> Pixels:
    """Scale by `ratio` (truncating to whole pixels first, as RapidOCR does), sides snapped to 32."""
    height, width = image.shape[:2]
    size = (_snap(int(width * ratio)), _snap(int(height * ratio)))
    return as_pixels(cv2.resize(image, size))


def _limit_sides(rgb: Pixels) -> Pixels:
    """Shrink a long side above MAX_SIDE_LEN, then grow a short side below MIN_SIDE_LEN."""
    image = rgb
    if max(image.shape[:2]) > MAX_SIDE_LEN:
        image = _resize_snapped(image, MAX_SIDE_LEN / max(image.shape[:2]))
    if min(image.shape[:2]) < MIN_SIDE_LEN:
        image = _resize_snapped(image, MIN_SIDE_LEN / min(image.shape[:2]))
    return image


def letterbox_padding(height: int, width: int) -> int:
    """Rows of black to add above and below a short or very wide image (0 when none)."""
    if height > MIN_HEIGHT and width / height <= MAX_WIDTH_HEIGHT_RATIO:
        return 0
    target_height = max(int(width / MAX_WIDTH_HEIGHT_RATIO), MIN_HEIGHT) * 2
    return int(abs(target_height - height) / 2)


def _check_rgb(rgb: Pixels) -> None:
    if rgb.ndim != 3 or rgb.shape[2] != 3 or rgb.dtype != np.uint8 or 0 in rgb.shape:
        raise ValueError(f"expected a non-empty uint8 HxWx3 image, got {rgb.dtype}{list(rgb.shape)}")


def prepare_image(rgb: Pixels) -> tuple[Pixels, ScaleInfo]:
    """uint8 RGB[h, w, 3] upload -> (uint8 BGR working image, ScaleInfo); raises ValueError,
    ImageError for an image too long and narrow to read (see MAX_DET_SIDE_LEN)."""
    _check_rgb(rgb)
    limited = _limit_sides(rgb)
    height, width = limited.shape[:2]
    pad = letterbox_padding(height, width)
    if max(det_input_size(height + 2 * pad, width)) > MAX_DET_SIDE_LEN:
        raise ImageError(f"a {rgb.shape[1]}x{rgb.shape[0]} image is too long and narrow to read")
    bgr = as_pixels(cv2.cvtColor(limited, cv2.COLOR_RGB2BGR))
    if pad:
        bgr = as_pixels(cv2.copyMakeBorder(bgr, pad, pad, 0, 0, cv2.BORDER_CONSTANT, value=(0, 0, 0)))
    ratio_h, ratio_w = rgb.shape[0] / height, rgb.shape[1] / width
    return bgr, ScaleInfo(rgb.shape[0], rgb.shape[1], ratio_h, ratio_w, pad)


def prepare_line(rgb: Pixels) -> Pixels:
    """uint8 RGB image of one text line -> uint8 BGR crop for recognition without detection.

    Same side limits as `prepare_image` but no letterbox, as RapidOCR's `use_det=False`;
    raises ValueError.
    """
    _check_rgb(rgb)
    return as_pixels(cv2.cvtColor(_limit_sides(rgb), cv2.COLOR_RGB2BGR))


def det_input_size(height: int, width: int) -> tuple[int, int]:
    """(H, W) of the detector input: short side up to DET_LIMIT_SIDE_LEN, both multiples of 32."""
    ratio = DET_LIMIT_SIDE_LEN / min(height, width) if min(height, width) < DET_LIMIT_SIDE_LEN else 1.0
    return _snap(int(height * ratio)), _snap(int(width * ratio))


def _normalize_table() -> Floats:
    """uint8 -> float32 lookup reproducing RapidOCR's (x * 1/255 - mean) / std arithmetic exactly."""
    scaled = np.arange(256, dtype=np.float32) * np.float32(PIXEL_SCALE)
    return ((scaled.astype(np.float64) - DET_MEAN) / DET_STD).astype(np.float32)


_DET_TABLE = _normalize_table()


def det_preprocess(bgr: Pixels) -> Floats:
    """uint8 BGR working image -> float32[1, 3, H, W] detector input (H, W multiples of 32)."""
    height, width = det_input_size(*bgr.shape[:2])
    resized = cv2.resize(bgr, (width, height))
    return np.ascontiguousarray(_DET_TABLE[resized].transpose(2, 0, 1)[None])


def boxes_to_upload(boxes: Floats, scale: ScaleInfo) -> Floats:
    """float32[K, 4, 2] working-image quads -> upload pixels, clipped to [0, width] x [0, height]."""
    mapped = np.asarray(boxes, np.float32).reshape(-1, 4, 2).copy()
    mapped[..., 1] -= scale.pad_top
    mapped[..., 0] *= scale.ratio_w
    mapped[..., 1] *= scale.ratio_h
    np.clip(mapped[..., 0], 0, scale.width, out=mapped[..., 0])
    np.clip(mapped[..., 1], 0, scale.height, out=mapped[..., 1])
    return mapped
