"""seal (BLS): page bytes -> every red seal with its rim text, inner lines and codes.

A thin adapter: `imgproc.seal.pipeline.read_page` holds every decision; this file gives it
the models it calls, through BLS `async_exec`, so that the calls of one request that do not
wait on each other (the seals of a page, a rim re-read by several recognisers) and the
requests of a batch overlap.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
from imgproc.arrays import AnyArray, Floats, Pixels
from imgproc.imaging import decode_rgb
from imgproc.seal.config import SealConfig, served_config
from imgproc.seal.expected import check_requested, expected_names
from imgproc.seal.pipeline import read_page
from imgproc.seal.records import DocumentCheck, PageReading
from imgproc.seal.words import load_words
from imgproc.text import Decoded
from imgproc.text.lines import TextLine
from pymodel import (
    RECOGNITION_MODELS,
    AsyncPerRequestModel,
    call_model_async,
    max_pixels,
    model_config,
    optional_input,
    parameters,
    read_image_lines,
    recognise_chars,
    recognise_seq2seq,
    recogniser_charset,
    request_bytes,
    response,
    strings,
)

SEAL_TEXT_MODEL = "seal_text_detection"
SEAL_TEXT_INPUT = "x"
SEAL_TEXT_OUTPUT = "fetch_name_0"


class TritonSealModels:
    """`imgproc.seal.pipeline.SealModels` over BLS calls to the other Triton models."""

    def __init__(self, args: dict[str, str], config: SealConfig) -> None:
        names = (config.read.recognisers.first, *config.read.recognisers.others)
        self._charsets = {
            name: recogniser_charset(args, RECOGNITION_MODELS[name])
            for name in names
            if name in RECOGNITION_MODELS
        }
        self._lines_charset = recogniser_charset(args)

    async def seal_text(self, tensor: Floats) -> Floats:
        return await call_model_async(SEAL_TEXT_MODEL, {SEAL_TEXT_INPUT: tensor}, SEAL_TEXT_OUTPUT)

    async def recognise(
        self, model: str, images: Sequence[Pixels], alternatives: int, frames: int = 0
    ) -> list[Decoded]:
        if model not in RECOGNITION_MODELS:  # an encoder-decoder BLS model: no CTC alternatives
            return await recognise_seq2seq(images, model)
        charset, recogniser = self._charsets[model], RECOGNITION_MODELS[model]
        return await recognise_chars(images, charset, recogniser, alternatives, frames)

    async def read_lines(self, image: Pixels) -> list[TextLine]:
        return await read_image_lines(image, self._lines_charset)


def seal_config(args: dict[str, str]) -> SealConfig:
    """The default configuration with config.pbtxt's tunables applied (`served_config`)."""
    return served_config(parameters(model_config(args)))


def _verdicts(page: PageReading) -> dict[str, AnyArray]:
    """The expected names' verdicts and each seal's best expected name, as flat tensors."""
    matches = [reading.match for reading in page.seals]
    return {
        "MATCH_TEXTS": strings([match.text if match else "" for match in matches]),
        "MATCH_SCORES": np.array([match.score if match else 0.0 for match in matches], np.float32),
        "EXPECTED_FOUND": np.array([verdict.found for verdict in page.expected], np.bool_),
        "EXPECTED_SCORES": np.array([verdict.score for verdict in page.expected], np.float32),
        "EXPECTED_SEALS": np.array(
            [-1 if verdict.seal is None else verdict.seal for verdict in page.expected], np.int32
        ),
    }


def _document(check: DocumentCheck | None) -> dict[str, AnyArray]:
    """The page's parties, each seal's party and the verdict, as flat tensors: all empty where
    the check was not asked for; else one party per row, one link per seal (-1: none), and the
    kind and verdict as one string each."""
    parties = [] if check is None else check.parties
    links = [] if check is None else check.links
    return {
        "PARTY_ROLES": strings([party.role for party in parties]),
        "PARTY_TEXTS": strings([party.text for party in parties]),
        "PARTY_BOXES": np.array([party.box for party in parties], np.int32).reshape(-1, 4),
        "PARTY_SOURCES": strings([party.source for party in parties]),
        "PARTY_TAX_IDS": strings([party.tax_id or "" for party in parties]),
        "SEAL_PARTIES": np.array([-1 if link is None else link.index for link in links], np.int32),
        "SEAL_PARTY_SCORES": np.array([0.0 if link is None else link.score for link in links], np.float32),
        "DOCUMENT_KIND": strings([] if check is None else [check.kind]),
        "VERDICT": strings([] if check is None else [check.verdict]),
        "VERDICT_REASONS": strings([] if check is None else check.reasons),
    }


def _tensors(page: PageReading) -> dict[str, AnyArray]:
    readings = page.seals
    inner = [(i, line) for i, reading in enumerate(readings) for line in reading.inner]
    codes = [(i, code) for i, reading in enumerate(readings) for code in reading.codes]
    return (
        _verdicts(page)
        | _document(page.document)
        | {
            "BOXES": np.array([r.region.box for r in readings], np.float32).reshape(-1, 4),
            "SHAPES": strings([r.region.shape.value for r in readings]),
            "RIM_TEXTS": strings([r.rim_text for r in readings]),
            "RIM_SCORES": np.array([r.rim_score for r in readings], np.float32),
            "SEAL_SCORES": np.array([r.score for r in readings], np.float32),
            "INNER_TEXTS": strings([text for _, (text, _) in inner]),
            "INNER_SCORES": np.array([score for _, (_, score) in inner], np.float32),
            "INNER_SEALS": np.array([i for i, _ in inner], np.int32),
            "CODES": strings([text for _, (text, _) in codes]),
            "CODE_SCORES": np.array([score for _, (_, score) in codes], np.float32),
            "CODE_SEALS": np.array([i for i, _ in codes], np.int32),
        }
    )


class TritonPythonModel(AsyncPerRequestModel):
    """Thin adapter: imgproc.seal reads the page; the models are called through BLS."""

    def initialize(self, args: dict[str, str]) -> None:
        self._max_pixels = max_pixels(args)
        self._config = seal_config(args)
        self._models = TritonSealModels(args, self._config)
        version = Path(args["model_repository"]) / args["model_version"]
        self._words = load_words(version, self._config.repair.lexicon_weight)

    async def respond(self, request: Any) -> Any:
        expected = expected_names(optional_input(request, "EXPECTED"))
        check = check_requested(optional_input(request, "CHECK"))
        page = decode_rgb(request_bytes(request)[0], self._max_pixels)
        reading = await read_page(page, self._models, self._config, self._words, expected, check)
        return response(**_tensors(reading))
