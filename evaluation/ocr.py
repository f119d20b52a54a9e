"""Our PP-OCR pipeline run in-process: the pure `imgproc.text` functions over ONNX Runtime sessions.

This is the same chain of functions the Triton `ocr` ensemble and the seal model use, with
the three provisioned `model.onnx` files called directly instead of through Triton, so it
measures the functions alone. `InProcessOcr.read_page` is RapidOCR's full pipeline;
`read_line` is its `use_det=False` mode. `rec_batch_size=None` recognises all crops of an
image as one batch (one tensor, as a Triton ensemble step passes it); the default groups
them like RapidOCR.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import onnxruntime as ort
from imgproc.arrays import AnyArray, Floats, Pixels
from imgproc.text import (
    apply_direction,
    aspect_batches,
    boxes_to_upload,
    cls_preprocess,
    confident,
    crop_quad,
    ctc_decode,
    db_postprocess,
    det_preprocess,
    prepare_image,
    prepare_line,
    rec_preprocess,
    sort_reading_order,
)
from imgproc.text.charset import load_charset
from imgproc.text.recognition import REC_BATCH_SIZE

MODEL_FILE = Path("1") / "model.onnx"


@dataclass(frozen=True)
class OcrLine:
    """One recognised line: text, confidence, and float32[4, 2] corners in upload pixels."""

    text: str
    score: float
    box: Floats


def onnx_session(path: Path, threads: int) -> ort.InferenceSession:
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    # Without the arena: it keeps the largest buffer of every input shape it saw, and a corpus
    # of pages of every size grew one process past 12 GB (evaluation.seal.document).
    options.enable_cpu_mem_arena = False
    return ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])


def run_session(session: ort.InferenceSession, tensor: Floats) -> AnyArray:
    name = session.get_inputs()[0].name
    return np.asarray(session.run(None, {name: tensor})[0])


class InProcessOcr:
    """Sessions for text_detection, text_direction and text_recognition under a model repository."""

    def __init__(self, model_repository: Path, threads: int = 1, rec_batch_size: int | None = REC_BATCH_SIZE):
        self.det = onnx_session(model_repository / "text_detection" / MODEL_FILE, threads)
        self.cls = onnx_session(model_repository / "text_direction" / MODEL_FILE, threads)
        rec_path = model_repository / "text_recognition" / MODEL_FILE
        self.rec = onnx_session(rec_path, threads)
        self.charset = load_charset(rec_path)
        self.rec_batch_size = rec_batch_size

    def _upright(self, crops: Sequence[Pixels]) -> list[Pixels]:
        return apply_direction(crops, run_session(self.cls, cls_preprocess(crops)))

    def recognize(self, crops: Sequence[Pixels]) -> list[tuple[str, float]]:
        """Direction-correct and recognise BGR line crops, results in input order."""
        if not crops:
            return []
        crops = self._upright(crops)
        size = self.rec_batch_size or len(crops)
        results: list[tuple[str, float]] = [("", 0.0)] * len(crops)
        for group in aspect_batches(crops, size):
            probs = run_session(self.rec, rec_preprocess([crops[i] for i in group]))
            for index, result in zip(group, ctc_decode(probs, self.charset), strict=True):
                results[index] = result
        return results

    def read_page(self, rgb: Pixels) -> list[OcrLine]:
        """RapidOCR's full pipeline on an RGB image: lines in reading order, low scores dropped."""
        image, scale = prepare_image(rgb)
        prob = run_session(self.det, det_preprocess(image))
        boxes, _ = db_postprocess(prob, image.shape[:2])
        boxes = boxes[sort_reading_order(boxes)]
        results = self.recognize([crop_quad(image, box) for box in boxes])
        keep = confident(np.array([score for _, score in results]))
        upload_boxes = boxes_to_upload(boxes, scale)
        return [OcrLine(text, score, upload_boxes[i]) for i, (text, score) in enumerate(results) if keep[i]]

    def read_line(self, rgb: Pixels) -> tuple[str, float]:
        """RapidOCR's `use_det=False`: the whole RGB image as one line (no score filter)."""
        return self.recognize([prepare_line(rgb)])[0]
