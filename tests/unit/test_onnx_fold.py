"""gateway.onnx_fold on small made-up graphs (tests/support/lcnet_graph.py), run with ONNX
Runtime before and after folding."""

from __future__ import annotations

import numpy as np
import onnx
import onnxruntime as ort
from onnx import helper

from gateway.onnx_fold import fold_affine_hard_swish, folded_model
from tests.support.lcnet_graph import CHANNELS, RNG, Builder, lcnet_like


def _run(model: onnx.ModelProto, x: np.ndarray) -> np.ndarray:
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    result: np.ndarray = session.run(None, {"x": x})[0]
    return result


def _ops(model: onnx.ModelProto) -> list[str]:
    return [node.op_type for node in model.graph.node if node.op_type != "Constant"]


def test_folding_keeps_the_function_in_fewer_ops() -> None:
    model = lcnet_like()
    x = RNG.normal(size=(1, CHANNELS, 8, 8)).astype(np.float32) * 3
    before = _run(model, x)
    assert fold_affine_hard_swish(model) == 3
    np.testing.assert_allclose(_run(model, x), before, rtol=1e-4, atol=1e-4)
    # Left: each hard swish's product, and one shift by b2 / s2 before the padded depthwise
    # convolution, whose zero padding b2 cannot go through (a BatchNormalization, not an Add).
    assert _ops(model).count("HardSigmoid") == 3 and _ops(model).count("Mul") == 3
    assert _ops(model).count("BatchNormalization") == 1
    assert not {"Clip", "Div", "Add"} & set(_ops(model))


def test_a_block_that_differs_is_left_alone() -> None:
    model = lcnet_like(shift=2.0)  # not a hard swish
    ops = _ops(model)
    assert fold_affine_hard_swish(model) == 0
    assert _ops(model) == ops


def test_serialized_folding_is_deterministic_and_loads() -> None:
    data = lcnet_like().SerializeToString()
    once = folded_model(data)
    assert once == folded_model(data)
    assert len(_ops(onnx.load_model_from_string(once))) < len(_ops(onnx.load_model_from_string(data)))


def test_a_model_without_blocks_round_trips_unchanged() -> None:
    b = Builder()
    data = b.model(b.conv("x", 3, depthwise=False, bias=True)).SerializeToString(deterministic=True)
    assert folded_model(data) == data


def test_a_shared_weight_is_not_edited() -> None:
    b = Builder()
    y = b.conv("x", 1, depthwise=False, bias=True)
    conv = b.nodes[-1]
    y = b.act(y)
    b.nodes.append(helper.make_node("Conv", [y, conv.input[1], conv.input[2]], ["again"]))
    model = b.model("again")
    x = RNG.normal(size=(1, CHANNELS, 8, 8)).astype(np.float32)
    before = _run(model, x)
    assert fold_affine_hard_swish(model) == 0
    np.testing.assert_allclose(_run(model, x), before, rtol=1e-6)
