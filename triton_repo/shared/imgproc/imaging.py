"""Decoding uploaded bytes into pixels, with the guards every pipeline needs.

The gateway only sniffs formats; the real decode happens here, inside Triton. A bad upload
raises `ImageError`, which the python models turn into an INVALID_ARG error on that one
request.
"""

from __future__ import annotations

import io
import warnings

import cv2
import numpy as np
from PIL import ExifTags, Image, ImageOps

from .arrays import Pixels, as_pixels

# Pillow's own bomb guard is global state and warns rather than fails; we check
# explicitly against the caller's cap instead.
Image.MAX_IMAGE_PIXELS = None

DEFAULT_MAX_PIXELS = 50_000_000
WHITE = 255  # paper, and the fill of whatever lies off an image: the brightest 8-bit level
# MPO is a JPEG holding more than one picture, as phone cameras write (a preview, a depth map);
# the first is the photo.
SUPPORTED_FORMATS = frozenset({"JPEG", "MPO", "PNG", "WEBP", "BMP", "TIFF", "GIF"})
JPEG_END = b"\xff\xd9"  # the end-of-image marker: a JPEG that ends with it is not cut short
# How an EXIF orientation turns a stored picture upright (Pillow's `ImageOps.exif_transpose`),
# as OpenCV operations: a flip code (`cv2.flip`), a turn (`cv2.rotate`), or a transpose.
_UPRIGHT: dict[int, tuple[str, int]] = {
    2: ("flip", 1),
    3: ("rotate", cv2.ROTATE_180),
    4: ("flip", 0),
    5: ("transpose", 0),
    6: ("rotate", cv2.ROTATE_90_CLOCKWISE),
    7: ("transverse", 0),
    8: ("rotate", cv2.ROTATE_90_COUNTERCLOCKWISE),
}


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


def opencv_decodes(image: Image.Image, data: bytes) -> bool:
    """Whether OpenCV decodes these bytes to the pixels Pillow does (both decode with
    libjpeg-turbo's defaults; checked equal on every page of the real seal corpus): a whole JPEG
    (ending with its end-of-image marker: on data cut short, libjpeg-turbo warns and fills the
    rest grey where Pillow fails) in RGB or grey. CMYK JPEGs, MPO and other formats: Pillow."""
    return image.format == "JPEG" and image.mode in ("RGB", "L") and data.endswith(JPEG_END)


def exif_upright(pixels: Pixels, orientation: int) -> Pixels:
    """An image turned upright as its EXIF `orientation` says (1 or unknown: as it is)."""
    how, code = _UPRIGHT.get(orientation, ("", 0))
    if how == "flip":
        return as_pixels(cv2.flip(pixels, code))
    if how == "rotate":
        return as_pixels(cv2.rotate(pixels, code))
    if how in ("transpose", "transverse"):
        turned = as_pixels(cv2.transpose(pixels))
        return as_pixels(cv2.flip(turned, -1)) if how == "transverse" else turned
    return pixels


def _opencv_rgb(image: Image.Image, data: bytes) -> Pixels:
    """The JPEG's pixels as OpenCV decodes them, upright by the orientation Pillow reads
    (EXIF or XMP). Straight into one array: Pillow holds RGB four bytes a pixel, and handing it
    to NumPy packs a copy (on a 22-megapixel page, a third of its decoding time)."""
    bgr = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR | cv2.IMREAD_IGNORE_ORIENTATION)
    if bgr is None:
        raise ImageError(f"cannot decode the {image.format} image")
    orientation = image.getexif().get(ExifTags.Base.Orientation, 1)
    return exif_upright(as_pixels(cv2.cvtColor(bgr, cv2.COLOR_BGR2RGB)), orientation)


def decode_rgb(data: bytes, max_pixels: int = DEFAULT_MAX_PIXELS) -> Pixels:
    """Decode bytes to an upright HxWx3 uint8 RGB array; raises ImageError."""
    image = _open(data, max_pixels)
    return _opencv_rgb(image, data) if opencv_decodes(image, data) else _load(image, "RGB")


def decode_gray(data: bytes, max_pixels: int = DEFAULT_MAX_PIXELS) -> Pixels:
    """Decode bytes to an upright HxW uint8 grayscale array; raises ImageError."""
    return _load(_open(data, max_pixels), "L")


def three_channels(image: Pixels) -> Pixels:
    """A gray image repeated into three channels (the text models take BGR); colour as it is."""
    return np.repeat(image[:, :, None], 3, axis=2) if image.ndim == 2 else image
