"""The real seal corpus's manifest, split and cache (evaluation.seal.corpus), without its images:
the committed manifest is checked as data; fetching runs on a git repository made here."""

from __future__ import annotations

import hashlib
import io
import subprocess
from pathlib import Path

import numpy as np
import pytest
from PIL import Image, ImageOps

import evaluation.seal.corpus as corpus
from evaluation.seal.corpus import (
    MIN_HELDOUT,
    CorpusMissing,
    Entry,
    _upright,
    draw_split,
    entries,
    manifest,
    page_name,
    problems,
    side_of,
)
from evaluation.seal.corpus.__main__ import stats_lines
from evaluation.seal.dataset import HELDOUT, TUNING

HIDDEN = Path(__file__).resolve().parents[3] / "shared" / "datasets" / "hidden-sources.txt"


def test_the_committed_manifest_has_no_hidden_source_repeat_stray_box_or_image_over_the_cap() -> None:
    hidden = HIDDEN.read_text(encoding="utf-8").splitlines() if HIDDEN.is_file() else []
    assert problems(hidden) == []


def test_every_page_of_the_committed_manifest_has_a_name_of_its_own() -> None:
    # Outcomes are keyed by page name: two versions of one path (two commits) must not share one.
    names = [page_name(entry) for entry in entries()]
    assert len(set(names)) == len(names)
    assert any("@" in name for name in names)  # the manifest does hold such a pair


def test_the_committed_split_is_by_repository_and_holds_out_enough_seals() -> None:
    split = manifest()["split"]
    assert not set(split[HELDOUT]) & set(split[TUNING])
    seals = {side: 0 for side in (TUNING, HELDOUT)}
    for entry in entries():
        seals[side_of(entry.repo, split)] += len(entry.seals)
    assert seals[HELDOUT] >= MIN_HELDOUT * sum(seals.values())


def test_every_label_says_where_it_comes_from_and_how_sure() -> None:
    for entry in entries():
        for seal in entry.seals:
            assert seal["label_source"] in {"document", "filename", "readme", "eye"}
            assert seal["confidence"] in {"high", "medium", "low"}
            assert seal["rim_text"] is None or seal["confidence"] != "low"


def test_the_written_corpus_stats_are_up_to_date() -> None:
    """docs/seal/corpus-stats.md is the manifest's counts: a wave or a label fix that changes
    them writes it again (it once showed the corpus a wave behind)."""
    written = (Path(__file__).resolve().parents[2] / "docs" / "seal" / "corpus-stats.md").read_text("utf-8")
    assert written == "\n".join(stats_lines()) + "\n", (
        "docs/seal/corpus-stats.md is out of date: run "
        "`python -m evaluation.seal.corpus stats --write docs/seal/corpus-stats.md`"
    )


def test_a_drawn_split_keeps_repositories_whole_and_is_the_same_for_the_same_seed() -> None:
    counts = {f"owner/repo{i}": i % 7 + 1 for i in range(40)}
    split = draw_split(counts, seed=5)
    assert split == draw_split(counts, seed=5) and split != draw_split(counts, seed=6)
    held = sum(counts[repo] for repo in split[HELDOUT])
    assert MIN_HELDOUT * sum(counts.values()) <= held < MIN_HELDOUT * sum(counts.values()) + 7
    assert sorted(split[HELDOUT] + split[TUNING]) == sorted(counts)


def test_a_repository_added_after_the_split_has_one_side_that_depends_on_the_seed_only() -> None:
    split = {"seed": 11, HELDOUT: ["a/b"], TUNING: ["c/d"]}
    assert side_of("a/b", split) == HELDOUT and side_of("c/d", split) == TUNING
    sides = {side_of(f"new/repo{i}", split) for i in range(50)}
    assert sides == {HELDOUT, TUNING}
    assert side_of("new/repo1", split) == side_of("new/repo1", dict(split, tuning=["x/y"]))


@pytest.mark.parametrize("orientation", range(1, 9))
def test_a_stored_box_is_turned_upright_as_the_service_decodes_the_image(orientation: int) -> None:
    stored = np.zeros((60, 100), np.uint8)
    stored[20:50, 10:30] = 255
    image = Image.fromarray(stored)
    exif = image.getexif()
    exif[0x0112] = orientation
    encoded = io.BytesIO()
    image.save(encoded, "PNG", exif=exif)
    upright = np.asarray(ImageOps.exif_transpose(Image.open(io.BytesIO(encoded.getvalue()))))
    ys, xs = np.nonzero(upright > 128)
    want = (int(xs.min()), int(ys.min()), int(xs.max()) + 1, int(ys.max()) + 1)
    assert _upright((10, 20, 30, 50), orientation, 100, 60) == want


def _repository_with(tmp_path: Path, data: bytes) -> tuple[Path, str]:
    work = tmp_path / "work"
    subprocess.run(["git", "init", "-q", str(work)], check=True)
    (work / "seal.png").write_bytes(data)
    blob = subprocess.run(
        ["git", "-C", str(work), "hash-object", "-w", "seal.png"], capture_output=True, text=True
    )
    mirror = tmp_path / "mirrors" / "owner+name"
    mirror.mkdir(parents=True)
    (work / ".git").rename(mirror / "repo")
    return tmp_path / "mirrors", blob.stdout.strip()


def _entry(blob: str, data: bytes) -> Entry:
    record = {
        "repo": "owner/name",
        "path": "seal.png",
        "blob": blob,
        "sha256": hashlib.sha256(data).hexdigest(),
    }
    return Entry(record | {"seals": [], "width": 1, "height": 1})


def test_fetch_copies_an_image_from_a_mirror_and_checks_its_sha256(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    mirrors, blob = _repository_with(tmp_path, b"a seal's bytes")
    monkeypatch.setattr(corpus, "CACHE", tmp_path / "cache")
    good, bad = _entry(blob, b"a seal's bytes"), _entry(blob, b"other bytes")
    monkeypatch.setattr(corpus, "entries", lambda: [good])
    assert corpus.fetch(mirrors, clone=False) == {"cached": 1}
    assert corpus.fetch(mirrors, clone=False) == {"already there": 1}
    monkeypatch.setattr(corpus, "entries", lambda: [bad])
    assert corpus.fetch(mirrors, clone=False) == {"sha256 mismatch": 1}
    assert corpus.fetch(tmp_path / "nowhere", clone=False) == {"missing": 1}


def test_reading_the_corpus_without_its_cache_says_how_to_make_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(corpus, "CACHE", tmp_path / "empty")
    if not entries():
        pytest.skip("the manifest lists no image")
    with pytest.raises(CorpusMissing, match="evaluation.seal.corpus fetch"):
        next(corpus.corpus_pages())
