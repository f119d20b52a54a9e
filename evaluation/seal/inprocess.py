"""EVALUATION HARNESS: the seal BLS's pipeline with its models run by ONNX Runtime, in-process.

The seal model runs `imgproc.seal.pipeline.read_page` with its models called through Triton
(BLS). `OnnxSealModels` implements the same `SealModels` interface over the provisioned
`model.onnx` files, so `python -m evaluation.seal` measures exactly the serving decisions
without starting Triton: the same functions, the same batches per call, the same word list.
"""

from __future__ import annotations

import asyncio
import multiprocessing
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, fields
from functools import cached_property
from pathlib import Path
from typing import TypeVar

import onnxruntime as ort
from google.protobuf import text_format
from imgproc.arrays import Floats, Pixels
from imgproc.imaging import decode_rgb, three_channels
from imgproc.seal.config import SealConfig, served_config
from imgproc.seal.pipeline import page_lines, read_lines_and_seals, read_page, read_page_seals
from imgproc.seal.records import PageReading, SealEvidence, SealReading
from imgproc.seal.words import Words, load_words
from imgproc.text import (
    Decoded,
    ctc_decode_chars,
    rec_preprocess,
)
from imgproc.text.charset import load_charset
from imgproc.text.lines import TextLine, read_in_groups, read_lines
from tritonclient.grpc import model_config_pb2

from evaluation.ocr import MODEL_FILE, onnx_session, run_session
from evaluation.seal.scoring import FoundSeal
from evaluation.seal.seq2seq import SEQ2SEQ, OnnxSeq2Seq

MODEL_REPOSITORY = Path("triton_repo/models")
T = TypeVar("T")


class OnnxSealModels:
    """`SealModels` over ONNX Runtime sessions of the provisioned models."""

    def __init__(self, model_repository: Path = MODEL_REPOSITORY, threads: int = 1) -> None:
        def session(name: str) -> ort.InferenceSession:
            return onnx_session(model_repository / name / MODEL_FILE, threads)

        self.seal_det = session("seal_text_detection")
        self.det, self.cls = session("text_detection"), session("text_direction")
        self._repository, self._threads = model_repository, threads
        self._rec: dict[str, tuple[ort.InferenceSession, tuple[str, ...]]] = {}

    def _ctc_recogniser(self, name: str) -> tuple[ort.InferenceSession, tuple[str, ...]]:
        """A CTC recogniser's session and class table, loaded when a configuration first names it."""
        if name not in self._rec:
            path = self._repository / name / MODEL_FILE
            self._rec[name] = (onnx_session(path, self._threads), load_charset(path))
        return self._rec[name]

    @cached_property
    def seq2seq(self) -> OnnxSeq2Seq:
        """The encoder-decoder recogniser, loaded only when a configuration names it."""
        return OnnxSeq2Seq(self._repository, self._threads)

    async def seal_text(self, tensor: Floats) -> Floats:
        return run_session(self.seal_det, tensor)

    async def recognise(
        self, model: str, images: Sequence[Pixels], alternatives: int, frames: int = 0
    ) -> list[Decoded]:
        if model == SEQ2SEQ:
            return await self.seq2seq.recognise(images)
        session, charset = self._ctc_recogniser(model)
        batch = rec_preprocess([three_channels(image) for image in images])
        return ctc_decode_chars(run_session(session, batch), charset, alternatives, frames)

    async def read_lines(self, image: Pixels) -> list[TextLine]:
        async def detect(tensor: Floats) -> Floats:
            return run_session(self.det, tensor)

        async def classify(tensor: Floats) -> Floats:
            return run_session(self.cls, tensor)

        async def recognise_group(crops: list[Pixels]) -> list[Decoded]:
            return await self.recognise("text_recognition", crops, 0)

        async def recognise(crops: list[Pixels]) -> list[Decoded]:  # as the seal model does
            return await read_in_groups(crops, recognise_group)

        return await read_lines(image, detect, classify, recognise)


def model_parameters(model_dir: Path) -> dict[str, str]:
    """The `parameters` of a model's config.pbtxt, key to string value, as Triton reads them."""
    config = text_format.Parse((model_dir / "config.pbtxt").read_text(), model_config_pb2.ModelConfig())
    return {key: value.string_value for key, value in config.parameters.items()}


def seal_model_config(model_repository: Path = MODEL_REPOSITORY) -> SealConfig:
    """The configuration the seal model serves, from its config.pbtxt (`served_config`)."""
    return served_config(model_parameters(model_repository / "seal"))


def seal_words(model_repository: Path, config: SealConfig) -> Words:
    """The seal model's word list and variants table, from the files provisioned beside it."""
    return load_words(model_repository / "seal" / "1", config.repair.lexicon_weight)


def found_seal(reading: SealReading) -> FoundSeal:
    """A reading in the scorer's terms."""
    inner = tuple(text for text, _ in reading.inner)
    region = reading.region
    return FoundSeal(region.box, region.shape.value, reading.rim_text, inner, reading.code_texts)


@dataclass(frozen=True)
class PageRead:
    """A page's text lines and trusted seals, and its height: what its seals are checked
    against its parties on (`pipeline.checked_page`)."""

    lines: list[TextLine]
    seals: list[SealEvidence]
    height: int


class InProcessSeal:
    """What the seal BLS answers, computed in this process: by default with the configuration
    the seal model serves (its config.pbtxt)."""

    def __init__(
        self, model_repository: Path = MODEL_REPOSITORY, threads: int = 1, config: SealConfig | None = None
    ):
        self.config = seal_model_config(model_repository) if config is None else config
        self.threads = threads
        self.models = OnnxSealModels(model_repository, threads)
        self.words = seal_words(model_repository, self.config)

    def page(self, image: bytes, expected: Sequence[str] = (), check_document: bool = False) -> PageReading:
        """Every seal of an encoded page with its text, the verdict on each expected name, and,
        where `check_document`, the seals checked against the parties the page names."""
        rgb = decode_rgb(image)
        return asyncio.run(read_page(rgb, self.models, self.config, self.words, expected, check_document))

    def lines_and_seals(self, image: bytes) -> PageRead:
        """What a page's seals are checked against its parties on (`check=document`): its lines
        and its seals, read as the seal model reads them (`pipeline.read_lines_and_seals`)."""
        rgb = decode_rgb(image)
        lines, seals = asyncio.run(read_lines_and_seals(rgb, self.models, self.config, self.words))
        return PageRead(lines, seals, rgb.shape[0])

    def lines_only(self, image: bytes) -> list[TextLine]:
        """A page's lines as `lines_and_seals` reads them (without its red ink)."""
        return asyncio.run(page_lines(decode_rgb(image), self.models, self.config))

    def seals_only(self, image: bytes) -> tuple[list[SealEvidence], int]:
        """A page's seals as `lines_and_seals` reads them, and the page's height."""
        rgb = decode_rgb(image)
        return asyncio.run(read_page_seals(rgb, self.models, self.config, self.words)), rgb.shape[0]

    def readings(self, image: bytes) -> list[SealReading]:
        """Every seal of an encoded page with its text."""
        return self.page(image).seals

    def read_page(self, image: bytes) -> list[FoundSeal]:
        """What /v1/seal answers for a page, in the scorer's terms."""
        return [found_seal(reading) for reading in self.readings(image)]


def reading_config(config: SealConfig) -> dict[str, object]:
    """What of a configuration a page's seals, read without the document check, depend on:
    all of it but the parties (`readcache.NOT_READER_CODE`)."""
    return {part.name: getattr(config, part.name) for part in fields(config) if part.name != "parties"}


_WORKER: InProcessSeal | None = None  # one reader per worker process (`read_pages`)


def _start_worker(threads: int, config: SealConfig) -> None:
    global _WORKER  # noqa: PLW0603 - a worker process's own reader, built once
    _WORKER = InProcessSeal(threads=threads, config=config)


def _read_in_worker(image: bytes) -> list[FoundSeal]:
    assert _WORKER is not None  # set by the pool's initializer
    return _WORKER.read_page(image)


def _lines_and_seals_in_worker(image: bytes) -> PageRead:
    assert _WORKER is not None  # set by the pool's initializer
    return _WORKER.lines_and_seals(image)


def _in_workers(
    seal: InProcessSeal, work: Callable[[bytes], T], images: Iterable[bytes], jobs: int, threads: int
) -> Iterator[T]:
    """`work` on each image, in order, over `jobs` worker processes (each with its own
    sessions and the same configuration)."""
    context = multiprocessing.get_context("spawn")  # ONNX Runtime's threads do not survive fork
    with ProcessPoolExecutor(
        jobs, context, initializer=_start_worker, initargs=(threads, seal.config)
    ) as pool:
        yield from pool.map(work, images)


def read_pages(
    seal: InProcessSeal, images: Iterable[bytes], jobs: int, threads: int = 1
) -> Iterator[list[FoundSeal]]:
    """Each page's answer, in order: in this process, or over `jobs` worker processes when
    `jobs` is more than one."""
    if jobs <= 1:
        yield from (seal.read_page(image) for image in images)
        return
    yield from _in_workers(seal, _read_in_worker, images, jobs, threads)


def read_lines_and_seals_of(
    seal: InProcessSeal, images: Iterable[bytes], jobs: int, threads: int = 1
) -> Iterator[PageRead]:
    """Each page's lines and seals, in order: in this process, or over `jobs` worker processes
    when `jobs` is more than one."""
    if jobs <= 1:
        yield from (seal.lines_and_seals(image) for image in images)
        return
    yield from _in_workers(seal, _lines_and_seals_in_worker, images, jobs, threads)
