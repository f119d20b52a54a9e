"""The seal truth the tests, the benchmarks and the evaluation harness all score against.

Two sources, one shape (`TruthPage` with `TruthSeal`s):

- `seals_dev_pages`: the real images of `../shared/datasets/seals-dev` (read there, never
  copied in), with the manifest's texts and this project's own annotations
  (`seals_dev.json`: a box per seal, red stamps the manifest does not list, marks to ignore,
  and the split into a tuning part and a held-out part fixed before tuning began).
- `generated_pages`: pages from the seal generator, for volume and for the unit tests.

A seal's inner texts and codes come from the manifest's `inner_text` (lines separated by
spaces) and `other_text`: a token that looks like a code (`CODE_PATTERN`: tax IDs, the
13-digit seal code) is a code, anything else an inner line.

`without_seals` turns a real page into a real page without a seal (its seals painted over
with its own paper colour): what remains is the page's red print, red headers, table lines
and handwriting, on which a seal finder must find nothing.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from imgproc.imaging import decode_rgb

from evaluation.seal.generator import Page, SealTruth, generate_page

Box = tuple[int, int, int, int]

# ../shared/datasets/seals-dev beside the project (read there, never copied in).
SEALS_DEV = Path(__file__).resolve().parents[3] / "shared" / "datasets" / "seals-dev"
ANNOTATIONS = Path(__file__).with_name("seals_dev.json")
SYNTHETIC_DEV = frozenset({"seal_010.png"})  # a synthetic demo image
RENDERED_DEV = frozenset({"seal_012.jpg", "seal_013.jpeg", "seal_014.jpeg"})  # digital renders
CODE_PATTERN = re.compile(r"[0-9A-Z]{8,}")
TUNING, HELDOUT = "tuning", "heldout"
GENERATED = "generated"
CORPUS = "corpus"  # the group of the real seal corpus's pages (evaluation.seal.corpus)
REAL_GROUPS = frozenset({"real", CORPUS})  # real pages: seals-dev's and the corpus's
# Real pages without a seal are made from seals-dev pages whose seals cover less than this
# share of the image: every seal box, grown by BLANK_GROWTH of its size, is painted paper.
MAX_BLANKED_SHARE = 0.3
BLANK_GROWTH = 0.08


@dataclass(frozen=True)
class Owner:
    """Whose a seal is, where its page prints it (the corpus's labels): the name as printed,
    its role on the page (seller, party_a, issuer...) and its box (upright page pixels)."""

    text: str
    role: str
    box: Box


@dataclass(frozen=True)
class TruthSeal:
    """One seal as it should be read. `rim_text` is None where nobody could read it; `owner`,
    where the page prints whose it is (known for the corpus only)."""

    box: Box
    shape: str
    rim_text: str | None
    inner_texts: tuple[str, ...] = ()
    codes: tuple[str, ...] = ()
    cut: bool = False  # part of it lies off the image
    over_print: bool = False  # it lies over printed text or lines (known for the corpus only)
    owner: Owner | None = None


@dataclass(frozen=True)
class TruthPage:
    """An image and every seal on it. `ignore` boxes count neither as found nor as false."""

    name: str
    group: str  # "real", "synthetic", "rendered" or "generated"
    split: str  # TUNING, HELDOUT, or GENERATED
    image: bytes
    seals: tuple[TruthSeal, ...]
    ignore: tuple[Box, ...] = ()
    kind: str = ""  # the document's kind (certificate, invoice...), known for the corpus only
    capture: str = ""  # scan, photo, photocopy, render..., known for the corpus only


def dev_group(file: str) -> str:
    """Which part of seals-dev an image belongs to: real, synthetic or rendered."""
    return "synthetic" if file in SYNTHETIC_DEV else "rendered" if file in RENDERED_DEV else "real"


def box_iou(a: Box, b: Box) -> float:
    """Intersection over union of two (x0, y0, x1, y1) boxes."""
    ix = max(0, min(a[2], b[2]) - max(a[0], b[0]))
    iy = max(0, min(a[3], b[3]) - max(a[1], b[1]))
    union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - ix * iy
    return ix * iy / union if union else 0.0


def split_lines(inner: str | None, other: list[str] | None = None) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(inner lines, codes) of a manifest seal's `inner_text` and `other_text`."""
    tokens = [*(inner or "").split(), *(other or [])]
    codes = tuple(t for t in tokens if CODE_PATTERN.fullmatch(t))
    return tuple(t for t in tokens if not CODE_PATTERN.fullmatch(t)), codes


@cache
def _annotations() -> dict[str, Any]:
    """This project's annotations of seals-dev (see the file's "about")."""
    loaded: dict[str, Any] = json.loads(ANNOTATIONS.read_text(encoding="utf-8"))
    return loaded


def split_of(file: str) -> str | None:
    """TUNING or HELDOUT for a real seals-dev image, None for the synthetic and rendered ones."""
    split = _annotations()["split"]
    return TUNING if file in split[TUNING] else HELDOUT if file in split[HELDOUT] else None


def as_box(values: list[int]) -> Box:
    """A box from a JSON list of four numbers."""
    x0, y0, x1, y1 = (int(v) for v in values)
    return x0, y0, x1, y1


def _truth_seals(item: dict[str, Any], page: dict[str, Any]) -> tuple[TruthSeal, ...]:
    seals = []
    for index, box in enumerate(page["seals"]):
        if box is None:
            continue
        labelled = item["seals"][index]
        other = item.get("other_text") if index == 0 else None
        inner, codes = split_lines(labelled.get("inner_text"), other)
        seals.append(TruthSeal(as_box(box), labelled["shape"], labelled.get("rim_text"), inner, codes))
    extra = [TruthSeal(as_box(box), "unknown", None) for box in page.get("unlabelled", [])]
    return (*seals, *extra)


def seals_dev_pages(splits: frozenset[str] | None = None) -> Iterator[TruthPage]:
    """The seals-dev images (all, or those of the named splits) with their truth."""
    manifest = json.loads((SEALS_DEV / "manifest.json").read_text(encoding="utf-8"))
    pages = _annotations()["pages"]
    for item in manifest:
        file = item["file"]
        split = split_of(file) or dev_group(file)
        if splits is not None and split not in splits:
            continue
        page = pages[file]
        yield TruthPage(
            name=file,
            group=dev_group(file),
            split=split,
            image=(SEALS_DEV / file).read_bytes(),
            seals=_truth_seals(item, page),
            ignore=tuple(as_box(box) for box in page.get("ignore", [])),
        )


def _from_generated(truth: SealTruth) -> TruthSeal:
    # A rim with characters off the image has no whole text to read: it is scored for being
    # found, not for its text (as a real seal nobody could read).
    rim = truth.rim_text if truth.rim_whole else None
    return TruthSeal(truth.box, truth.shape, rim, truth.inner_texts, truth.codes, truth.cut)


def generated_page(page: Page, name: str) -> TruthPage:
    """A generated page in the common shape."""
    seals = tuple(_from_generated(truth) for truth in page.seals)
    return TruthPage(name, GENERATED, GENERATED, page.image_bytes, seals)


def generated_pages(
    seed: int, seal_pages: int, empty_pages: int, style: str | None = None
) -> Iterator[TruthPage]:
    """`seal_pages` generated pages of 1-3 seals, then `empty_pages` without any, of one page
    style or (None) of the generator's mix."""
    rng = np.random.default_rng(seed)
    for index in range(seal_pages + empty_pages):
        n_seals = int(rng.integers(1, 4)) if index < seal_pages else 0
        yield generated_page(generate_page(rng, n_seals, style=style), f"seed{seed}-page{index}")


def _grown(box: Box, width: int, height: int) -> Box:
    x0, y0, x1, y1 = box
    dx, dy = round(BLANK_GROWTH * (x1 - x0)), round(BLANK_GROWTH * (y1 - y0))
    return max(0, x0 - dx), max(0, y0 - dy), min(width, x1 + dx), min(height, y1 + dy)


BLANKED = " without seals"  # the name of a page with its seals painted out ends so (`without_seals`)


def with_blanked(pages: Iterable[TruthPage]) -> Iterator[TruthPage]:
    """Each page, then, for a real one, the same page without its seals when that leaves a page."""
    for page in pages:
        yield page
        if page.group in REAL_GROUPS and (blank := without_seals(page)) is not None:
            yield blank


def without_seals(page: TruthPage) -> TruthPage | None:
    """The page with every seal and ignored mark painted over in its paper colour (PNG), or
    None when they cover too much of it to leave a page."""
    rgb = decode_rgb(page.image).copy()
    height, width = rgb.shape[:2]
    boxes = [_grown(box, width, height) for box in (*(s.box for s in page.seals), *page.ignore)]
    covered = sum((x1 - x0) * (y1 - y0) for x0, y0, x1, y1 in boxes)
    if covered > MAX_BLANKED_SHARE * width * height:
        return None
    paper = np.median(rgb.reshape(-1, 3), axis=0).astype(np.uint8)
    for x0, y0, x1, y1 in boxes:
        rgb[y0:y1, x0:x1] = paper
    encoded = cv2.imencode(".png", cv2.cvtColor(rgb, cv2.COLOR_RGB2BGR))[1].tobytes()
    return TruthPage(
        f"{page.name}{BLANKED}",
        page.group,
        page.split,
        encoded,
        (),
        kind=page.kind,
        capture=page.capture,
    )
