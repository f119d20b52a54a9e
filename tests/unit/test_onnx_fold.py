"""onnx_fold (triton_repo/provision) on small made-up graphs (tests/support/lcnet_graph.py), run with ONNX
Runtime before and after folding."""

from __future__ import annotations

import numpy as np
import onnx
import onnxruntime as ort
from onnx import helper
from onnx_fold import fold_affine_hard_swish, folded_model

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
    # Per block: the first affine into its convolution, the hard swish, the second affine on.
    assert fold_affine_hard_swish(model) == 9
    np.testing.assert_allclose(_run(model, x), before, rtol=1e-4, atol=1e-4)
    # Left: each hard swish's product, and one shift by b2 / s2 before the padded depthwise
    # convolution, whose zero padding b2 cannot go through (a BatchNormalization, not an Add).
    assert _ops(model).count("HardSigmoid") == 3 and _ops(model).count("Mul") == 3
    assert _ops(model).count("BatchNormalization") == 1
    assert not {"Clip", "Div", "Add"} & set(_ops(model))


def test_a_function_that_is_not_a_hard_swish_stays_written_out() -> None:
    model = lcnet_like(shift=2.0)  # x * clip(x + 2, 0, 6) / 6
    x = RNG.normal(size=(1, CHANNELS, 8, 8)).astype(np.float32) * 3
    before = _run(model, x)
    fold_affine_hard_swish(model)
    assert "HardSigmoid" not in _ops(model) and _ops(model).count("Clip") == 3
    np.testing.assert_allclose(_run(model, x), before, rtol=1e-4, atol=1e-4)


def test_an_affine_read_by_two_convolutions_goes_into_both() -> None:
    b = Builder()
    h = b.act(b.conv("x", 1, depthwise=False, bias=True))
    both = b.op("Add", [b.conv(h, 1, depthwise=False, bias=False), b.conv(h, 3, depthwise=True, bias=True)])
    model = b.model(both)
    x = RNG.normal(size=(1, CHANNELS, 8, 8)).astype(np.float32) * 3
    before = _run(model, x)
    assert fold_affine_hard_swish(model) == 3
    np.testing.assert_allclose(_run(model, x), before, rtol=1e-4, atol=1e-4)
    assert _ops(model).count("BatchNormalization") == 1  # the shift, for the padded one only
    assert _ops(model).count("Add") == 1  # the two branches' sum


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
    assert fold_affine_hard_swish(model) == 1  # the hard swish only: no affine can go anywhere
    assert _ops(model).count("Mul") == 3 and _ops(model).count("Add") == 2
    np.testing.assert_allclose(_run(model, x), before, rtol=1e-5, atol=1e-5)
