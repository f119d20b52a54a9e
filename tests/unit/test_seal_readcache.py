"""evaluation.seal.readcache: pages read once, with a fake reader that counts what it reads, and
the reader's digest on a made-up tree."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import replace
from pathlib import Path

from evaluation.seal.inprocess import reading_config, seal_model_config
from evaluation.seal.readcache import page_key, read_through, reader_digest


class FakeCountingReader:
    """Answers each image with its length, and keeps which images it was asked to read."""

    def __init__(self) -> None:
        self.asked: list[bytes] = []

    def __call__(self, images: Iterable[bytes]) -> Iterator[int]:
        for image in images:
            self.asked.append(image)
            yield len(image)


def test_a_page_is_read_once_and_answers_keep_their_order(tmp_path: Path) -> None:
    reader = FakeCountingReader()
    first = read_through(tmp_path, [b"a", b"bb"], "config", reader, reader="r1")
    grown = read_through(tmp_path, [b"a", b"cccc", b"bb"], "config", reader, reader="r1")
    assert first == [1, 2] and grown == [1, 4, 2]
    assert reader.asked == [b"a", b"bb", b"cccc"]


def test_another_configuration_or_reader_reads_again(tmp_path: Path) -> None:
    reader = FakeCountingReader()
    read_through(tmp_path, [b"a"], "config", reader, reader="r1")
    read_through(tmp_path, [b"a"], "other config", reader, reader="r1")
    read_through(tmp_path, [b"a"], "config", reader, reader="r2")
    assert reader.asked == [b"a"] * 3
    assert len({page_key(b"a", c, r) for c in ("x", "y") for r in ("r1", "r2")}) == 4


def test_without_a_cache_every_page_is_read(tmp_path: Path) -> None:
    reader = FakeCountingReader()
    assert read_through(None, [b"a", b"a"], "config", reader) == [1, 1]
    assert reader.asked == [b"a", b"a"] and not list(tmp_path.iterdir())


def _tree(root: Path) -> None:
    (root / "triton_repo/shared/imgproc/seal").mkdir(parents=True)
    (root / "triton_repo/shared/imgproc/seal/find.py").write_text("RULE = 1\n")
    (root / "triton_repo/models/seal/1").mkdir(parents=True)
    (root / "triton_repo/models/seal/config.pbtxt").write_text("parameters {}\n")
    (root / "triton_repo/models/text_recognition/1").mkdir(parents=True)
    (root / "triton_repo/models/text_recognition/1/model.onnx").write_bytes(b"w" * 10)
    (root / "evaluation/seal").mkdir(parents=True)
    (root / "evaluation/seal/inprocess.py").write_text("THREADS = 1\n")


def test_the_readers_digest_follows_its_code_and_models_only(tmp_path: Path) -> None:
    _tree(tmp_path)
    before = reader_digest(tmp_path)
    cached = tmp_path / "triton_repo/shared/imgproc/seal/__pycache__"
    cached.mkdir()
    (cached / "find.cpython-311.pyc").write_bytes(b"compiled")
    (tmp_path / "evaluation/seal/report.py").write_text("TABLE = 2\n")  # the scorer's side
    parties = tmp_path / "triton_repo/shared/imgproc/seal/parties"
    parties.mkdir()
    (parties / "link.py").write_text("RULE = 2\n")  # the document check's, not the reading's
    assert reader_digest(tmp_path) == before
    (tmp_path / "triton_repo/shared/imgproc/seal/find.py").write_text("RULE = 2\n")
    changed_code = reader_digest(tmp_path)
    (tmp_path / "triton_repo/models/text_recognition/1/model.onnx").write_bytes(b"w" * 11)
    changed_model = reader_digest(tmp_path)
    (tmp_path / "evaluation/seal/inprocess.py").write_text("THREADS = 2\n")
    assert len({before, changed_code, changed_model, reader_digest(tmp_path)}) == 4


def test_a_page_is_keyed_by_its_reading_configuration_not_the_document_checks() -> None:
    config = seal_model_config()  # the served one (this file stays out of the image's tests)
    key = page_key(b"a", reading_config(config), "r1")
    tuned = replace(config, parties=replace(config.parties, same_row=config.parties.same_row + 0.1))
    assert page_key(b"a", reading_config(tuned), "r1") == key
    assert page_key(b"a", reading_config(replace(config, max_seals=config.max_seals + 1)), "r1") != key
