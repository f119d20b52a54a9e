"""Images as the pages of one PDF, as a scanner writes them (tests and the document benchmark)."""

from __future__ import annotations

import io

from PIL import Image

PDF_DPI = 150  # the scans' resolution as the PDF states it; Triton renders at its own dpi


def as_pdf(images: list[Image.Image], dpi: int = PDF_DPI) -> bytes:
    """The images as the pages of one PDF, each page the image's size at `dpi`."""
    buffer = io.BytesIO()
    first, *rest = [image.convert("RGB") for image in images]
    first.save(buffer, "PDF", resolution=dpi, save_all=True, append_images=rest)
    return buffer.getvalue()
