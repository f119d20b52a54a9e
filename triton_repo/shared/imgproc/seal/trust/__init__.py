"""trust: a seal's answer and what the recognisers saw in (`SealReading`, `Readings`), the
answer with scores that mean what they say out.

A rim's score becomes the probability that it reads exactly, from the evidence its reading
rests on (`evidence`: how well the frames support the text, how many sources agree, whether it
reads as a name does: its ending, its words, a standard text), by a logistic model fitted on
the real tuning part (`python -m evaluation.seal.trust`). Names the caller expects are checked
against every seal's frames (`verify`): a name is found where the frames support it, even where
the reading went wrong on a faded character. `TrustParams` holds every threshold.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from ..records import PageReading, Readings, RegionSigns, SealEvidence, SealReading
from ..words import Words
from .evidence import rim_evidence, rim_score
from .lines import calibrated
from .params import DEFAULT_TRUST, TrustParams
from .region import kept, region_signs, seal_score
from .verify import name_scores, verdicts

__all__ = [
    "DEFAULT_TRUST",
    "TrustParams",
    "answered",
    "name_scores",
    "page_reading",
    "region_signs",
    "trusted",
]


def trusted(
    reading: SealReading,
    readings: Readings,
    words: Words,
    params: TrustParams = DEFAULT_TRUST,
    signs: RegionSigns | None = None,
) -> SealEvidence:
    """The seal's answer with its rim's score calibrated (round and oval seals; a rectangular
    seal's main text keeps the confidence it was read with) and its score as a seal (from what
    was read and how the region looks, `signs`), and what names are checked on."""
    if signs is not None:
        reading = replace(reading, signs=signs)
    if reading.region.is_elliptic and readings.rim is not None:
        text = words.normalized(reading.rim_text)
        evidence = rim_evidence(text, reading.rim_score, readings.sources, readings.group, words, params)
        reading = replace(reading, rim_score=rim_score(evidence, params), evidence=evidence)
    return SealEvidence(replace(reading, score=seal_score(reading, params)), readings.sources)


def answered(seals: Sequence[SealEvidence], params: TrustParams = DEFAULT_TRUST) -> list[SealEvidence]:
    """The seals a page's answer holds, their lines' scores calibrated (`lines.calibrated`): a
    region where nothing was read and that scores low as a seal is left out."""
    return [
        SealEvidence(calibrated(seal.reading, params), seal.sources)
        for seal in seals
        if kept(seal.reading, params)
    ]


def page_reading(
    seals: Sequence[SealEvidence], expected: Sequence[str], words: Words, params: TrustParams = DEFAULT_TRUST
) -> PageReading:
    """Every seal's answer (a region where nothing was read and that scores low as a seal is
    left out), each with its best expected name, and each name's verdict."""
    seals = answered(seals, params)
    if not expected:
        return PageReading([seal.reading for seal in seals])
    found, matches = verdicts(expected, seals, words, params)
    answers = [replace(seal.reading, match=match) for seal, match in zip(seals, matches, strict=True)]
    return PageReading(answers, found)
