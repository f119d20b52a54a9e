"""The real seal corpus: a committed manifest, a git-ignored image cache, and a fixed split.

`corpus.json` beside this file lists real stamped documents from public repositories: where
each image is (repository, commit, path, blob, sha256, licence where stated), what it is
(document kind, capture) and every seal on it (box, shape, rim text or null where nobody could
read it with certainty, inner lines, codes, over print, where the label comes from and how
sure, and the seal's owner where the page prints it). The images are never committed: they
hold people's names and numbers. `python -m evaluation.seal.corpus fetch` assembles them into
`.cache/seal-corpus/` from local mirrors of the repositories (`--mirrors`, what the search
tool's fetch leaves) or, for a user with a network, by cloning each repository (`--clone`),
and checks every sha256.

The split is by repository and was drawn at random (`split.seed`) from the repositories' seal
counts alone, before any reading of the corpus was looked at; a repository added later falls
on the side its seeded hash says (`side_of`), so no earlier assignment ever moves. Nothing is
tuned on the held-out part.

Boxes in the manifest are in the pixels of the image as stored; `corpus_pages` turns them
upright with the image's EXIF orientation, as the service decodes it.
"""

from __future__ import annotations

import functools
import hashlib
import json
import random
import subprocess
import tempfile
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from imgproc.imaging import DEFAULT_MAX_PIXELS
from PIL import Image

from evaluation.seal.dataset import (
    CORPUS,
    HELDOUT,
    TUNING,
    Box,
    Owner,
    TruthPage,
    TruthSeal,
    as_box,
    split_lines,
)

MANIFEST = Path(__file__).with_name("corpus.json")
CACHE = Path(".cache/seal-corpus")
# Where the search tool's fetch leaves mirrors: <mirrors>/<owner>+<name>/repo (a git dir, bare
# or not).
MIRRORS = Path(__file__).resolve().parents[4] / ".mirror"
REMOTE = "https://github.com/{repo}.git"
# A repository added after the split falls held out when its seeded hash is under this share.
HELDOUT_SHARE = 0.45
# The share of labelled seals the drawn split holds out at least (issue 46: 40%).
MIN_HELDOUT = 0.40
# EXIF orientations that swap width and height, and how each maps a stored point upright.
TRANSPOSED = frozenset({5, 6, 7, 8})


class CorpusMissing(RuntimeError):
    """The image cache is missing or incomplete: run `python -m evaluation.seal.corpus fetch`."""


@dataclass(frozen=True)
class Entry:
    """One image of the manifest."""

    record: dict[str, Any]

    @property
    def repo(self) -> str:
        return str(self.record["repo"])

    @property
    def sha256(self) -> str:
        return str(self.record["sha256"])

    @property
    def file(self) -> Path:
        return CACHE / f"{self.sha256}{Path(self.record['path']).suffix.lower() or '.img'}"

    @property
    def seals(self) -> list[dict[str, Any]]:
        return list(self.record.get("seals", []))


@cache
def manifest() -> dict[str, Any]:
    """The committed manifest (see the module docstring)."""
    loaded: dict[str, Any] = json.loads(MANIFEST.read_text(encoding="utf-8"))
    return loaded


def entries() -> list[Entry]:
    """Every image of the manifest, in its order."""
    return [Entry(record) for record in manifest()["images"]]


def side_of(repo: str, split: dict[str, Any]) -> str:
    """TUNING or HELDOUT for a repository: as drawn, or by its seeded hash if added later."""
    if repo in split[HELDOUT]:
        return HELDOUT
    if repo in split[TUNING]:
        return TUNING
    digest = hashlib.sha256(f"{split['seed']}:{repo}".encode()).digest()
    return HELDOUT if int.from_bytes(digest[:4], "big") / 2**32 < HELDOUT_SHARE else TUNING


def draw_split(seals_by_repo: dict[str, int], seed: int) -> dict[str, Any]:
    """Repositories in a seeded random order, held out until at least MIN_HELDOUT of the seals
    are (a little over: the last repository is whole), the rest tuning."""
    order = sorted(seals_by_repo)
    random.Random(seed).shuffle(order)
    total, held, heldout = sum(seals_by_repo.values()), 0, []
    for repo in order:
        if held >= MIN_HELDOUT * total:
            break
        heldout.append(repo)
        held += seals_by_repo[repo]
    return {"seed": seed, HELDOUT: sorted(heldout), TUNING: sorted(set(order) - set(heldout))}


def _upright(box: Box, orientation: int, width: int, height: int) -> Box:
    """A stored-pixel box in the upright image's pixels (EXIF orientations 1-8)."""
    x0, y0, x1, y1 = box
    corners = [(x0, y0), (x1, y1)]
    maps = {
        2: lambda x, y: (width - x, y),
        3: lambda x, y: (width - x, height - y),
        4: lambda x, y: (x, height - y),
        5: lambda x, y: (y, x),
        6: lambda x, y: (height - y, x),
        7: lambda x, y: (height - y, width - x),
        8: lambda x, y: (y, width - x),
    }
    if orientation not in maps:
        return box
    (ax, ay), (bx, by) = (maps[orientation](x, y) for x, y in corners)
    return min(ax, bx), min(ay, by), max(ax, bx), max(ay, by)


def _orientation(image: Path) -> tuple[int, int, int]:
    with Image.open(image) as opened:
        return int(opened.getexif().get(0x0112, 1)), opened.width, opened.height


def truth_seal(seal: dict[str, Any], orientation: int, width: int, height: int) -> TruthSeal:
    """A manifest seal as the scorer's truth (inner lines and codes told apart as for seals-dev)."""
    box = _upright(as_box(seal["box"]), orientation, width, height)
    inner, codes = split_lines(" ".join(seal.get("inner_texts") or []), list(seal.get("codes") or []))
    shape = {"rectangle": "rect", "square": "rect"}.get(seal["shape"], seal["shape"])
    owner = seal.get("owner")
    return TruthSeal(
        box,
        shape,
        seal.get("rim_text"),
        inner,
        codes,
        bool(seal.get("cut")),
        bool(seal.get("over_print")),
        None if owner is None else _owner(owner, orientation, width, height),
    )


def _owner(owner: dict[str, Any], orientation: int, width: int, height: int) -> Owner:
    """A seal's owner as its page prints it, its box upright."""
    return Owner(
        str(owner["text"]), str(owner["role"]), _upright(as_box(owner["box"]), orientation, width, height)
    )


def page_name(entry: Entry) -> str:
    """A page's name in reports: repository and path, a colon between (`repository_of` reads it),
    and the commit's first seven digits where two commits of the path are both in the corpus (a
    page's name keys its seals' outcomes, which two versions of one file would share)."""
    name = f"{entry.repo}:{entry.record['path']}"
    return f"{name}@{str(entry.record['commit'])[:7]}" if name in _repeated_paths() else name


@functools.cache
def _repeated_paths() -> frozenset[str]:
    """The repository:path pairs the manifest holds at more than one commit."""
    counts = Counter(f"{entry.repo}:{entry.record['path']}" for entry in entries())
    return frozenset(name for name, count in counts.items() if count > 1)


def repository_of(name: str) -> str:
    """The repository of a corpus page's name."""
    return name.split(":", 1)[0]


def corpus_pages(splits: frozenset[str] | None = None) -> Iterator[TruthPage]:
    """The corpus images of the named splits (all when None) with their truth; raises
    CorpusMissing when an image is not in the cache."""
    split = manifest()["split"]
    for entry in entries():
        side = side_of(entry.repo, split)
        if splits is not None and side not in splits:
            continue
        if not entry.file.is_file():
            raise CorpusMissing(f"{entry.file} is missing: run `python -m evaluation.seal.corpus fetch`")
        orientation, width, height = _orientation(entry.file)
        seals = tuple(truth_seal(seal, orientation, width, height) for seal in entry.seals)
        ignore = tuple(
            _upright(as_box(box), orientation, width, height) for box in entry.record.get("ignore", [])
        )
        yield TruthPage(
            name=page_name(entry),
            group=CORPUS,
            split=side,
            image=entry.file.read_bytes(),
            seals=seals,
            ignore=ignore,
            kind=str(entry.record.get("doc_kind", "other")),
            capture=str(entry.record.get("capture", "scan")),
        )


def _blob_from(git_dir: Path, blob: str) -> bytes | None:
    done = subprocess.run(["git", "--git-dir", str(git_dir), "cat-file", "blob", blob], capture_output=True)
    return done.stdout if done.returncode == 0 else None


def _clone(repo: str, into: Path) -> Path | None:
    """A blobless bare clone of `repo` (blobs come on demand), or None when it fails."""
    target = into / repo.replace("/", "+")
    command = ["git", "clone", "-q", "--bare", "--filter=blob:none", REMOTE.format(repo=repo), str(target)]
    return target if subprocess.run(command, capture_output=True).returncode == 0 else None


def fetch(mirrors: Path, clone: bool) -> Counter[str]:
    """Assembles the cache; returns counts of images cached, already there, missing, mismatched."""
    CACHE.mkdir(parents=True, exist_ok=True)
    outcome: Counter[str] = Counter()
    with tempfile.TemporaryDirectory() as scratch:
        clones: dict[str, Path | None] = {}
        for entry in entries():
            outcome[_fetch_one(entry, mirrors, clones if clone else None, Path(scratch))] += 1
    return outcome


def _fetch_one(entry: Entry, mirrors: Path, clones: dict[str, Path | None] | None, scratch: Path) -> str:
    if entry.file.is_file() and hashlib.sha256(entry.file.read_bytes()).hexdigest() == entry.sha256:
        return "already there"
    mirror = mirrors / entry.repo.replace("/", "+") / "repo"
    sources = [mirror / ".git", mirror]  # the git directory, or a bare one
    if clones is not None:
        if entry.repo not in clones:
            clones[entry.repo] = _clone(entry.repo, scratch)
        sources += [path for path in (clones[entry.repo],) if path is not None]
    for git_dir in (source for source in sources if source.is_dir()):
        data = _blob_from(git_dir, str(entry.record["blob"]))
        if data is None:
            continue
        if hashlib.sha256(data).hexdigest() != entry.sha256:
            return "sha256 mismatch"
        entry.file.write_bytes(data)
        return "cached"
    return "missing"


def problems(hidden: Iterable[str]) -> list[str]:
    """What is wrong with the manifest: hidden sources, repeated images, images the service
    refuses for their size (over `DEFAULT_MAX_PIXELS`: no reading of them to measure), bad
    boxes or fields."""
    banned = {line.split()[1].lower() for line in hidden if len(line.split()) == 2}
    found, seen = [], Counter(entry.sha256 for entry in entries())
    for entry in entries():
        where = page_name(entry)
        if entry.repo.lower() in banned or entry.sha256 in banned:
            found.append(f"{where}: a hidden source")
        if seen[entry.sha256] > 1:
            found.append(f"{where}: the same image twice")
        width, height = int(entry.record["width"]), int(entry.record["height"])
        if width * height > DEFAULT_MAX_PIXELS:
            found.append(f"{where}: {width}x{height} is over the service's {DEFAULT_MAX_PIXELS} pixels")
        for index, seal in enumerate(entry.seals):
            x0, y0, x1, y1 = seal["box"]
            if not (0 <= x0 < x1 <= width + 2 and 0 <= y0 < y1 <= height + 2):
                found.append(f"{where} seal {index}: box {seal['box']} outside {width}x{height}")
    return found
