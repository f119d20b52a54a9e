"""PP-OCRv4 text OCR as pure functions, reproducing RapidOCR 1.4.4's default pipeline.

One request flows: `prepare_image` (RGB upload -> BGR working image + `ScaleInfo`) ->
`det_preprocess` -> text_detection -> `db_postprocess` -> `sort_reading_order` ->
`crop_quad` per box -> `cls_preprocess` -> text_direction -> `apply_direction` ->
`rec_preprocess` (per `aspect_batches` group) -> text_recognition -> `ctc_decode` ->
`confident` filter (`confident_lines`), with `boxes_to_upload` mapping boxes back to the uploaded pixels.
Every step is array in, array out, with no state, so Triton models, the seal BLS model and
the tests compose the same functions. `charset` is the only module that needs onnxruntime.
"""

from .db import DBParams, db_postprocess
from .detection import ScaleInfo, boxes_to_upload, det_preprocess, prepare_image, prepare_line
from .geometry import crop_quad, sort_reading_order
from .recognition import (
    Decoded,
    apply_direction,
    aspect_batches,
    cls_preprocess,
    confident,
    confident_lines,
    ctc_decode,
    ctc_decode_chars,
    rec_preprocess,
)

__all__ = [
    "DBParams",
    "Decoded",
    "ScaleInfo",
    "apply_direction",
    "aspect_batches",
    "boxes_to_upload",
    "cls_preprocess",
    "confident",
    "confident_lines",
    "crop_quad",
    "ctc_decode",
    "ctc_decode_chars",
    "db_postprocess",
    "det_preprocess",
    "prepare_image",
    "prepare_line",
    "rec_preprocess",
    "sort_reading_order",
]
