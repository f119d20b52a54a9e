"""A made-up PP-LCNetV3-like ONNX graph in PaddlePaddle's export style (weights as Constant nodes):
convolutions each followed by a learnable affine, a hard swish written out and another affine,
for the tests of triton_repo/provision/onnx_fold.py and of provisioning a folded model."""

from __future__ import annotations

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

CHANNELS = 4
RNG = np.random.default_rng(16)


class Builder:
    """A chain of convolutions, each followed by LAB -> hard swish -> LAB (PP-LCNetV3's `Act`)."""

    def __init__(self) -> None:
        self.nodes: list[onnx.NodeProto] = []
        self.count = 0

    def constant(self, value: np.ndarray) -> str:
        self.count += 1
        name = f"c{self.count}"
        tensor = numpy_helper.from_array(value.astype(np.float32), name)
        self.nodes.append(helper.make_node("Constant", [], [name], value=tensor))
        return name

    def op(self, op_type: str, inputs: list[str], **attributes: object) -> str:
        self.count += 1
        name = f"t{self.count}"
        self.nodes.append(helper.make_node(op_type, inputs, [name], **attributes))
        return name

    def scalar(self, value: float) -> str:
        return self.constant(np.array([value]))

    def conv(self, x: str, kernel: int, depthwise: bool, bias: bool) -> str:
        shape = (CHANNELS, 1 if depthwise else CHANNELS, kernel, kernel)
        inputs = [x, self.constant(RNG.normal(size=shape))]
        if bias:
            inputs.append(self.constant(RNG.normal(size=CHANNELS)))
        pad = kernel // 2
        return self.op("Conv", inputs, group=CHANNELS if depthwise else 1, pads=[pad] * 4)

    def act(self, y: str, shift: float = 3.0) -> str:
        a = self.op("Add", [self.op("Mul", [self.scalar(RNG.uniform(0.5, 2)), y]), self.scalar(RNG.normal())])
        clipped = self.op(
            "Clip",
            [
                self.op("Add", [a, self.scalar(shift)]),
                self.constant(np.array(0.0)),
                self.constant(np.array(6.0)),
            ],
        )
        h = self.op("Div", [self.op("Mul", [a, clipped]), self.scalar(6.0)])
        return self.op(
            "Add", [self.op("Mul", [self.scalar(RNG.uniform(0.5, 2)), h]), self.scalar(RNG.normal())]
        )

    def model(self, output: str) -> onnx.ModelProto:
        self.nodes.append(helper.make_node("Identity", [output], ["y"]))
        graph = helper.make_graph(
            self.nodes,
            "made_up",
            [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, CHANNELS, 8, 8])],
            [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, CHANNELS, 8, 8])],
        )
        # IR version 7 (opset 12): what PaddlePaddle exports, and what any ONNX Runtime reads.
        return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 12)], ir_version=7)


def lcnet_like(shift: float = 3.0) -> onnx.ModelProto:
    """conv 3x3 -> act -> 1x1 conv (no padding) -> act -> depthwise 3x3 (padded) -> act -> 1x1."""
    b = Builder()
    x = b.act(b.conv("x", 3, depthwise=False, bias=False), shift)
    x = b.act(b.conv(x, 1, depthwise=False, bias=True), shift)
    x = b.act(b.conv(x, 3, depthwise=True, bias=True), shift)
    return b.model(b.conv(x, 1, depthwise=False, bias=False))
