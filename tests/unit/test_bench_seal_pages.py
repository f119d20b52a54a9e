"""The real pages `bench seal` times: chosen by its fixed rules from the corpus's tuning part
only (the committed manifest; no image is needed), and how it reports model calls."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench.seal import RULES, bench_pages, model_calls, real_pages
from evaluation.seal import corpus
from evaluation.seal.corpus import entries, manifest, side_of
from evaluation.seal.dataset import TUNING


def _tuning() -> list:
    split = manifest()["split"]
    return [entry for entry in entries() if side_of(entry.repo, split) == TUNING]


def test_every_rule_chooses_a_page_of_the_tuning_part_that_fits_it() -> None:
    chosen = real_pages()
    assert [page.rule for page in chosen] == [rule for rule, _, _ in RULES]
    split = manifest()["split"]
    for page, (_, fits, _) in zip(chosen, RULES, strict=True):
        assert side_of(page.entry.repo, split) == TUNING
        assert fits(page.entry)


def test_the_largest_one_seal_photo_has_no_larger_rival() -> None:
    photo = real_pages()[0].entry
    pixels = int(photo.record["width"]) * int(photo.record["height"])
    rivals = [e for e in _tuning() if len(e.seals) == 1 and e.record["capture"] == "photo"]
    assert len(photo.seals) == 1 and photo.record["capture"] == "photo"
    assert all(int(e.record["width"]) * int(e.record["height"]) <= pixels for e in rivals)


def test_the_three_seal_page_has_three_labelled_seals() -> None:
    assert len(real_pages()[-1].entry.seals) == 3


def test_model_calls_are_counted_a_request_without_the_seal_model_itself() -> None:
    before = {"seal": (10, 0.0), "seal_text_detection": (4, 0.0), "idle": (3, 0.0)}
    after = {"seal": (14, 9.0), "seal_text_detection": (8, 1.0), "text_recognition_v6": (12, 2.0)}
    after["idle"] = (3, 0.0)  # a model not called between the snapshots is left out
    assert model_calls(before, after, 4) == "1 `seal_text_detection`, 3 `text_recognition_v6`"


def test_without_the_image_cache_the_real_pages_are_skipped_and_said_so(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(corpus, "CACHE", tmp_path / "no-cache")
    pages, skipped = bench_pages()
    assert [labelled for _, _, labelled in pages] == ["1", "3"]  # the generated pages only
    assert skipped is not None and f"{len(RULES)} of the {len(RULES)} chosen" in skipped
