"""A page in, every seal's text out: the stages in order, with the models behind one interface.

find -> cut -> locate (the learned detector, else the classical layout) -> unwrap (strips)
-> read (the recognisers) -> repair. The models are called through `SealModels`, whose
methods are coroutines: the seal BLS implements it with Triton BLS requests
(`async_exec`), the evaluation harness with ONNX Runtime in-process, the unit tests with
fakes. The seals of a page are read concurrently, and so are the calls within a seal that do
not wait on each other (a rim re-read by several recognisers, the arcs and the lines), which
lets Triton overlap them (on a GPU, and on several model instances).
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol

import numpy as np

from imgproc.imaging import Refused
from imgproc.text import Decoded

from .balance import white_balanced
from .classical import classical_strips
from .codes import checked_code, code_options
from .config import DEFAULT_CONFIG, SealConfig
from .crop import SealCrop, beside, cut_seal
from .detect import level_turn, seal_det_input, text_map, upright_turn
from .find import find_seals
from .locate import SealText, locate, with_inner
from .read import (
    anchored_windows,
    best_in_pool,
    best_index,
    best_orientation,
    dropped_windows,
    end_windows,
    filled,
    restored_repeats,
    step_px,
    stretched_image,
    with_other_readings,
)
from .repair import (
    Correct,
    Line,
    RepairParams,
    code_text,
    is_code,
    may_be_supervision,
    repair_rim,
    sorted_lines,
    supervision_rim,
)
from .shapes import SealRegion
from .strips import SealStrips, Strip, located_strips


class SealModels(Protocol):
    """The models the pipeline calls; each method may raise, and its error passes through."""

    async def seal_text(self, tensor: np.ndarray) -> np.ndarray:
        """The seal text detector's output for one input tensor (`detect.seal_det_input`)."""

    async def recognise(self, model: str, images: Sequence[np.ndarray], alternatives: int) -> list[Decoded]:
        """Each line image read by the recogniser `model`, with `alternatives` per character."""

    async def read_lines(self, image: np.ndarray) -> list[Line]:
        """The text lines of an image, found by the general text detector and read."""


@dataclass(frozen=True)
class SealReading:
    """The text of one seal: rim, inner lines and number codes, with confidences."""

    region: SealRegion
    rim_text: str
    rim_score: float
    inner: list[Line] = field(default_factory=list)
    codes: list[str] = field(default_factory=list)


def _as_read(line: Decoded) -> Decoded:
    return line


async def seal_strips(crop: SealCrop, models: SealModels, config: SealConfig) -> SealStrips:
    """What to read of one seal: located by the detector, else by the classical path."""
    if not crop.region.is_elliptic:
        return classical_strips(crop, config.classical, config.strip)
    turn = level_turn(crop.local)
    output = await models.seal_text(seal_det_input(crop.bgr, turn, config.det))
    text = locate(text_map(output, crop.bgr.shape, turn), crop.mask, crop.local, config.locate)
    if text is None:
        return classical_strips(crop, config.classical, config.strip)
    return located_strips(crop, await _upright_inner(crop, text, models, config), config.strip)


async def _upright_inner(crop: SealCrop, text: SealText, models: SealModels, config: SealConfig) -> SealText:
    """`text`, or for a seal turned far from upright whose inner lines went unfound, its inner
    lines from the detector's map of its crop turned upright (see `detect`)."""
    turn = upright_turn(text.up)
    if text.inner or abs(turn) <= config.det.upright_after_deg:
        return text
    output = await models.seal_text(seal_det_input(crop.bgr, turn, config.det))
    return with_inner(text, text_map(output, crop.bgr.shape, turn), crop.mask, crop.local, config.locate)


async def _all_readings(
    rim: tuple[Strip, ...], models: SealModels, config: SealConfig
) -> dict[str, list[Decoded]]:
    """The candidates read by the first recogniser, and by the others too where its best
    reading is unsure (`best_in_pool`); each recogniser reads them all as one batch."""
    first, others = config.recognisers.first, config.recognisers.others
    images = [strip.image for strip in rim]
    readings = {first: await models.recognise(first, images, config.read.alternatives)}
    priors, groups = [strip.prior for strip in rim], [strip.group for strip in rim]
    _, sureness = best_in_pool(readings[first], priors, groups, config.read)
    if sureness < config.read.sure and others:
        more = await asyncio.gather(
            *(models.recognise(name, images, config.read.alternatives) for name in others)
        )
        readings.update(zip(others, more, strict=True))
    return readings


async def read_rim(
    rim: tuple[Strip, ...], models: SealModels, config: SealConfig, correct: Correct
) -> Decoded | None:
    """The rim's reading: the best prior-weighted reading of any candidate by any recogniser
    that read it (`best_in_pool`), with the other readings of its group as alternatives,
    skipped characters filled in (between characters, and a pitch past either end), then
    repaired; None for a seal without rim candidates."""
    if not rim:
        return None
    images, priors = [strip.image for strip in rim], [strip.prior for strip in rim]
    readings = await _all_readings(rim, models, config)
    pool = [(i, line) for lines in readings.values() for i, line in enumerate(lines)]
    lines = [line for _, line in pool]
    chosen, _ = best_in_pool(
        lines, [priors[i] for i, _ in pool], [rim[i].group for i, _ in pool], config.read
    )
    index, best = pool[chosen]
    group = rim[index].group
    best = with_other_readings(best, [line for i, line in pool if rim[i].group == group and line is not best])
    px = step_px(images[index], images)
    windows = dropped_windows(best, images[index], px, config.read)
    ink = [strip.image for strip in rim if strip.group == group and strip.from_ink]
    windows += end_windows(best, ink[0], px, config.read) if ink else []
    reaching, offset = rim[index].past_ends()
    windows += anchored_windows(best, reaching, px, config.read, offset)
    if windows:
        reads = await models.recognise(
            config.recognisers.first, [w.image for w in windows], config.read.alternatives
        )
        best = filled(best, windows, reads)
    return repair_rim(best, correct, config.repair)


async def read_lines(
    strips: SealStrips, models: SealModels, config: SealConfig, correct: Correct = _as_read
) -> list[Line]:
    """The seal's other text: its arcs (the best candidate of each) and inner lines, each
    corrected to dictionary words as the rim is (黑龙江 for 熏龙江), and the lines found in its
    interiors (a rect seal's, in the orientation that reads best)."""
    candidates = [strip.image for arc in strips.arcs for strip in arc]
    images = candidates + list(strips.lines)
    alternatives = config.read.alternatives if correct is not _as_read else 0
    found = models.recognise(config.recognisers.first, images, alternatives) if images else _nothing()
    read, *interiors = await asyncio.gather(found, *(models.read_lines(image) for image in strips.interiors))
    read = await _with_repeats(read, images, models, config, alternatives)
    lines: list[Line] = []
    start = 0
    for arc in strips.arcs:
        chosen = read[start + best_index(read[start : start + len(arc)], [s.prior for s in arc])]
        lines.append(_corrected(chosen, correct, config.repair))
        start += len(arc)
    lines += [_corrected(line, correct, config.repair) for line in read[len(candidates) :]]
    if interiors:
        orientations = not strips.rim  # a rect seal's inside, both ways up
        lines += (
            best_orientation(interiors, config.read.orientation_margin) if orientations else _all(interiors)
        )
    return lines


async def _with_repeats(
    read: list[Decoded], images: list[np.ndarray], models: SealModels, config: SealConfig, alternatives: int
) -> list[Decoded]:
    """The readings, each code read again stretched along the line, taken where that only
    restores repeated characters CTC merged (`restored_repeats`)."""
    floor = config.repair.min_line_score
    codes = [i for i, line in enumerate(read) if is_code((line.text, line.score), floor)]
    if not codes:
        return read
    wide = [stretched_image(images[i], config.read.code_stretch) for i in codes]
    again = await models.recognise(config.recognisers.first, wide, alternatives)
    read = list(read)
    for i, line in zip(codes, again, strict=True):
        read[i] = restored_repeats(read[i], line)
    return read


def _corrected(line: Decoded, correct: Correct, params: RepairParams) -> Line:
    """A line's text corrected, with the confidence it was read with: a code by its check
    characters (`checked_code`), other text to dictionary words."""
    # Only a code that `sorted_lines` keeps is worth checking (its search tries pairs of
    # look-alikes); a less sure line is dropped there whatever it reads.
    code = code_text(line.text) if is_code((line.text, line.score), params.min_line_score) else ""
    options = code_options(line, code) if code else None
    if options is not None:
        return checked_code(code, options, params.code_floor, params.code_changes), line.score
    return correct(line).text, line.score


async def _nothing() -> list[Decoded]:
    return []


def _all(interiors: list[list[Line]]) -> list[Line]:
    return [line for lines in interiors for line in lines]


def seal_reading(
    region: SealRegion,
    rim: Decoded | None,
    lines: list[Line],
    config: SealConfig,
    around: list[Line] | None = None,
) -> SealReading:
    """A seal's answer from its rim and its other lines (and the text read around it, where
    it may be an invoice supervision seal); without a rim (a rect seal), its first inner line
    is its main text."""
    inner, codes = sorted_lines(lines, config.repair)
    if rim is not None:
        text = supervision_rim(region.shape, rim.text, inner, around)
        return SealReading(region, text, rim.score, inner, codes)
    first, rest = (inner[0], inner[1:]) if inner else (("", 0.0), [])
    return SealReading(region, first[0], first[1], rest, codes)


async def read_seal(crop: SealCrop, models: SealModels, config: SealConfig, correct: Correct) -> SealReading:
    """Everything one seal says."""
    return await read_strips(crop, await seal_strips(crop, models, config), models, config, correct)


async def read_strips(
    crop: SealCrop, strips: SealStrips, models: SealModels, config: SealConfig, correct: Correct
) -> SealReading:
    """Everything one seal says, from what there is to read of it."""
    rim, lines = await asyncio.gather(
        read_rim(strips.rim, models, config, correct), read_lines(strips, models, config, correct)
    )
    around = None
    if rim is not None and may_be_supervision(crop.region.shape, rim.text):
        # The rim went unread: the crop, and the page beside it, are read for the invoice's title
        # (both: at the wider view's scale the seal's own small print may go unfound).
        wide = beside(crop, config.repair.cue_reach)
        views = [crop.bgr] if wide is crop.bgr else [crop.bgr, wide]
        around = [line for lines in await asyncio.gather(*map(models.read_lines, views)) for line in lines]
    return seal_reading(crop.region, rim, lines, config, around)


def find_page_seals(rgb: np.ndarray, config: SealConfig = DEFAULT_CONFIG) -> list[SealCrop]:
    """Every seal on an RGB page, largest first, cut from the white-balanced page."""
    balanced = white_balanced(rgb, config.find.balance)
    regions = find_seals(balanced, config.ink, config.find)
    return [
        cut_seal(balanced, region, config.ink, config.crop_margin, config.find.grey) for region in regions
    ]


class TooManySeals(Refused):
    """A page holds more seals than one request reads (`SealConfig.max_seals`)."""


async def read_page(
    rgb: np.ndarray, models: SealModels, config: SealConfig = DEFAULT_CONFIG, correct: Correct = _as_read
) -> list[SealReading]:
    """Every seal on an RGB page with its text; empty when there is none. Raises TooManySeals."""
    crops = find_page_seals(rgb, config)
    if len(crops) > config.max_seals:
        raise TooManySeals(
            f"{len(crops)} seals found on one page; at most {config.max_seals} are read per page "
            "(send the seals in parts)"
        )
    return list(await asyncio.gather(*(read_seal(crop, models, config, correct) for crop in crops)))
