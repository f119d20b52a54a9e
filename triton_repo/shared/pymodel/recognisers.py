"""The PP-OCR models called through BLS: text direction, detection and the line recognisers."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from imgproc.arrays import Floats, Pixels
from imgproc.imaging import three_channels
from imgproc.text import (
    Decoded,
    apply_direction,
    cls_preprocess,
    ctc_decode_chars,
    rec_preprocess,
)
from imgproc.text.charset import load_charset
from imgproc.text.lines import TextLine, read_in_groups
from imgproc.text.lines import read_lines as text_lines
from imgproc.text.recognition import REC_BATCH_SIZE
from imgproc.text.seq2seq import as_decoded, padded_batch

from pymodel.bls import call_model, call_model_async, call_model_outputs

# The PP-OCR models' tensors, as their config.pbtxt (and the ONNX exports) name them.
DIRECTION_MODEL = "text_direction"
DIRECTION_INPUT = "x"
DIRECTION_OUTPUT = "save_infer_model/scale_0.tmp_1"
DETECTION_MODEL = "text_detection"
DETECTION_INPUT = "x"
DETECTION_OUTPUT = "sigmoid_0.tmp_0"
RECOGNITION_INPUT = "x"  # both recognisers take imgproc.text.rec_preprocess's tensor


@dataclass(frozen=True)
class RecognitionModel:
    """A CTC line recogniser served by Triton: its name and output tensor."""

    name: str
    output: str

    def onnx(self, args: dict[str, str]) -> Path:
        """Its model.onnx, a sibling of the calling model in the repository (the charset's home)."""
        return Path(args["model_repository"]).parent / self.name / "1" / "model.onnx"


PPOCR_V4 = RecognitionModel("text_recognition", "softmax_11.tmp_0")
PPOCR_V5 = RecognitionModel("text_recognition_v5", "fetch_name_0")
PPOCR_V6 = RecognitionModel("text_recognition_v6", "fetch_name_0")
RECOGNITION_MODELS = {model.name: model for model in (PPOCR_V4, PPOCR_V5, PPOCR_V6)}


def upright(crops: list[Pixels]) -> list[Pixels]:
    """Line crops with the upside-down ones turned, classified in one BLS call; raises ModelCallError."""
    if not crops:  # Triton rejects an empty batch; nothing to classify anyway
        return []
    scores = call_model(DIRECTION_MODEL, {DIRECTION_INPUT: cls_preprocess(crops)}, DIRECTION_OUTPUT)
    return apply_direction(crops, scores)


async def upright_async(crops: list[Pixels]) -> list[Pixels]:
    """`upright` without blocking the calling model's other requests; raises ModelCallError."""
    if not crops:
        return []
    tensor = cls_preprocess(crops)
    return apply_direction(
        crops, await call_model_async(DIRECTION_MODEL, {DIRECTION_INPUT: tensor}, DIRECTION_OUTPUT)
    )


def recogniser_charset(args: dict[str, str], model: RecognitionModel = PPOCR_V4) -> tuple[str, ...]:
    """The character table of a recogniser, read once from its own files."""
    return load_charset(model.onnx(args))


async def recognise_chars(
    images: Sequence[Pixels],
    charset: Sequence[str],
    model: RecognitionModel = PPOCR_V4,
    alternatives: int = 0,
    frames: int = 0,
) -> list[Decoded]:
    """Each line image (gray or BGR) read per character, with the `alternatives` likeliest
    characters of each (and `frames` of every frame, `Decoded.frames`), in one BLS call;
    raises ModelCallError."""
    if not images:  # Triton rejects an empty batch
        return []
    batch = rec_preprocess([three_channels(image) for image in images])
    probs = await call_model_async(model.name, {RECOGNITION_INPUT: batch}, model.output)
    return ctc_decode_chars(probs, charset, alternatives, frames)


async def recognise_seq2seq(images: Sequence[Pixels], model: str) -> list[Decoded]:
    """Each line image (gray or BGR) read by an encoder-decoder BLS model (`seq2seq_recognition`)
    in one call, as `Decoded` lines (every character with the line's score); raises
    ModelCallError."""
    if not images:
        return []
    batch, widths = padded_batch([three_channels(image) for image in images])
    out = await call_model_outputs(model, {"IMAGES": batch, "WIDTHS": widths}, ["TEXTS", "SCORES"])
    return [
        as_decoded(text.decode(), float(score))
        for text, score in zip(out["TEXTS"], out["SCORES"], strict=True)
    ]


async def recognise_grouped(
    crops: Sequence[Pixels],
    charset: Sequence[str],
    model: RecognitionModel = PPOCR_V4,
    batch_size: int = REC_BATCH_SIZE,
) -> list[Decoded]:
    """BGR line crops read in RapidOCR's groups (`imgproc.text.lines.read_in_groups`), all
    groups' BLS calls in flight at once; results in input order. Raises ModelCallError."""

    async def recognise(group: list[Pixels]) -> list[Decoded]:
        return await recognise_chars(group, charset, model)

    return await read_in_groups(list(crops), recognise, batch_size)


async def read_image_lines(image: Pixels, charset: Sequence[str]) -> list[TextLine]:
    """Detect, order, straighten and recognise the text lines of an image through BLS
    (`imgproc.text.lines.read_image_lines`); raises ModelCallError."""

    async def detect(tensor: Floats) -> Floats:
        return await call_model_async(DETECTION_MODEL, {DETECTION_INPUT: tensor}, DETECTION_OUTPUT)

    async def classify(tensor: Floats) -> Floats:
        return await call_model_async(DIRECTION_MODEL, {DIRECTION_INPUT: tensor}, DIRECTION_OUTPUT)

    async def recognise(crops: list[Pixels]) -> list[Decoded]:
        return await recognise_grouped(crops, charset)

    return await text_lines(image, detect, classify, recognise)
