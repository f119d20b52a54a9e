"""Decoding uploaded bytes into pixels, with the guards every pipeline needs.

The gateway only sniffs formats; the real decode happens here, inside Triton. A bad upload
raises `ImageError`, which the python models turn into an INVALID_ARG error on that one
request.
"""

from __future__ import annotations

import io
import warnings

import numpy as np
from PIL import Image, ImageOps

from .arrays import Pixels

# Pillow's own bomb guard is global state and warns rather than fails; we check
# explicitly against the caller's cap instead.
Image.MAX_IMAGE_PIXELS = None

DEFAULT_MAX_PIXELS = 50_000_000
WHITE = 255  # paper, and the fill of whatever lies off an image: the brightest 8-bit level
# MPO is a JPEG holding more than one picture, as phone cameras write (a preview, a depth map);
# the first is the photo.
SUPPORTED_FORMATS = frozenset({"JPEG", "MPO", "PNG", "WEBP", "BMP", "TIFF", "GIF"})


class ImageError(ValueError):
    """The bytes are not an image we can decode, or the image is too large."""


class Refused(ImageError):
    """A usable image whose content one request will not process (more seals than are read).

    Its message starts with `PREFIX`: a Python model's error reaches a model that called it
    through BLS with its message but not its code (INTERNAL whatever it was, Triton 2.51), so
    the caller (a PDF's document model) tells a refusal from a failure by the message alone.
    """

    PREFIX = "refused: "

    def __init__(self, reason: str) -> None:
        super().__init__(self.PREFIX + reason)

    @classmethod
    def is_refusal(cls, message: str) -> bool:
        return message.startswith(cls.PREFIX)


def _open(data: bytes, max_pixels: int) -> Image.Image:
    if not data:
        raise ImageError("empty image")
    try:
        image = Image.open(io.BytesIO(data))
    except Exception as exc:  # Pillow raises many types for garbage input
        raise ImageError("not a recognised image format") from exc
    if image.format not in SUPPORTED_FORMATS:
        raise ImageError(f"unsupported image format: {image.format}")
    width, height = image.size
    if width <= 0 or height <= 0:
        raise ImageError("image has no pixels")
    if width * height > max_pixels:
        raise ImageError(f"image has {width * height} pixels, more than the cap of {max_pixels}")
    return image


def _load(image: Image.Image, mode: str) -> Pixels:
    image_format = image.format
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            # In place, and no conversion to the mode it is in: each copy of a 12-megapixel
            # photo costs as much as a tenth of its decoding.
            ImageOps.exif_transpose(image, in_place=True)
            if image.mode in ("RGBA", "LA", "PA") or (image.mode == "P" and "transparency" in image.info):
                # Transparent pixels become white paper, not black.
                background = Image.new("RGBA", image.size, (255, 255, 255, 255))
                image = Image.alpha_composite(background, image.convert("RGBA"))
            return np.asarray(image if image.mode == mode else image.convert(mode))
    except Exception as exc:  # truncated or corrupt pixel data surfaces only on load
        raise ImageError(f"cannot decode the {image_format} image: {exc}") from exc


def decode_rgb(data: bytes, max_pixels: int = DEFAULT_MAX_PIXELS) -> Pixels:
    """Decode bytes to an upright HxWx3 uint8 RGB array; raises ImageError."""
    return _load(_open(data, max_pixels), "RGB")


def decode_gray(data: bytes, max_pixels: int = DEFAULT_MAX_PIXELS) -> Pixels:
    """Decode bytes to an upright HxW uint8 grayscale array; raises ImageError."""
    return _load(_open(data, max_pixels), "L")


def three_channels(image: Pixels) -> Pixels:
    """A gray image repeated into three channels (the text models take BGR); colour as it is."""
    return np.repeat(image[:, :, None], 3, axis=2) if image.ndim == 2 else image
