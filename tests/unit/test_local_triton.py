"""The launcher's repository materialization, without starting a server."""

from __future__ import annotations

from pathlib import Path

from gateway.local_triton import ONNX_RUNNER, TRITON_REPO, TritonDistribution, materialize_repository


def test_onnx_models_are_swapped_onto_the_python_runner(tmp_path: Path) -> None:
    materialize_repository(TRITON_REPO / "models", tmp_path)
    config = (tmp_path / "mnist_classifier" / "config.pbtxt").read_text()
    assert 'backend: "python"' in config
    assert "onnxruntime_onnx" not in config
    assert (tmp_path / "mnist_classifier" / "1" / "model.py").read_text() == ONNX_RUNNER.read_text()


def test_other_models_are_copied_unchanged(tmp_path: Path) -> None:
    materialize_repository(TRITON_REPO / "models", tmp_path)
    for name in ("mnist", "mnist_preprocess"):
        source = (TRITON_REPO / "models" / name / "config.pbtxt").read_text()
        assert (tmp_path / name / "config.pbtxt").read_text() == source
    assert (tmp_path / "mnist_preprocess" / "1" / "model.py").exists()


def test_the_bundled_server_is_found() -> None:
    dist = TritonDistribution.find()
    assert dist.binary.name == "tritonserver"
    assert dist.stub.parent.name.startswith("3.")


def test_an_onnx_file_not_named_model_onnx_reaches_the_runner_as_a_parameter(tmp_path: Path) -> None:
    materialize_repository(TRITON_REPO / "models", tmp_path)
    config = (tmp_path / "seal_seq2seq_encoder" / "config.pbtxt").read_text()
    assert "default_model_filename" not in config  # the Python backend would look for that script
    assert 'key: "onnx_file" value: { string_value: "encoder_model.onnx" }' in config
