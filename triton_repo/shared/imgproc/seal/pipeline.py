"""A page in, every seal's text out: the stages in order, with the models behind one interface.

    find -> fit -> cut -> locate -> unwrap -> read -> repair -> trust (-> parties)

The models are called through `SealModels`, whose methods are coroutines: the seal BLS
implements it with Triton BLS requests (`async_exec`), the evaluation harness with ONNX
Runtime in-process, the unit tests with fakes. The seals of a page are read concurrently,
and so are the calls within a seal that do not wait on each other (a rim re-read by several
recognisers, the arcs and the lines), which lets Triton overlap them (on a GPU, and on several
model instances). Where the page is checked against the parties it names, its lines are read
by the general OCR (`read_lines`) while its seals are found and read.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import replace
from typing import Protocol

from imgproc.arrays import Floats, Pixels
from imgproc.imaging import Refused
from imgproc.text.lines import TextLine

from .config import DEFAULT_CONFIG, SealConfig
from .cut import cut_seal, surroundings
from .find import find_on_page
from .fit import crossing
from .ink import without_ink
from .locate import locate_seal
from .parties import SealSays, document_check, page_parties
from .read import Readers, read_around, read_seal
from .records import DocumentCheck, PageReading, SealCrop, SealEvidence, SealRegion, SealStrips, SealText
from .repair import repair_rim, seal_reading, wants_surroundings
from .trust import answered, name_scores, page_reading, region_signs, trusted
from .unwrap import unwrap_seal
from .words import NO_WORDS, Words


class SealModels(Readers, Protocol):
    """The models the pipeline calls; each method may raise, and its error passes through."""

    async def seal_text(self, tensor: Floats) -> Floats:
        """The seal text detector's output for one input tensor (`locate.detect.seal_det_input`)."""


class TooManySeals(Refused):
    """A page holds more seals than one request reads (`SealConfig.max_seals`)."""


def find_page_seals(rgb: Pixels, config: SealConfig = DEFAULT_CONFIG) -> list[SealCrop]:
    """Every seal on an RGB page, largest first, cut from the white-balanced page (without the
    rings of the seals stamped over it)."""
    return _cut_seals(*find_on_page(rgb, config.ink, config.find, config.fit), config)


def _cut_seals(balanced: Pixels, regions: list[SealRegion], config: SealConfig) -> list[SealCrop]:
    """The seals found on the white-balanced page, each cut without the others' rings."""
    return [
        cut_seal(balanced, region, config.ink, config.cut, _stamped_over(region, regions, config))
        for region in regions
    ]


def _stamped_over(region: SealRegion, regions: list[SealRegion], config: SealConfig) -> list[SealRegion]:
    """The seals whose rings cross `region`'s (stamped over it, or it over them)."""
    return [other for other in regions if other is not region and crossing(region, other, config.fit.overlap)]


async def seal_strips(crop: SealCrop, models: SealModels, config: SealConfig = DEFAULT_CONFIG) -> SealStrips:
    """What to read of one seal: its text located (by the detector, else by its ink) and unwrapped."""
    located = await locate_seal(crop, models.seal_text, config.locate)
    strips = unwrap_seal(crop, located, config.unwrap)
    return replace(strips, detected=isinstance(located, SealText), text_inside=located.text_inside)


async def read_crop(
    crop: SealCrop, models: SealModels, config: SealConfig = DEFAULT_CONFIG, words: Words = NO_WORDS
) -> SealEvidence:
    """Everything one seal says, and what names are checked on."""
    return await read_strips(crop, await seal_strips(crop, models, config), models, config, words)


async def read_strips(
    crop: SealCrop,
    strips: SealStrips,
    models: SealModels,
    config: SealConfig = DEFAULT_CONFIG,
    words: Words = NO_WORDS,
) -> SealEvidence:
    """Everything one seal says, from what there is to read of it: read, its rim repaired, and,
    where the rim went unread, the seal's surroundings cut and read for repair's cues (an
    invoice's title), then the whole repaired and trusted."""
    readings = await read_seal(strips, models, config.read)
    rim = None if readings.rim is None else repair_rim(readings.rim, words.correct, config.repair)
    wanted = wants_surroundings(crop.region.shape, rim)
    around = await read_around(surroundings(crop, config.cut), models) if wanted else None
    reading = seal_reading(crop.region, rim, readings, words.correct, config.repair, around)
    signs = region_signs(crop, strips.detected, strips.text_inside, config.trust)
    return trusted(reading, readings, words, config.trust, signs)


async def read_page(
    rgb: Pixels,
    models: SealModels,
    config: SealConfig = DEFAULT_CONFIG,
    words: Words = NO_WORDS,
    expected: Sequence[str] = (),
    check_document: bool = False,
) -> PageReading:
    """Every seal on an RGB page with its text (none when there is none), whether each
    `expected` name is on it, and, where `check_document`, the seals checked against the
    parties the page names (its lines read by the general OCR while the seals are found and
    read). Raises TooManySeals."""
    if not check_document:
        return page_reading(await read_page_seals(rgb, models, config, words), expected, words, config.trust)
    lines, seals = await read_lines_and_seals(rgb, models, config, words)
    return checked_page(lines, seals, rgb.shape[0], config, words, expected)


async def read_lines_and_seals(
    rgb: Pixels, models: SealModels, config: SealConfig = DEFAULT_CONFIG, words: Words = NO_WORDS
) -> tuple[list[TextLine], list[SealEvidence]]:
    """The page's text lines (read without its red ink, `page_lines`) and its seals, read
    concurrently: the lines' model calls start before the CPU-bound find, and go on while the
    seals are cut and read. Raises TooManySeals."""
    lines = asyncio.ensure_future(page_lines(rgb, models, config))
    await asyncio.sleep(0)  # the lines' first model call goes out before the find
    try:
        seals = await read_page_seals(rgb, models, config, words)
    except BaseException:
        lines.cancel()
        raise
    return await lines, seals


async def page_lines(rgb: Pixels, models: SealModels, config: SealConfig = DEFAULT_CONFIG) -> list[TextLine]:
    """The page's text lines, read with its seal ink taken out (`ink.without_ink`): red
    strokes through the names printed under seals make the reader read other characters there
    (教赢部考试中 for 教育部考试中心), and the seals' own text is not read as the page's."""
    clean = without_ink(rgb, config.parties.ink_out_saturation, config.ink, config.parties.ink_out_halo)
    return await models.read_lines(clean)


async def read_page_seals(
    rgb: Pixels, models: SealModels, config: SealConfig = DEFAULT_CONFIG, words: Words = NO_WORDS
) -> list[SealEvidence]:
    """Every seal on the page, found, cut and read, with what names are checked on. Raises
    TooManySeals."""
    balanced, regions = find_on_page(rgb, config.ink, config.find, config.fit)
    # Refused before any is cut: cutting and the check of which seals cross (every pair) grow
    # with the seals found, and a page of a hundred would hold the model for nothing.
    if len(regions) > config.max_seals:
        raise TooManySeals(
            f"{len(regions)} seals found on one page; at most {config.max_seals} are read per page "
            "(send the seals in parts)"
        )
    crops = _cut_seals(balanced, regions, config)
    return list(await asyncio.gather(*(read_crop(crop, models, config, words) for crop in crops)))


def checked_page(
    lines: Sequence[TextLine],
    seals: Sequence[SealEvidence],
    page_height: int,
    config: SealConfig = DEFAULT_CONFIG,
    words: Words = NO_WORDS,
    expected: Sequence[str] = (),
) -> PageReading:
    """The page's answer (`page_reading`) with its seals checked against the parties its lines
    name."""
    page = page_reading(seals, expected, words, config.trust)
    document = checked_document(lines, answered(seals, config.trust), page_height, config, words)
    return replace(page, document=document)


def checked_document(
    lines: Sequence[TextLine],
    seals: Sequence[SealEvidence],
    page_height: int,
    config: SealConfig = DEFAULT_CONFIG,
    words: Words = NO_WORDS,
) -> DocumentCheck:
    """The page's seals (those its answer holds, in its order) checked against the parties its
    lines name: each party's name scored on each seal as an expected name is."""
    boxes = [seal.reading.region.box for seal in seals]
    says = [_says(seal, words) for seal in seals]
    rims = [seal.rim for seal in says]
    rim_scores = [seal.rim_score for seal in says]
    normalized, params = words.normalized, config.parties
    kind, parties = page_parties(lines, boxes, page_height, normalized, params, rims, rim_scores)
    scores = name_scores([party.text for party in parties], seals, words, config.trust)
    return document_check(kind, parties, scores, says, boxes, config.trust.found_score, config.parties)


def _says(seal: SealEvidence, words: Words) -> SealSays:
    reading = seal.reading
    return SealSays(words.normalized(reading.rim_text), reading.rim_score, reading.code_texts)
