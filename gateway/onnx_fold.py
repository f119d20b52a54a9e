"""Folds the PP-OCR models' per-layer affine steps into their convolutions, at provisioning.

PP-LCNetV3 (the backbone of the PP-OCRv4 detector and recogniser) follows most convolutions
with a learnable affine (`y * s1 + b1`), a hard swish written out as five elementwise ops
(`a * clip(a + 3, 0, 6) / 6`) and another affine (`h * s2 + b2`): eight passes over each
feature map, which ONNX Runtime runs one by one and, on the CPU, each between a reorder out of
and back into its blocked convolution layout. Those passes took half the recogniser's time
(issue 16). The same function, written with fewer passes over the same weights:

- `s1`, `b1` go into the convolution's weights and bias (`conv(x) * s1 + b1` is a convolution);
- the hard swish becomes `a * HardSigmoid(a)` (alpha 1/6, beta 1/2: the same function);
- `s2` goes into the next convolution's weights (a scale commutes with its zero padding), and
  `b2` into its bias when it pads nothing; with padding, `b2 / s2` stays as one shift before it
  (a BatchNormalization that adds exactly that: see `_shift`).

Only float rounding changes (outputs within about 1e-5 of the original's), which the OCR
fidelity tests against RapidOCR on the original models judge. Blocks that do not match the
pattern exactly are left as they are.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
import onnx
from onnx import helper, numpy_helper

HARD_SWISH_SHIFT = 3.0  # a * clip(a + 3, 0, 6) / 6
HARD_SWISH_RANGE = 6.0
Node = onnx.NodeProto
Array = npt.NDArray[np.float32]


class _Graph:
    """The model's graph with lookups by tensor name; weights are `Constant` nodes (PaddlePaddle's
    ONNX export), edited in place."""

    def __init__(self, graph: onnx.GraphProto) -> None:
        self.graph = graph
        self.constants = {node.output[0]: node for node in graph.node if node.op_type == "Constant"}
        self.consumers: dict[str, list[Node]] = defaultdict(list)
        for node in graph.node:
            for name in node.input:
                self.consumers[name].append(node)

    def value(self, name: str) -> Array | None:
        node = self.constants.get(name)
        return None if node is None else numpy_helper.to_array(node.attribute[0].t)

    def scalar(self, node: Node) -> float | None:
        """The one-element constant operand of a binary op, if it has one."""
        for name in node.input:
            value = self.value(name)
            if value is not None and value.size == 1:
                return float(value.reshape(()))
        return None

    def only_consumer(self, node: Node, op_type: str) -> Node | None:
        users = self.consumers[node.output[0]]
        return users[0] if len(users) == 1 and users[0].op_type == op_type else None

    def set_constant(self, name: str, value: Array) -> None:
        self.constants[name].attribute[0].t.CopyFrom(numpy_helper.from_array(value.astype(np.float32), name))

    def bias(self, conv: Node) -> Array:
        """The convolution's bias, created (zeros) when it has none."""
        if len(conv.input) > 2:
            value = self.value(conv.input[2])
            assert value is not None
            return value
        out_channels = self._weight(conv).shape[0]
        name = f"{conv.output[0]}.folded_bias"
        zeros = np.zeros(out_channels, np.float32)
        self.graph.node.append(
            helper.make_node("Constant", [], [name], value=numpy_helper.from_array(zeros, name))
        )
        self.constants[name] = self.graph.node[-1]  # append copied the message: keep the graph's
        conv.input.append(name)
        return zeros

    def _weight(self, conv: Node) -> Array:
        value = self.value(conv.input[1])
        assert value is not None
        return value


@dataclass(frozen=True)
class _Block:
    """conv -> Mul(s1) -> Add(b1) = a; a * clip(a + 3, 0, 6) / 6 = h; Mul(s2) -> Add(b2)."""

    conv: Node
    s1: float
    b1: float
    s2: float
    b2: float
    removed: tuple[Node, ...]  # every op after the convolution up to and including the hard swish
    hard_swish: Node  # its last op (the Div), whose output name the rewritten block keeps
    scale: Node  # Mul(s2)
    shift: Node  # Add(b2)


def _match(graph: _Graph, conv: Node) -> _Block | None:
    mul1 = graph.only_consumer(conv, "Mul")
    add1 = mul1 and graph.only_consumer(mul1, "Add")
    if mul1 is None or add1 is None:
        return None
    users = graph.consumers[add1.output[0]]
    shift3 = next((n for n in users if n.op_type == "Add"), None)
    product = next((n for n in users if n.op_type == "Mul"), None)
    if len(users) != 2 or shift3 is None or product is None or graph.scalar(shift3) != HARD_SWISH_SHIFT:
        return None
    clip = graph.only_consumer(shift3, "Clip")
    div = graph.only_consumer(product, "Div")
    if (
        clip is None
        or div is None
        or product.input[1] != clip.output[0]
        or graph.scalar(div) != HARD_SWISH_RANGE
    ):
        return None
    if [graph.value(name) for name in clip.input[1:]] != [0.0, HARD_SWISH_RANGE]:
        return None
    mul2 = graph.only_consumer(div, "Mul")
    add2 = mul2 and graph.only_consumer(mul2, "Add")
    if mul2 is None or add2 is None:
        return None
    following = graph.only_consumer(add2, "Conv")
    weights = [conv.input[1:]] + ([following.input[1:]] if following else [])
    if any(len(graph.consumers[name]) != 1 for names in weights for name in names):
        return None  # a weight shared with another node cannot be edited in place
    s1, b1, s2, b2 = (graph.scalar(node) for node in (mul1, add1, mul2, add2))
    if s1 is None or b1 is None or s2 is None or b2 is None or s2 == 0.0:
        return None
    return _Block(conv, s1, b1, s2, b2, (mul1, add1, shift3, clip, product, div), div, mul2, add2)


def _fold(graph: _Graph, block: _Block) -> set[int]:
    """Rewrite one block; returns the ids of the nodes it made unused."""
    conv = block.conv
    weight = graph.value(conv.input[1])
    assert weight is not None
    bias = graph.bias(conv)
    graph.set_constant(conv.input[1], weight * np.float32(block.s1))
    graph.set_constant(conv.input[2], bias * np.float32(block.s1) + np.float32(block.b1))
    a, h = conv.output[0], block.hard_swish.output[0]
    gate = f"{a}.hard_sigmoid"
    graph.graph.node.append(
        helper.make_node("HardSigmoid", [a], [gate], alpha=1.0 / HARD_SWISH_RANGE, beta=0.5)
    )
    graph.graph.node.append(helper.make_node("Mul", [a, gate], [h]))
    removed = {id(node) for node in block.removed}
    following = graph.only_consumer(block.shift, "Conv")
    if following is None:
        return removed  # s2 and b2 stay where they are
    _fold_into_next(graph, block, following)
    removed.add(id(block.scale))
    return removed


def _fold_into_next(graph: _Graph, block: _Block, following: Node) -> None:
    """`s2` into the next convolution's weights; `b2` into its bias, or kept as a shift by
    `b2 / s2` before it."""
    weight = graph.value(following.input[1])
    assert weight is not None
    h = block.hard_swish.output[0]
    if _pads(following):
        in_channels = weight.shape[1] * _attribute(following, "group", 1)
        graph.graph.node.extend(_shift(h, block.shift.output[0], block.b2 / block.s2, in_channels))
        block.shift.ClearField("input")  # replaced: dropped with the unreachable nodes
    else:
        bias = graph.bias(following)
        per_output = weight.reshape(weight.shape[0], -1).sum(axis=1)
        graph.set_constant(following.input[2], bias + np.float32(block.b2) * per_output)
        following.input[0] = h
        block.shift.ClearField("input")  # unused now: dropped with the unreachable nodes
    graph.set_constant(following.input[1], weight * np.float32(block.s2))


def _shift(source: str, target: str, value: float, channels: int) -> list[Node]:
    """`target = source + value`, written as a BatchNormalization (scale 1, mean 0, variance 1,
    epsilon 0: exactly the sum) rather than an Add: ONNX Runtime runs that one in its blocked
    convolution layout, where an Add of a scalar makes it reorder the map out and back in."""
    names = [f"{target}.{part}" for part in ("scale", "shift", "mean", "variance")]
    values = (np.ones(channels), np.full(channels, value), np.zeros(channels), np.ones(channels))
    nodes = [
        helper.make_node("Constant", [], [name], value=numpy_helper.from_array(v.astype(np.float32), name))
        for name, v in zip(names, values, strict=True)
    ]
    return [*nodes, helper.make_node("BatchNormalization", [source, *names], [target], epsilon=0.0)]


def _attribute(node: Node, name: str, default: int) -> int:
    found = [helper.get_attribute_value(a) for a in node.attribute if a.name == name]
    return int(found[0]) if found else default


def _pads(conv: Node) -> bool:
    attributes = {a.name: helper.get_attribute_value(a) for a in conv.attribute}
    return any(attributes.get("pads", [0])) or attributes.get("auto_pad", b"NOTSET") not in (
        b"NOTSET",
        b"VALID",
    )


def _used_nodes(graph: onnx.GraphProto, nodes: Sequence[Node]) -> list[Node]:
    """`nodes` in a topological order, without those no graph output depends on."""
    producer = {name: node for node in nodes for name in node.output}
    needed: set[int] = set()
    stack = [producer[o.name] for o in graph.output]
    while stack:
        node = stack.pop()
        if id(node) not in needed:
            needed.add(id(node))
            stack.extend(producer[name] for name in node.input if name in producer)
    ready = {i.name for i in graph.input} | {i.name for i in graph.initializer} | {""}
    ordered: list[Node] = []
    pending = [node for node in nodes if id(node) in needed]
    while pending:
        left: list[Node] = []
        for node in pending:
            if all(name in ready for name in node.input):
                ordered.append(node)
                ready.update(node.output)
            else:
                left.append(node)
        if len(left) == len(pending):
            raise ValueError("the graph has a cycle")
        pending = left
    return ordered


def fold_affine_hard_swish(model: onnx.ModelProto) -> int:
    """Rewrite every matching block of `model` in place; returns how many were folded."""
    graph = _Graph(model.graph)
    blocks = [b for b in (_match(graph, n) for n in list(model.graph.node) if n.op_type == "Conv") if b]
    removed: set[int] = set()
    for block in blocks:
        removed |= _fold(graph, block)
    kept = [node for node in model.graph.node if id(node) not in removed]
    ordered = _used_nodes(model.graph, kept)
    del model.graph.node[:]
    model.graph.node.extend(ordered)
    onnx.checker.check_model(model)
    return len(blocks)


def folded_model(data: bytes) -> bytes:
    """The serialized model with its affine + hard swish blocks folded (see the module's doc)."""
    model = onnx.load_model_from_string(data)
    fold_affine_hard_swish(model)
    data = model.SerializeToString(deterministic=True)
    assert isinstance(data, bytes)
    return data
