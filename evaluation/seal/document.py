"""EVALUATION HARNESS: the seal checked against the document it stamps (issue 49), on the real
seal corpus, with the seal model's own functions in-process (`inprocess`).

    .venv/bin/python -m evaluation.seal.document --cache .cache/document     # the tuning part
    .venv/bin/python -m evaluation.seal.document --part tuning --part heldout \
        --cache .cache/document --write docs/seal/document-check.md

Each page of a corpus part whose labels print a seal's owner (`Owner`: the name, its role and
where it is printed) is read with `check_document`, and so is each negative made from its
invoices: a seller's seal lifted from one invoice and stamped onto another seller's (`stamps`).
The figures, each with its 95% interval:

- owned seals linked to their owner's party, over every owned seal and over those the reader
  found (a seal not found cannot be linked);
- found seals linked to a party that is not their owner's (another party, one the page does
  not print as the owner, or a seal whose owner the page does not print);
- invoices: the seller's verdict right (seller_sealed where the seller's seal is there);
- negatives: the verdict says the seal is not the seller's (seller_seal_mismatch).

Reading a page (its lines and seals) takes seconds; checking them against its parties, a few
milliseconds. `--cache` keeps what was read, keyed by the page and the reader's configuration
but the parties' (`cache_key`), so the party rules can be tuned without reading a page again;
clear it when a model changes. Tune on the tuning part; the held-out part is for the report.
"""

from __future__ import annotations

import argparse
import hashlib
import time
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from imgproc.seal.config import SealConfig
from imgproc.seal.pipeline import checked_page
from imgproc.seal.records import Box, PageReading, Party
from imgproc.seal.trust.params import NAME_FIELDS
from imgproc.seal.words import Words

from evaluation.seal.corpus import CorpusMissing, corpus_pages
from evaluation.seal.dataset import HELDOUT, TUNING, Owner, TruthPage
from evaluation.seal.inprocess import InProcessSeal, PageRead, read_lines_and_seals_of
from evaluation.seal.readcache import held, keep
from evaluation.seal.scoring import matched_pairs, wilson_interval
from evaluation.seal.stamps import seller_swaps

# A party is the owner where the names are one within the other, or where its line and the
# owner's printed name share at least this share of either's box: a line read from the owner's
# place on the page (where the page's reader broke the owner's name into pieces, a piece of it).
OWNER_COVER = 0.5
SELLER_SEALED, MISMATCH = "seller_sealed", "seller_seal_mismatch"


def _say(line: str) -> None:
    print(line)  # noqa: T201 - this is a command-line report


def _shared(a: Box, b: Box) -> float:
    """The share of the smaller of two boxes that they share."""
    width = min(a[2], b[2]) - max(a[0], b[0])
    height = min(a[3], b[3]) - max(a[1], b[1])
    smaller = min((a[2] - a[0]) * (a[3] - a[1]), (b[2] - b[0]) * (b[3] - b[1]))
    return max(width, 0) * max(height, 0) / max(smaller, 1)


def is_owner(party: Party, owner: Owner, words: Words) -> bool:
    """Whether a party found on the page is the seal's owner as labelled: its name is the
    owner's, or one of the two holds the other (桂林理工大学 and the owner 桂林理工大学研究生院;
    中国教育机器人大赛 and its 组委会), or its line lies on the owner's printed name."""
    name, printed = _bare(party.text), _bare(words.normalized(owner.text))
    return name in printed or printed in name or _shared(owner.box, party.box) >= OWNER_COVER


def _bare(text: str) -> str:
    """A name's characters, letters and digits only (no brackets, quotes or marks)."""
    return "".join(char for char in text if char.isalnum())


@dataclass
class Tally:
    """The counts the figures are made of."""

    owned: int = 0  # true seals whose owner the page prints
    owned_found: int = 0  # ...that the reader found
    linked_right: int = 0  # ...linked to their owner
    found: int = 0  # seals the reader answered
    linked: int = 0  # ...linked to a party
    linked_wrong: int = 0  # ...to a party not their owner's
    invoices: int = 0  # invoice pages with the seller's seal
    invoices_right: int = 0  # ...with the verdict seller_sealed
    negatives: int = 0  # invoices stamped with another seller's seal
    negatives_found: int = 0  # ...where the reader found a seal (the stamped one, by its place)
    negatives_right: int = 0  # ...with the verdict seller_seal_mismatch
    verdicts: Counter[str] = field(default_factory=Counter)
    misses: list[str] = field(default_factory=list)


def tally_page(tally: Tally, page: TruthPage, reading: PageReading, words: Words) -> None:
    """Counts one page's answer against its labels."""
    document = reading.document
    assert document is not None  # read with check_document
    found = [seal.region.box for seal in reading.seals]
    pairs = dict(matched_pairs([seal.box for seal in page.seals], found))
    owner_of = {j: page.seals[i].owner for i, j in pairs.items()}
    tally.found += len(found)
    tally.verdicts[f"{document.kind}: {document.verdict}"] += 1
    for j, link in enumerate(document.links):
        if link is None:
            continue
        tally.linked += 1
        owner = owner_of.get(j)
        if owner is None or not is_owner(document.parties[link.index], owner, words):
            tally.linked_wrong += 1
            tally.misses.append(
                f"{page.name}: seal {j} linked to {document.parties[link.index].text}, owner {owner}"
            )
    for i, seal in enumerate(page.seals):
        if seal.owner is None:
            continue
        tally.owned += 1
        if i not in pairs:
            tally.misses.append(f"{page.name}: {seal.owner.text}'s seal not found")
            continue
        tally.owned_found += 1
        link = document.links[pairs[i]]
        if link is not None and is_owner(document.parties[link.index], seal.owner, words):
            tally.linked_right += 1
        else:
            read = reading.seals[pairs[i]].rim_text
            names = [party.text for party in document.parties]
            tally.misses.append(
                f"{page.name}: {seal.owner.text}'s seal (read {read!r}) not linked; parties {names}"
            )
    if page.kind == "invoice" and any(s.owner is not None and s.owner.role == "seller" for s in page.seals):
        tally.invoices += 1
        tally.invoices_right += document.verdict == SELLER_SEALED
        if document.verdict != SELLER_SEALED:
            tally.misses.append(f"{page.name}: invoice verdict {document.verdict}: {document.reasons}")


def tally_negative(tally: Tally, page: TruthPage, reading: PageReading) -> None:
    """Counts one negative's verdict: it must say the seal is not the seller's."""
    document = reading.document
    assert document is not None  # read with check_document
    tally.negatives += 1
    stamp = page.seals[0].box if page.seals else None
    found = stamp is not None and bool(matched_pairs([stamp], [seal.region.box for seal in reading.seals]))
    tally.negatives_found += found
    tally.negatives_right += document.verdict == MISMATCH
    if document.verdict != MISMATCH:
        tally.misses.append(f"{page.name}: negative's verdict {document.verdict}: {document.reasons}")


def owned_pages(part: str) -> list[TruthPage]:
    """The pages of a corpus part with a seal whose owner is printed on them."""
    return [page for page in corpus_pages(frozenset({part})) if any(s.owner for s in page.seals)]


def cache_keys(image: bytes, config: SealConfig) -> tuple[str, str]:
    """A page's names in the cache: its seals' (its bytes and the reader's configuration but
    the parties' and the name scores' (`NAME_FIELDS`): tuning the party rules or refitting
    the name threshold reads no page again) and its lines' (its bytes and what seal ink is
    taken out before they are read)."""
    trust = {name: value for name, value in vars(config.trust).items() if name not in NAME_FIELDS}
    reader = [
        trust if part.name == "trust" else getattr(config, part.name)
        for part in fields(config)
        if part.name != "parties"
    ]
    seals = hashlib.sha256(image + repr(reader).encode()).hexdigest()[:32]
    ink = (config.ink, config.parties.ink_out_saturation, config.parties.ink_out_halo)
    lines = hashlib.sha256(image + f"lines without grey {ink!r}".encode()).hexdigest()[:32]
    return seals, lines


def _from_cache(cache: Path, image: bytes, config: SealConfig) -> tuple[Any, Any]:
    """A page's (seals and height) and lines as kept in the cache, each None where it is not."""
    seals_key, lines_key = cache_keys(image, config)
    return held(cache / f"{seals_key}.seals.pkl"), held(cache / f"{lines_key}.lines.pkl")


def page_reads(
    reader: InProcessSeal, pages: Sequence[TruthPage], jobs: int, cache: Path | None
) -> Iterator[tuple[int, PageRead]]:
    """Each page's index and its lines and seals, one at a time (a page's seals keep their
    recognisers' frames: all of a part's at once would not fit in memory): with a `cache`,
    taken from it where they were read there before (lines and seals apart) and kept there;
    the rest read (over `jobs` processes)."""
    missing = []
    for i, page in enumerate(pages):
        if cache is None:
            missing.append(i)
            continue
        cache.mkdir(parents=True, exist_ok=True)
        seals, lines = _from_cache(cache, page.image, reader.config)
        if seals is None and lines is None:
            missing.append(i)
            continue
        read = PageRead(
            lines if lines is not None else reader.lines_only(page.image),
            *(seals or reader.seals_only(page.image)),
        )
        if seals is None or lines is None:
            _keep(cache, page.image, reader.config, read)
        yield i, read
    images = (pages[i].image for i in missing)
    for i, read in zip(missing, read_lines_and_seals_of(reader, images, jobs, reader.threads), strict=True):
        _keep(cache, pages[i].image, reader.config, read)
        yield i, read


def _keep(cache: Path | None, image: bytes, config: SealConfig, read: PageRead) -> None:
    if cache is not None:
        seals_key, lines_key = cache_keys(image, config)
        keep(cache / f"{seals_key}.seals.pkl", (read.seals, read.height))
        keep(cache / f"{lines_key}.lines.pkl", read.lines)


def measure(reader: InProcessSeal, pages: Sequence[TruthPage], jobs: int, cache: Path | None = None) -> Tally:
    """Every page read with its seals checked against its parties, then every negative."""
    tally = Tally()
    negatives = list(seller_swaps(pages))
    chosen = [*pages, *negatives]
    for n, read in page_reads(reader, chosen, jobs, cache):
        reading = checked_page(read.lines, read.seals, read.height, reader.config, reader.words)
        if n < len(pages):
            tally_page(tally, chosen[n], reading, reader.words)
        else:
            tally_negative(tally, chosen[n], reading)
    return tally


def _rate(hits: int, total: int) -> str:
    low, high = wilson_interval(hits, total)
    share = hits / total if total else 0.0
    return f"{hits}/{total} = {share:.3f} [{low:.3f}, {high:.3f}]"


def figures(title: str, tally: Tally, seconds: float) -> list[str]:
    """The figures of one part as markdown rows (`--write` puts them in the document page)."""
    rows = [
        ("owned seals linked to their owner, of all owned seals", tally.linked_right, tally.owned, ""),
        (
            "owned seals linked to their owner, of those found",
            tally.linked_right,
            tally.owned_found,
            ">= 0.90",
        ),
        ("found seals linked to a party not their owner's", tally.linked_wrong, tally.found, "<= 0.01"),
        ("invoices: the seller's verdict right", tally.invoices_right, tally.invoices, ">= 0.95"),
        (
            "negatives (another seller's seal): the verdict says so",
            tally.negatives_right,
            tally.negatives,
            "",
        ),
        ("...of those whose stamped seal was found", tally.negatives_right, tally.negatives_found, ""),
    ]
    verdicts = ", ".join(f"{verdict} {count}" for verdict, count in sorted(tally.verdicts.items()))
    return [
        f"### {title} ({seconds:.0f} s)",
        "",
        "| figure | count and share [95% interval] | target |",
        "|---|---|---|",
        *(f"| {name} | {_rate(hits, total)} | {target} |" for name, hits, total, target in rows),
        "",
        f"Verdicts: {verdicts}",
        "",
    ]


MARK = "<!-- figures: python -m evaluation.seal.document -->"


def write(path: Path, sections: Iterable[str]) -> None:
    """Puts the figures into the page under its mark, replacing what was there."""
    text = path.read_text(encoding="utf-8")
    head = text.split(MARK, 1)[0]
    path.write_text(f"{head}{MARK}\n\n" + "\n".join(sections), encoding="utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--part", action="append", choices=(TUNING, HELDOUT), help="the corpus parts (default: tuning)"
    )
    parser.add_argument(
        "--cache", type=Path, help="keep each page's lines and seals here, and take them from here"
    )
    parser.add_argument("--jobs", type=int, default=1, help="worker processes")
    parser.add_argument("-v", "--verbose", action="store_true", help="every miss")
    parser.add_argument("--write", type=Path, help="put the figures into this page, under its mark")
    args = parser.parse_args()
    reader = InProcessSeal()
    sections = []
    for part in args.part or [TUNING]:
        try:
            pages = owned_pages(part)
        except CorpusMissing as missing:
            _say(f"the real seal corpus is missing: {missing}")
            return
        started = time.perf_counter()
        tally = measure(reader, pages, args.jobs, args.cache)
        rows = figures(f"The corpus's {part} part: {len(pages)} pages", tally, time.perf_counter() - started)
        sections += rows
        for line in rows:
            _say(line)
        for miss in tally.misses if args.verbose else ():
            _say(f"  {miss}")
    if args.write:
        write(args.write, sections)


if __name__ == "__main__":
    main()
