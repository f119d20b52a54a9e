"""Pages read once: each page's answer kept on disk, keyed by the page's bytes, the reader's
configuration and the reader's code and weights, so that a run after a change to the sets
alone (a corpus grown by a wave of labels, a scorer's new table) reads only the pages it has
not read. Any change to the reader's code, its configuration or a model file gives every page
a new key: nothing read by another reader is ever taken."""

from __future__ import annotations

import functools
import hashlib
import pickle
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any, TypeVar, cast

T = TypeVar("T")
# What the in-process reader's answers depend on besides the page and its configuration: the
# seal model's code (shared image processing and the BLS model), the harness's own way of
# running it, and the models it calls (named by file and size: they are pinned by sha256
# when provisioned, and hashing gigabytes on every run would cost more than it saves).
READER_CODE = ("triton_repo/shared/imgproc", "triton_repo/models/seal", "evaluation/seal/inprocess.py")
# ...but the document check's parties (`check=document`): the pages kept here are read without
# it, so tuning its rules reads no page again (the caller leaves `SealConfig.parties` out of the
# configuration it keys pages by, `reading_config`).
NOT_READER_CODE = ("triton_repo/shared/imgproc/seal/parties",)
MODEL_FILES = "triton_repo/models/*/*/*.onnx"


def reader_digest(root: Path = Path(".")) -> str:
    """A digest of the reader's code and the names and sizes of its model files."""
    digest = hashlib.sha256()
    for file in _code_files(root):
        digest.update(str(file.relative_to(root)).encode() + b"\0" + file.read_bytes())
    for model in sorted(root.glob(MODEL_FILES)):
        digest.update(f"{model.relative_to(root)}:{model.stat().st_size}".encode())
    return digest.hexdigest()


def _code_files(root: Path) -> list[Path]:
    files = []
    for name in READER_CODE:
        path = root / name
        found = [path] if path.is_file() else path.rglob("*")
        files += [f for f in found if f.is_file() and "__pycache__" not in f.parts]
    skipped = [root / name for name in NOT_READER_CODE]
    return sorted(f for f in files if not any(f.is_relative_to(path) for path in skipped))


@functools.cache
def _this_reader() -> str:
    return reader_digest()


def page_key(image: bytes, config: object, reader: str) -> str:
    """A page's name in the cache: its bytes, the configuration's repr and the reader's digest."""
    return hashlib.sha256(image + repr(config).encode() + reader.encode()).hexdigest()[:40]


def read_through(
    cache: Path | None,
    images: Sequence[bytes],
    config: object,
    read: Callable[[Iterable[bytes]], Iterator[T]],
    reader: str | None = None,
) -> list[T]:
    """Each image's answer, in order: from `cache` where it holds one, else from `read` (given
    only the images not held, in order), which is then kept there. Without a cache, `read`
    reads them all."""
    if cache is None:
        return list(read(images))
    cache.mkdir(parents=True, exist_ok=True)
    keys = [page_key(image, config, reader or _this_reader()) for image in images]
    answers: list[T | None] = [held(cache / key) for key in keys]
    missing = [i for i, answer in enumerate(answers) if answer is None]
    for i, answer in zip(missing, read(images[i] for i in missing), strict=True):
        keep(cache / keys[i], answer)
        answers[i] = answer
    return cast(list[T], answers)  # every one filled: held, or read just now


def keep(path: Path, answer: object) -> None:
    """Written whole or not at all: a run stopped mid-write leaves no half answer behind."""
    part = path.with_suffix(".part")
    part.write_bytes(pickle.dumps(answer))
    part.replace(path)


def held(path: Path) -> Any:
    """What `keep` wrote at `path`, or None where nothing was."""
    return pickle.loads(path.read_bytes()) if path.is_file() else None
