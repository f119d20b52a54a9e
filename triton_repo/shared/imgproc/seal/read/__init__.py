"""read: what to read of a seal in (`SealStrips`), what the recognisers read out (`Readings`).

Everything that calls the recognisers is here; what it decides is pure and lives in the
modules: the rim is read by the first recogniser, and by the others too where its best
reading is unsure; the best prior-weighted reading of any candidate wins, with the other
readings of its arc as alternatives (`choose`); characters it skipped, between characters
and a pitch past either end, are read again from windows of the strip and put in (`windows`);
a code is read again stretched for repeated digits CTC merged (`repeats`). The other arcs'
best candidates, the inner lines and the lines found in interiors are read as they are.
`ReadParams` holds every threshold; `Readers` is what the recognisers offer.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from imgproc.arrays import Pixels
from imgproc.text import Decoded
from imgproc.text.lines import TextLine

from ..codes import is_code
from ..records import Line, Readings, RimSource, SealStrips, Strip
from .choose import best_in_pool, best_index, best_orientation, with_other_readings
from .params import DEFAULT_READ, ReadParams, Recognisers
from .repeats import restored_repeats, stretched_image
from .windows import anchored_windows, dropped_windows, end_windows, filled, step_px

__all__ = [
    "DEFAULT_READ",
    "ReadParams",
    "Readers",
    "Recognisers",
    "read_around",
    "read_strip_lines",
    "read_rim",
    "read_seal",
]


class Readers(Protocol):
    """The recognisers, as read calls them; each method may raise, and its error passes through."""

    async def recognise(
        self, model: str, images: Sequence[Pixels], alternatives: int, frames: int = 0
    ) -> list[Decoded]:
        """Each line image read by the recogniser `model`, with `alternatives` per character and,
        when `frames` is set, that many likeliest characters of every frame (`Decoded.frames`)."""

    async def read_lines(self, image: Pixels) -> list[TextLine]:
        """The text lines of an image, found by the general text detector and read, with their
        boxes in the image's pixels."""


async def _all_readings(
    rim: tuple[Strip, ...], models: Readers, params: ReadParams
) -> dict[str, list[Decoded]]:
    """The candidates read by the first recogniser, and by the others too where its best
    reading is unsure (`best_in_pool`); each recogniser reads them all as one batch."""
    first, others = params.recognisers.first, params.recognisers.others
    images = [strip.image for strip in rim]
    readings = {first: await models.recognise(first, images, params.alternatives, params.frames)}
    priors, groups = [strip.prior for strip in rim], [strip.group for strip in rim]
    _, sureness = best_in_pool(readings[first], priors, groups, params)
    if sureness < params.sure and others:
        more = await asyncio.gather(
            *(models.recognise(name, images, params.alternatives, params.frames) for name in others)
        )
        readings.update(zip(others, more, strict=True))
    return readings


def _sources(rim: tuple[Strip, ...], readings: dict[str, list[Decoded]]) -> tuple[RimSource, ...]:
    """Every reading of a rim candidate that kept its frames, with the candidate's group and prior."""
    return tuple(
        RimSource(line.frames, strip.group, strip.prior, model)
        for model, lines in readings.items()
        for strip, line in zip(rim, lines, strict=True)
        if line.frames is not None
    )


@dataclass(frozen=True)
class RimRead:
    """The rim's reading (`read_rim`), every candidate's reading's frames, the reading's group."""

    line: Decoded | None
    sources: tuple[RimSource, ...] = ()
    group: int = 0


async def read_rim(rim: tuple[Strip, ...], models: Readers, params: ReadParams = DEFAULT_READ) -> RimRead:
    """The rim's reading: the best prior-weighted reading of any candidate by any recogniser
    that read it (`best_in_pool`), with the other readings of its group as alternatives,
    skipped characters filled in (between characters, and a pitch past either end); no line
    for a seal without rim candidates."""
    if not rim:
        return RimRead(None)
    images, priors = [strip.image for strip in rim], [strip.prior for strip in rim]
    readings = await _all_readings(rim, models, params)
    pool = [(i, line) for lines in readings.values() for i, line in enumerate(lines)]
    lines = [line for _, line in pool]
    chosen, _ = best_in_pool(lines, [priors[i] for i, _ in pool], [rim[i].group for i, _ in pool], params)
    index, best = pool[chosen]
    group = rim[index].group
    best = with_other_readings(best, [line for i, line in pool if rim[i].group == group and line is not best])
    px = step_px(images[index], images)
    windows = dropped_windows(best, images[index], px, params)
    ink = [strip.image for strip in rim if strip.group == group and strip.from_ink]
    windows += end_windows(best, ink[0], px, params) if ink else []
    reaching, offset = rim[index].past_ends()
    windows += anchored_windows(best, reaching, px, params, offset)
    if windows:
        reads = await models.recognise(
            params.recognisers.first, [w.image for w in windows], params.alternatives
        )
        best = filled(best, windows, reads)
    return RimRead(best, _sources(rim, readings), group)


async def _with_repeats(
    read: list[Decoded], images: list[Pixels], models: Readers, params: ReadParams
) -> list[Decoded]:
    """The readings, each code read again stretched along the line, taken where that only
    restores repeated characters CTC merged (`restored_repeats`)."""
    codes = [i for i, line in enumerate(read) if is_code((line.text, line.score), params.code_min_score)]
    if not codes:
        return read
    wide = [stretched_image(images[i], params.code_stretch) for i in codes]
    again = await models.recognise(params.recognisers.first, wide, params.alternatives)
    read = list(read)
    for i, line in zip(codes, again, strict=True):
        read[i] = restored_repeats(read[i], line)
    return read


async def _nothing() -> list[Decoded]:
    return []


async def read_strip_lines(
    strips: SealStrips, models: Readers, params: ReadParams = DEFAULT_READ
) -> tuple[list[Decoded], list[Line]]:
    """The seal's other text: its arcs (the best candidate of each) and inner lines as read,
    and the lines found in its interiors (a rect seal's, in the orientation that reads best)."""
    candidates = [strip.image for arc in strips.arcs for strip in arc]
    images = candidates + list(strips.lines)
    found = models.recognise(params.recognisers.first, images, params.alternatives) if images else _nothing()
    found_lines = asyncio.gather(*(_lines(image, models) for image in strips.interiors))
    first, interiors = await asyncio.gather(found, found_lines)
    read = await _with_repeats(first, images, models, params)
    lines: list[Decoded] = []
    start = 0
    for arc in strips.arcs:
        lines.append(read[start + best_index(read[start : start + len(arc)], [s.prior for s in arc])])
        start += len(arc)
    lines += read[len(candidates) :]
    if not interiors:
        return lines, []
    if not strips.rim:  # a rect seal's inside, both ways up
        return lines, best_orientation(interiors, params.orientation_margin)
    return lines, [line for lines_found in interiors for line in lines_found]


async def read_seal(strips: SealStrips, models: Readers, params: ReadParams = DEFAULT_READ) -> Readings:
    """Everything the recognisers read of one seal."""
    rim, (lines, found) = await asyncio.gather(
        read_rim(strips.rim, models, params), read_strip_lines(strips, models, params)
    )
    return Readings(rim.line, tuple(lines), tuple(found), rim.sources, rim.group)


async def read_around(views: Sequence[Pixels], models: Readers) -> list[Line]:
    """The lines of a seal's views (`cut.surroundings`: the crop and the page beside it): where
    a seal's rim went unread, the invoice title printed across a supervision seal runs on past
    it."""
    found = await asyncio.gather(*(_lines(view, models) for view in views))
    return [line for lines in found for line in lines]


async def _lines(image: Pixels, models: Readers) -> list[Line]:
    """The text lines of an image, each as its text and confidence (a seal's lines have no use
    for where they lie in the crop)."""
    return [(line.text, line.score) for line in await models.read_lines(image)]
