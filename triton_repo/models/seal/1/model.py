"""seal (BLS): page bytes -> every red seal with its rim text, inner lines and codes."""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np
from imgproc.imaging import ImageError, decode_rgb
from imgproc.seal.pipeline import prepare_seals
from imgproc.seal.reading import (
    LEXICON_WEIGHT,
    RIM_ALTERNATIVES,
    Correct,
    Recognise,
    SealReading,
    most_confident,
    read_seal,
)
from imgproc.text.lexicon import LEXICON_FILE, correct, load_lexicon
from pymodel import (
    PPOCR_V4,
    PPOCR_V5,
    PPOCR_V6,
    ModelCallError,
    PerRequestModel,
    RecognitionModel,
    internal_error,
    invalid_argument,
    max_pixels,
    model_config,
    parameter,
    read_lines,
    recognise_chars,
    recogniser_charset,
    request_bytes,
    response,
)

# Rim and code strips go to the configured entry: each strip is read by every model of it and
# the surest reading is kept. Another recogniser (e.g. TrOCR served as its own Triton model)
# is one more entry here.
RECOGNISERS: dict[str, tuple[RecognitionModel, ...]] = {
    "ppocr": (PPOCR_V4,),
    "ppocr_v4_v5": (PPOCR_V4, PPOCR_V5),
    "ppocr_v4_v5_v6": (PPOCR_V4, PPOCR_V5, PPOCR_V6),
}


def strip_recogniser(args: dict[str, str], models: Sequence[RecognitionModel]) -> Recognise:
    """The surest reading of each strip over `models`, each called through BLS, with the
    others' readings and each model's likeliest characters as alternatives."""
    offered = RIM_ALTERNATIVES
    readers = [
        partial(recognise_chars, charset=recogniser_charset(args, model), model=model, alternatives=offered)
        for model in models
    ]
    return most_confident(*readers)


def rim_corrector(args: dict[str, str]) -> Correct:
    """`correct` with the word list provisioned beside this model (loaded once, ~1.5 s)."""
    lexicon = load_lexicon(Path(args["model_repository"]) / args["model_version"] / LEXICON_FILE)
    return partial(correct, lexicon=lexicon, weight=LEXICON_WEIGHT)


def _strings(texts: Sequence[str]) -> np.ndarray:
    return np.array([text.encode() for text in texts], dtype=np.object_)


def _tensors(readings: list[SealReading]) -> dict[str, np.ndarray]:
    inner = [(i, line) for i, reading in enumerate(readings) for line in reading.inner]
    codes = [(i, code) for i, reading in enumerate(readings) for code in reading.codes]
    return {
        "BOXES": np.array([r.crops.region.box for r in readings], np.float32).reshape(-1, 4),
        "SHAPES": _strings([r.crops.region.shape for r in readings]),
        "RIM_TEXTS": _strings([r.rim_text for r in readings]),
        "RIM_SCORES": np.array([r.rim_score for r in readings], np.float32),
        "INNER_TEXTS": _strings([text for _, (text, _) in inner]),
        "INNER_SCORES": np.array([score for _, (_, score) in inner], np.float32),
        "INNER_SEALS": np.array([i for i, _ in inner], np.int32),
        "CODES": _strings([code for _, code in codes]),
        "CODE_SEALS": np.array([i for i, _ in codes], np.int32),
    }


class TritonPythonModel(PerRequestModel):
    """Thin adapter: imgproc.seal finds and unwraps; the recognisers are called through BLS."""

    def initialize(self, args: dict[str, str]) -> None:
        config = model_config(args)
        self._max_pixels = max_pixels(args)
        self._min_score = float(parameter(config, "min_line_score"))
        self._recognise = strip_recogniser(args, RECOGNISERS[parameter(config, "recogniser")])
        self._correct = rim_corrector(args)
        # Inner lines need detection as well, which only the PP-OCR pair provides.
        self._read_lines = partial(read_lines, charset=recogniser_charset(args))

    def respond(self, request: Any) -> Any:
        try:
            page = decode_rgb(request_bytes(request)[0], self._max_pixels)
        except ImageError as exc:
            return invalid_argument(str(exc))
        try:
            readings = [
                read_seal(crops, self._recognise, self._read_lines, self._min_score, self._correct)
                for crops in prepare_seals(page)
            ]
        except ModelCallError as exc:
            return internal_error(str(exc))
        return response(**_tensors(readings))
