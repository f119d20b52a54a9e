"""EVALUATION HARNESS: the seal BLS's recogniser callables over ONNX Runtime, in-process.

The seal model passes its configured recogniser (by default `most_confident` over
`pymodel.recognise_chars` for text_recognition, text_recognition_v5 and text_recognition_v6),
`pymodel.read_lines` (text_detection / text_direction / text_recognition, through BLS) and
the word-list correction (`imgproc.text.lexicon.correct`) to `imgproc.seal.reading.read_seal`.
This module composes the same `imgproc.text` functions over the provisioned `model.onnx`
files, so `python -m evaluation.seal` measures exactly the serving decisions without starting Triton: all
rim candidates of a seal are recognised as one batch (one padded tensor, as one BLS call),
and inner crops go through detection, reading order, direction and recognition.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial
from pathlib import Path

import numpy as np
import onnxruntime as ort
from imgproc.imaging import decode_rgb, three_channels
from imgproc.seal import SealCrops, prepare_seals
from imgproc.seal.reading import (
    LEXICON_WEIGHT,
    RIM_ALTERNATIVES,
    Recognise,
    SealReading,
    most_confident,
    read_seal,
)
from imgproc.text import (
    Decoded,
    apply_direction,
    cls_preprocess,
    crop_quad,
    ctc_decode_chars,
    db_postprocess,
    det_preprocess,
    prepare_image,
    rec_preprocess,
    sort_reading_order,
)
from imgproc.text.charset import load_charset
from imgproc.text.lexicon import LEXICON_FILE, correct, load_lexicon

from evaluation.ocr import MODEL_FILE, InProcessOcr, onnx_session, run_session
from evaluation.seal.scoring import FoundSeal

MODEL_REPOSITORY = Path("triton_repo/models")
Line = tuple[str, float]


def _recognise(
    session: ort.InferenceSession, charset: Sequence[str], images: Sequence[np.ndarray], alternatives: int = 0
) -> list[Decoded]:
    """As `pymodel.recognise_chars`: the images as one batch through one recogniser."""
    if not images:
        return []
    probs = run_session(session, rec_preprocess([three_channels(image) for image in images]))
    return ctc_decode_chars(probs, charset, alternatives)


# As the seal model's default `recogniser`, "ppocr_v4_v5_v6"; the first is text_recognition.
STRIP_RECOGNISERS = ("text_recognition_v5", "text_recognition_v6")


class InProcessSeal:
    """`read_seal` with the BLS's recognisers replaced by ONNX Runtime sessions."""

    def __init__(self, model_repository: Path = MODEL_REPOSITORY, threads: int = 1) -> None:
        self.ocr = InProcessOcr(model_repository, threads, rec_batch_size=None)
        sessions = {"text_recognition": (self.ocr.rec, self.ocr.charset)}
        for name in STRIP_RECOGNISERS:
            path = model_repository / name / MODEL_FILE
            sessions[name] = (onnx_session(path, threads), load_charset(path))
        self.readers: dict[str, Recognise] = {
            name: partial(_recognise, session, charset, alternatives=RIM_ALTERNATIVES)
            for name, (session, charset) in sessions.items()
        }
        self.recognise_strips: Recognise = most_confident(*self.readers.values())
        lexicon = load_lexicon(model_repository / "seal" / "1" / LEXICON_FILE)
        self.correct = partial(correct, lexicon=lexicon, weight=LEXICON_WEIGHT)

    def recognise_chars(self, images: Sequence[np.ndarray]) -> list[Decoded]:
        """As `pymodel.recognise_chars` with text_recognition."""
        return _recognise(self.ocr.rec, self.ocr.charset, images)

    def read_lines(self, image: np.ndarray) -> list[Line]:
        """As `pymodel.read_lines`: detect, order, turn upright, recognise."""
        working, _ = prepare_image(three_channels(image))
        boxes, _ = db_postprocess(run_session(self.ocr.det, det_preprocess(working)), working.shape[:2])
        crops = [crop_quad(working, box) for box in boxes[sort_reading_order(boxes)]]
        if not crops:
            return []
        upright = apply_direction(crops, run_session(self.ocr.cls, cls_preprocess(crops)))
        return [(line.text, line.score) for line in self.recognise_chars(upright)]

    def read(self, crops: SealCrops) -> SealReading:
        """What the seal BLS answers for one seal."""
        return read_seal(crops, self.recognise_strips, self.read_lines, correct=self.correct)

    def read_page(self, image: bytes) -> list[FoundSeal]:
        """What /v1/seal answers for a page."""
        return [_found(self.read(crops)) for crops in prepare_seals(decode_rgb(image))]


def _found(reading: SealReading) -> FoundSeal:
    inner = tuple(text for text, _ in reading.inner)
    return FoundSeal(
        reading.crops.region.box, reading.crops.region.shape, reading.rim_text, inner, tuple(reading.codes)
    )
