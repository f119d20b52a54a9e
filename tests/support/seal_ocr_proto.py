"""EVALUATION HARNESS ONLY: prototype PP-OCRv4 glue used by `seal_eval`, not the serving path.

The Triton seal BLS calls `text_detection` / `text_recognition` and the shared text functions
in `imgproc.text`; this module runs the same ONNX models directly with onnxruntime so the seal
geometry can be measured before those exist. It mirrors RapidOCR 1.4.4: recognition input
'x' float32 [N, 3, 48, W], BGR, (x/255 - 0.5)/0.5, padded right to at least 320 wide; the
character table is the ONNX metadata key `character` with 'blank' prepended and ' ' appended;
greedy CTC with confidence = mean max probability of the kept characters. Detection is DB
with ImageNet normalisation, a 0.3 binary threshold, 0.5 box threshold and unclip 1.6.
`read_seal` is the reading rule the BLS should follow: best `prior * confidence` over the rim
candidates, unsure characters (< 0.5) trimmed off the rim's ends, the code strip kept when it
reads as 8+ digits/capitals, inner crops through detection + recognition, and for rectangular
seals the orientation whose lines read more confidently, its first line as the main text.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field

import cv2
import numpy as np
import onnxruntime as ort
from imgproc.seal import SealCrops

REC_HEIGHT = 48
REC_MIN_WIDTH = 320
DET_MAX_SIDE = 640
DET_STRIDE = 32
DET_MEAN = np.array([0.485, 0.456, 0.406], np.float32)
DET_STD = np.array([0.229, 0.224, 0.225], np.float32)
DET_BINARY = 0.3
DET_BOX = 0.5
DET_UNCLIP = 1.6
DET_MIN_SIDE = 6
CODE_PATTERN = re.compile(r"[0-9A-Z]{8,}")
MIN_LINE_CONFIDENCE = 0.5
EDGE_CONFIDENCE = 0.5
# The project's provisioned PP-OCRv4 weights (identical to RapidOCR 1.4.4's); override with
# SEAL_EVAL_REC / SEAL_EVAL_DET, e.g. files unzipped from the rapidocr-onnxruntime wheel.
REC_MODEL = os.environ.get("SEAL_EVAL_REC", "triton_repo/models/text_recognition/1/model.onnx")
DET_MODEL = os.environ.get("SEAL_EVAL_DET", "triton_repo/models/text_detection/1/model.onnx")


@dataclass(frozen=True)
class Reading:
    """Recognised text, its mean character confidence and each character's."""

    text: str
    confidence: float
    scores: tuple[float, ...] = ()


def _session(path: str) -> ort.InferenceSession:
    options = ort.SessionOptions()
    options.intra_op_num_threads = int(os.environ.get("SEAL_EVAL_THREADS", "2"))
    options.inter_op_num_threads = 1
    return ort.InferenceSession(path, options, providers=["CPUExecutionProvider"])


def _bgr(image: np.ndarray) -> np.ndarray:
    return cv2.cvtColor(image, cv2.COLOR_GRAY2BGR) if image.ndim == 2 else image


class Recogniser:
    """PP-OCRv4 text-line recognition through onnxruntime."""

    def __init__(self, path: str = REC_MODEL) -> None:
        self.session = _session(path)
        table = self.session.get_modelmeta().custom_metadata_map["character"].splitlines()
        self.characters = ["blank", *table, " "]

    def _input(self, image: np.ndarray) -> np.ndarray:
        height, width = image.shape[:2]
        new_width = max(1, int(np.ceil(REC_HEIGHT * width / max(height, 1))))
        resized = cv2.resize(_bgr(image), (new_width, REC_HEIGHT)).astype(np.float32)
        batch = np.zeros((1, 3, REC_HEIGHT, max(new_width, REC_MIN_WIDTH)), np.float32)
        batch[0, :, :, :new_width] = ((resized / 255.0 - 0.5) / 0.5).transpose(2, 0, 1)
        return batch

    def __call__(self, image: np.ndarray) -> Reading:
        """Text of one line image (gray or BGR)."""
        if min(image.shape[:2]) < 2:
            return Reading("", 0.0)
        probs = self.session.run(None, {"x": self._input(image)})[0][0]
        best, score = probs.argmax(axis=1), probs.max(axis=1)
        keep = (best != 0) & np.concatenate([[True], best[1:] != best[:-1]])
        text = "".join(self.characters[i] for i in best[keep])
        return Reading(
            text, float(score[keep].mean()) if keep.any() else 0.0, tuple(float(v) for v in score[keep])
        )


class Detector:
    """PP-OCRv4 DB text detection through onnxruntime, for upright crops (axis-aligned boxes)."""

    def __init__(self, path: str = DET_MODEL) -> None:
        self.session = _session(path)
        self.input_name = self.session.get_inputs()[0].name

    def _input(self, image: np.ndarray) -> tuple[np.ndarray, float, float]:
        height, width = image.shape[:2]
        scale = DET_MAX_SIDE / max(height, width)
        new_h = max(DET_STRIDE, round(height * scale / DET_STRIDE) * DET_STRIDE)
        new_w = max(DET_STRIDE, round(width * scale / DET_STRIDE) * DET_STRIDE)
        resized = cv2.resize(_bgr(image), (new_w, new_h)).astype(np.float32) / 255.0
        batch = ((resized - DET_MEAN) / DET_STD).transpose(2, 0, 1)[None]
        return batch.astype(np.float32), width / new_w, height / new_h

    def __call__(self, image: np.ndarray) -> list[tuple[int, int, int, int]]:
        """Text boxes (x0, y0, x1, y1) in image pixels, top to bottom."""
        batch, sx, sy = self._input(image)
        prob = self.session.run(None, {self.input_name: batch})[0][0, 0]
        contours, _ = cv2.findContours(
            (prob > DET_BINARY).astype(np.uint8), cv2.RETR_LIST, cv2.CHAIN_APPROX_SIMPLE
        )
        boxes = []
        for contour in contours:
            x, y, w, h = cv2.boundingRect(contour)
            if min(w, h) < DET_MIN_SIDE or prob[y : y + h, x : x + w].mean() < DET_BOX:
                continue
            grow = w * h * DET_UNCLIP / (2 * (w + h))
            box = (x - grow, y - grow, x + w + grow, y + h + grow)
            boxes.append(
                (max(0, int(box[0] * sx)), max(0, int(box[1] * sy)), int(box[2] * sx), int(box[3] * sy))
            )
        return sorted(boxes, key=lambda b: (b[1] + b[3]) / 2)


def read_lines(image: np.ndarray, detector: Detector, recogniser: Recogniser) -> list[Reading]:
    """Detected and recognised lines of an upright crop, top to bottom."""
    readings = []
    for x0, y0, x1, y1 in detector(image):
        crop = image[y0:y1, x0:x1]
        if crop.size:
            readings.append(recogniser(crop))
    return readings


@dataclass
class SealReading:
    """What the BLS would answer for one seal."""

    rim_text: str
    confidence: float
    codes: list[str] = field(default_factory=list)
    inner_texts: list[str] = field(default_factory=list)


def trim_unsure_ends(reading: Reading, min_confidence: float = EDGE_CONFIDENCE) -> Reading:
    """`reading` without unsure characters at either end (stray marks next to the rim text)."""
    scores, start, stop = reading.scores, 0, len(reading.text)
    while start < stop and scores[start] < min_confidence:
        start += 1
    while stop > start and scores[stop - 1] < min_confidence:
        stop -= 1
    kept = scores[start:stop]
    return Reading(reading.text[start:stop], float(np.mean(kept)) if kept else 0.0, kept)


def _lines(crop: np.ndarray, det: Detector, rec: Recogniser) -> list[Reading]:
    return [r for r in read_lines(crop, det, rec) if r.text and r.confidence >= MIN_LINE_CONFIDENCE]


def _read_rect(crops: SealCrops, det: Detector, rec: Recogniser) -> SealReading:
    options = [_lines(crop, det, rec) for crop in crops.inner]
    best = max(options, key=lambda lines: float(np.mean([r.confidence for r in lines])) if lines else 0.0)
    if not best:
        return SealReading("", 0.0)
    return SealReading(best[0].text, best[0].confidence, inner_texts=[r.text for r in best[1:]])


def read_seal(crops: SealCrops, det: Detector, rec: Recogniser) -> SealReading:
    """Recognise one seal's candidates the way the BLS will."""
    if not crops.rim:
        return _read_rect(crops, det, rec)
    scored = [
        (strip.prior * reading.confidence, reading) for strip in crops.rim for reading in [rec(strip.image)]
    ]
    _, best = max(scored, key=lambda item: item[0])
    rim = trim_unsure_ends(best)
    reading = SealReading(rim.text, rim.confidence)
    if crops.code is not None:
        code = rec(crops.code)
        if CODE_PATTERN.fullmatch(code.text) and code.confidence >= MIN_LINE_CONFIDENCE:
            reading.codes.append(code.text)
    for crop in crops.inner:
        reading.inner_texts.extend(r.text for r in _lines(crop, det, rec))
    return reading
