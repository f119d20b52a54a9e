"""A page in, every seal's text out: the stages in order, with the models behind one interface.

    find -> fit -> cut -> locate -> unwrap -> read -> repair -> trust

The models are called through `SealModels`, whose methods are coroutines: the seal BLS
implements it with Triton BLS requests (`async_exec`), the evaluation harness with ONNX
Runtime in-process, the unit tests with fakes. The seals of a page are read concurrently,
and so are the calls within a seal that do not wait on each other (a rim re-read by several
recognisers, the arcs and the lines), which lets Triton overlap them (on a GPU, and on several
model instances).
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Sequence
from dataclasses import replace
from typing import Protocol

from imgproc.arrays import Floats, Pixels
from imgproc.imaging import Refused

from .config import DEFAULT_CONFIG, SealConfig
from .cut import cut_seal, surroundings
from .find import find_on_page
from .fit import crossing
from .locate import locate_seal
from .read import Readers, read_around, read_seal
from .records import (
    DocumentCheck,
    Line,
    PageReading,
    Party,
    PartyLink,
    SealCrop,
    SealEvidence,
    SealRegion,
    SealStrips,
)
from .repair import repair_rim, seal_reading, wants_surroundings
from .trust import page_reading, trusted
from .trust.region import kept
from .trust.verify import verdicts
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
    return unwrap_seal(crop, await locate_seal(crop, models.seal_text, config.locate), config.unwrap)


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
    return trusted(reading, readings, words, config.trust)


async def read_page(
    rgb: Pixels,
    models: SealModels,
    config: SealConfig = DEFAULT_CONFIG,
    words: Words = NO_WORDS,
    expected: Sequence[str] = (),
    check_document: bool = False,
) -> PageReading:
    """Every seal on an RGB page with its text (none when there is none), whether each
    `expected` name is on it, and, with `check_document`, the seals checked against the parties
    the page names (its lines read concurrently with its seals). Raises TooManySeals."""
    balanced, regions = find_on_page(rgb, config.ink, config.find, config.fit)
    # Refused before any is cut: cutting and the check of which seals cross (every pair) grow
    # with the seals found, and a page of a hundred would hold the model for nothing.
    if len(regions) > config.max_seals:
        raise TooManySeals(
            f"{len(regions)} seals found on one page; at most {config.max_seals} are read per page "
            "(send the seals in parts)"
        )
    crops = _cut_seals(balanced, regions, config)
    reading = asyncio.gather(*(read_crop(crop, models, config, words) for crop in crops))
    if not check_document:
        return page_reading(await reading, expected, words, config.trust)
    seals, lines = await asyncio.gather(reading, models.read_lines(rgb))
    page = page_reading(seals, expected, words, config.trust)
    kept_seals = [seal for seal in seals if kept(seal.reading, config.trust)]
    return replace(page, document=_placeholder_check(lines, kept_seals, words, config))


# PLACEHOLDER until doccheck-core merges: the few rules below only let the serving side be built
# and tested end to end; the real party finder and matcher replace them.
_NAME_LABEL = re.compile(r"^名\s*称[:：]\s*(.*)$")
_CONTRACT_LABELS = (
    (re.compile(r"^甲\s*方[^:：]*[:：]\s*(.+)$"), "party_a"),
    (re.compile(r"^乙\s*方[^:：]*[:：]\s*(.+)$"), "party_b"),
    (re.compile(r"^丙\s*方[^:：]*[:：]\s*(.+)$"), "party_c"),
)
_ORGANISATION = re.compile(r"(公司|局|委员会|学校|大学|医院|中心|研究院|研究所|银行|事务所)$")
_KINDS = {"seller": "invoice", "party_a": "contract", "party_b": "contract", "party_c": "contract"}


def _invoice_parties(texts: Sequence[str]) -> list[Party]:
    """An invoice's 名称 lines in reading order: the buyer's band, then the seller's."""
    named = []
    for i, text in enumerate(texts):
        if match := _NAME_LABEL.match(text):
            name = match.group(1).strip() or (texts[i + 1] if i + 1 < len(texts) else "")
            if name:
                named.append(name)
    roles = ("buyer", "seller") if len(named) >= 2 else ("seller",)
    return [Party(role, name, (0, 0, 0, 0), "label") for role, name in zip(roles, named[-2:], strict=False)]


def _placeholder_parties(lines: Sequence[Line]) -> list[Party]:
    texts = [text.strip() for text, _ in lines]
    if any("发票" in text or "销售方" in text for text in texts):
        return _invoice_parties(texts)
    parties = []
    for text in texts:
        found = [(m.group(1).strip(), role) for rule, role in _CONTRACT_LABELS if (m := rule.match(text))]
        if found:
            parties.append(Party(found[0][1], found[0][0], (0, 0, 0, 0), "label"))
        elif _ORGANISATION.search(text) and len(text) <= 40:
            parties.append(Party("named", text, (0, 0, 0, 0), "layout"))
    return parties


def _placeholder_check(
    lines: Sequence[Line], seals: Sequence[SealEvidence], words: Words, config: SealConfig
) -> DocumentCheck:
    parties = _placeholder_parties(lines)
    kind = next((_KINDS[p.role] for p in parties if p.role in _KINDS), "other")
    if not parties:
        reasons = ["no party is named on the page"]
        return DocumentCheck(kind, parties, [None] * len(seals), "no_parties", reasons)
    _, matches = verdicts([p.text for p in parties], seals, words, config.trust)
    by_text = {p.text: i for i, p in reversed(list(enumerate(parties)))}
    links = [
        None if m is None else PartyLink(by_text[m.text], parties[by_text[m.text]].role, m.score)
        for m in matches
    ]
    sealed = {parties[link.index].role for link in links if link is not None}
    roles = [p.role for p in parties]
    if kind == "invoice":
        verdict = (
            "seller_sealed" if "seller" in sealed else "seller_seal_mismatch" if seals else "seller_unsealed"
        )
    elif kind == "contract":
        wanted = {r for r in roles if r in _KINDS}
        verdict = "all_sealed" if wanted <= sealed else "partly_sealed" if sealed else "unsealed"
    else:
        verdict = "sealed_by_party" if sealed else "no_party_seal"
    return DocumentCheck(kind, parties, links, verdict, [f"sealed: {', '.join(sorted(sealed)) or 'none'}"])
