"""The formats the python models decode (imgproc.imaging): pure, images made here."""

from __future__ import annotations

import io

import numpy as np
from imgproc.imaging import decode_rgb
from PIL import Image


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
