"""What the trust models are fitted and checked on: each page read once, its found seals as
rim cases (a round or oval seal with a known rim: read exactly or not), as region cases
(every found region: a real seal or not) and as code cases (every code answered on a found
seal whose inside is labelled: exact where it is one of the seal's true codes).

A case's group is what it is left out with in cross-validation: a corpus page's repository (its
documents share seals, hands and scanners), else the seal's own rim (seals-dev's perturbed
copies of one seal), or the page's name for a region on a seals-dev page; a code's, the
seal's rim (or its codes where its rim is not labelled).
"""

from __future__ import annotations

import asyncio
import pickle
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from imgproc.imaging import decode_rgb
from imgproc.seal.pipeline import find_page_seals, read_crop
from imgproc.seal.records import SealEvidence

from evaluation.seal.corpus import repository_of
from evaluation.seal.dataset import CORPUS, TruthPage, TruthSeal, box_iou
from evaluation.seal.scoring import ELLIPTIC, MATCH_IOU
from evaluation.text import normalize

T = TypeVar("T")

if TYPE_CHECKING:  # the reader's type only: the unit tests of cases run without ONNX Runtime
    from evaluation.seal.inprocess import InProcessSeal


@dataclass(frozen=True)
class Case:
    """One found seal with a known rim: its trusted answer and sources, its truth, exactness,
    and its group."""

    seal: SealEvidence
    truth: str
    exact: bool
    group: str


@dataclass(frozen=True)
class Region:
    """One found region: its trusted answer, whether it is a real seal (overlaps a labelled one
    or a mark to ignore), its group, and its page's name."""

    seal: SealEvidence
    real: bool
    group: str
    page: str


@dataclass(frozen=True)
class CodeCase:
    """One code answered on a found seal whose inside is labelled: the code, the confidence it
    was read with (before calibration), whether it is one of the seal's true codes, its group."""

    code: str
    confidence: float
    exact: bool
    group: str


@dataclass
class Cases:
    """Rim, region and code cases of some pages."""

    rims: list[Case] = field(default_factory=list)
    regions: list[Region] = field(default_factory=list)
    empty_pages: list[str] = field(default_factory=list)  # pages without any labelled seal
    codes: list[CodeCase] = field(default_factory=list)

    def __iadd__(self, other: Cases) -> Cases:
        self.rims += other.rims
        self.regions += other.regions
        self.empty_pages += other.empty_pages
        self.codes += other.codes
        return self


def _group(page: TruthPage, fallback: str) -> str:
    return repository_of(page.name) if page.group == CORPUS else fallback


def code_cases(truth: TruthSeal, found: SealEvidence, group: str) -> list[CodeCase]:
    """The codes answered on `found`, the seal matched to `truth`, where its inside is known (a
    code there that is none of its true codes is not exact: a date read as a code counts too)."""
    if not (truth.codes or truth.inner_texts):
        return []
    true = {normalize(code) for code in truth.codes}
    return [CodeCase(code, score, normalize(code) in true, group) for code, score in found.reading.codes]


def _page_cases(page: TruthPage, seals: list[SealEvidence], reader: InProcessSeal) -> Cases:
    cases = Cases(empty_pages=[] if page.seals else [page.name])
    marks = [truth.box for truth in page.seals] + list(page.ignore)
    for seal in seals:
        real = any(box_iou(seal.reading.region.box, box) >= MATCH_IOU for box in marks)
        cases.regions.append(Region(seal, real, _group(page, page.name), page.name))
    normalized = reader.words.normalized
    for truth in page.seals:
        found = [s for s in seals if box_iou(s.reading.region.box, truth.box) >= MATCH_IOU]
        if found:
            cases.codes += code_cases(truth, found[0], _group(page, truth.rim_text or "/".join(truth.codes)))
        if truth.shape not in ELLIPTIC or truth.rim_text is None:
            continue
        if found:
            exact = normalized(found[0].reading.rim_text) == normalized(truth.rim_text)
            cases.rims.append(Case(found[0], truth.rim_text, exact, _group(page, truth.rim_text)))
    return cases


def read_cases(pages: Iterable[TruthPage], reader: InProcessSeal) -> Cases:
    """Every page read as the seal model reads it (before regions are left out), as cases."""
    cases = Cases()
    for page in pages:
        crops = find_page_seals(decode_rgb(page.image), reader.config)
        seals = [asyncio.run(read_crop(crop, reader.models, reader.config, reader.words)) for crop in crops]
        cases += _page_cases(page, seals, reader)
    return cases


def cached(read: Callable[[], T], cache: Path | None) -> T:
    """What `read` gives, read once and kept in `cache` where one is given: the fits and reports
    can then be tried again without reading every page (delete it after a reading change)."""
    if cache is not None and cache.exists():
        print(f"cases from {cache}")  # noqa: T201 - said on the command line
        kept: T = pickle.loads(cache.read_bytes())
        return kept
    cases = read()
    if cache is not None:
        cache.write_bytes(pickle.dumps(cases))
    return cases
