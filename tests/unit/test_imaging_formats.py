"""The formats the python models decode (imgproc.imaging): pure, images made here."""

from __future__ import annotations

import io

import numpy as np
import pytest
from imgproc.imaging import ImageError, decode_rgb, exif_upright, opencv_decodes
from PIL import Image, ImageOps


def multi_picture_jpeg() -> bytes:
    """What phone cameras write (MPO): a JPEG followed by more pictures (a preview, a depth map)."""
    photo = Image.new("RGB", (64, 48), (200, 30, 30))
    preview = Image.new("RGB", (32, 24), (0, 0, 255))
    encoded = io.BytesIO()
    photo.save(encoded, "MPO", save_all=True, append_images=[preview])
    return encoded.getvalue()


def test_a_phone_s_multi_picture_jpeg_decodes_to_its_first_picture() -> None:
    data = multi_picture_jpeg()
    assert Image.open(io.BytesIO(data)).format == "MPO"
    rgb = decode_rgb(data)
    assert rgb.shape == (48, 64, 3) and np.abs(rgb[24, 32].astype(int) - (200, 30, 30)).max() < 8


def _png(image: Image.Image, orientation: int = 1) -> bytes:
    exif = Image.Exif()
    exif[0x0112] = orientation
    encoded = io.BytesIO()
    image.save(encoded, "PNG", exif=exif)
    return encoded.getvalue()


def test_a_page_is_turned_upright_by_its_exif_orientation_and_left_as_it_is_without_one() -> None:
    pixels = np.zeros((20, 30, 3), np.uint8)
    pixels[0, 0] = (255, 0, 0)  # the stored top-left corner
    stored = Image.fromarray(pixels)
    assert np.array_equal(decode_rgb(_png(stored)), pixels)
    turned = decode_rgb(_png(stored, 6))  # stored turned 90 degrees anticlockwise: turn it clockwise
    assert turned.shape == (30, 20, 3) and tuple(turned[0, -1]) == (255, 0, 0)


def test_a_grey_page_decodes_to_three_equal_channels() -> None:
    grey = Image.fromarray(np.arange(600, dtype=np.uint8).reshape(20, 30) % 251)
    rgb = decode_rgb(_png(grey))
    assert rgb.shape == (20, 30, 3) and all(np.array_equal(rgb[..., c], np.asarray(grey)) for c in range(3))


def _jpeg(image: Image.Image, orientation: int = 1) -> bytes:
    exif = Image.Exif()
    exif[0x0112] = orientation
    encoded = io.BytesIO()
    image.save(encoded, "JPEG", quality=90, exif=exif)
    return encoded.getvalue()


def _pillow_rgb(data: bytes) -> np.ndarray:
    """What Pillow alone decodes: the pixels OpenCV's decoding must give."""
    image = Image.open(io.BytesIO(data))
    upright = ImageOps.exif_transpose(image)
    return np.asarray(upright.convert("RGB"))


def _photo(width: int = 37, height: int = 23) -> Image.Image:
    """A picture no flip or turn leaves unchanged, in colour."""
    y, x = np.mgrid[0:height, 0:width]
    pixels = np.stack([x * 255 // width, y * 255 // height, (x * y) % 256], axis=2).astype(np.uint8)
    return Image.fromarray(pixels)


@pytest.mark.parametrize("orientation", range(1, 9))
def test_a_jpeg_decodes_to_pillow_s_pixels_turned_upright_by_its_exif_orientation(orientation: int) -> None:
    data = _jpeg(_photo(), orientation)
    assert opencv_decodes(Image.open(io.BytesIO(data)), data)
    assert np.array_equal(decode_rgb(data), _pillow_rgb(data))


def test_a_grey_jpeg_decodes_to_pillow_s_three_equal_channels() -> None:
    data = _jpeg(_photo().convert("L"))
    rgb = decode_rgb(data)
    assert np.array_equal(rgb, _pillow_rgb(data)) and np.array_equal(rgb[..., 0], rgb[..., 2])


def test_a_jpeg_cut_short_is_refused_as_pillow_refuses_it() -> None:
    data = _jpeg(_photo(400, 300))
    cut = data[: len(data) * 2 // 3]
    assert not opencv_decodes(Image.open(io.BytesIO(cut)), cut)
    with pytest.raises(ImageError):
        decode_rgb(cut)


def test_exif_upright_turns_as_pillow_s_exif_transpose() -> None:
    pixels = np.asarray(_photo())
    for orientation in range(1, 9):
        exif_image = Image.open(io.BytesIO(_png(Image.fromarray(pixels), orientation)))
        assert np.array_equal(
            exif_upright(pixels, orientation), np.asarray(ImageOps.exif_transpose(exif_image))
        )
