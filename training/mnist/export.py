"""Export the trained ensemble to ONNX with named tensors, and prove onnxruntime agrees with torch."""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
import torch
from model import Deployed
from torch import nn

OPSET = 17
INPUT_NAME = "PIXELS"  # [N, 1, 28, 28] float32 in [0, 1], exactly to_mnist's output
OUTPUT_NAME = "PROBABILITIES"  # [N, 10] float32, rows sum to 1
BATCH_AXIS = "batch"
TOLERANCE = 1e-5


def export_onnx(members: list[nn.Module], mean: float, std: float, sample: np.ndarray, path: Path) -> None:
    """Write the ensemble to `path`; raises RuntimeError if onnxruntime disagrees with torch."""
    deployed = Deployed([m.to(memory_format=torch.contiguous_format) for m in members], mean, std).eval()
    example = torch.from_numpy(sample.astype(np.float32)).unsqueeze(1)
    path.parent.mkdir(parents=True, exist_ok=True)
    torch.onnx.export(
        deployed,
        (example,),
        str(path),
        input_names=[INPUT_NAME],
        output_names=[OUTPUT_NAME],
        dynamic_axes={INPUT_NAME: {0: BATCH_AXIS}, OUTPUT_NAME: {0: BATCH_AXIS}},
        opset_version=OPSET,
        do_constant_folding=True,
        dynamo=False,  # the TorchScript exporter needs no onnxscript and keeps our names
    )
    onnx.checker.check_model(onnx.load(str(path)))
    _verify(deployed, example, path)
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    print(f"exported {path} ({path.stat().st_size / 1e6:.2f} MB) sha256 {digest}")  # noqa: T201


@torch.no_grad()
def _verify(deployed: nn.Module, example: torch.Tensor, path: Path) -> None:
    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    expected = deployed(example).numpy()
    for batch in (example[:1], example):  # the batch axis really is dynamic
        (got,) = session.run([OUTPUT_NAME], {INPUT_NAME: batch.numpy()})
        difference = float(np.abs(got - expected[: len(batch)]).max())
        if difference > TOLERANCE:
            raise RuntimeError(f"onnxruntime differs from torch by {difference} at batch {len(batch)}")
    print(f"onnxruntime matches torch (max |diff| <= {TOLERANCE})")  # noqa: T201
