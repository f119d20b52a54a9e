"""Folds the PP-OCR models' per-layer affine steps into their convolutions, at provisioning.

PP-LCNetV3 (the backbone of the PP-OCRv4 detector and recogniser) follows most convolutions
with a learnable affine (`y * s1 + b1`), a hard swish written out as five elementwise ops
(`a * clip(a + 3, 0, 6) / 6`) and another affine (`h * s2 + b2`): eight passes over each
feature map, which ONNX Runtime runs one by one and, on the CPU, each between a reorder out of
and back into its blocked convolution layout. Those passes took half the recogniser's time
(issue 16). The same function, written with fewer passes over the same weights, in three
rewrites:

- an affine right after a convolution goes into its weights and bias (`conv(x) * s + b` is a
  convolution);
- the hard swish becomes `a * HardSigmoid(a)` (alpha 1/6, beta 1/2: the same function), which
  ONNX Runtime fuses into the convolution before it;
- an affine whose every consumer is a convolution goes into them: `s` into their weights (a
  scale commutes with zero padding), `b` into the bias of those that pad nothing; before those
  that pad, `b / s` stays as one shift (a BatchNormalization that adds exactly that: `_shift`).

Only float rounding changes (outputs within about 1e-4 of the original's), which the OCR
fidelity tests against RapidOCR on the original models judge. Ops that do not match a pattern
exactly (scalar operands, weights used by that convolution alone) are left as they are.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator
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
    ONNX export), edited in place. Lookups are as of construction: one per rewrite."""

    def __init__(self, graph: onnx.GraphProto) -> None:
        self.graph = graph
        self.constants = {node.output[0]: node for node in graph.node if node.op_type == "Constant"}
        self.consumers: dict[str, list[Node]] = defaultdict(list)
        self.producer: dict[str, Node] = {}
        for node in graph.node:
            for name in node.input:
                self.consumers[name].append(node)
            for name in node.output:
                self.producer[name] = node

    def nodes(self, op_type: str) -> list[Node]:
        return [node for node in self.graph.node if node.op_type == op_type]

    def value(self, name: str) -> Array | None:
        node = self.constants.get(name)
        return None if node is None else numpy_helper.to_array(node.attribute[0].t)

    def scalar(self, node: Node) -> tuple[float, str] | None:
        """(the one-element constant operand, the other operand) of a binary op, if it has one."""
        for index, name in enumerate(node.input):
            value = self.value(name)
            if value is not None and value.size == 1 and len(node.input) == 2:
                return float(value.reshape(())), node.input[1 - index]
        return None

    def only_consumer(self, name: str, op_type: str) -> Node | None:
        users = self.consumers[name]
        return users[0] if len(users) == 1 and users[0].op_type == op_type else None

    def owns_weights(self, conv: Node) -> bool:
        """The convolution's weight and bias are constants no other node reads."""
        return all(name in self.constants and len(self.consumers[name]) == 1 for name in conv.input[1:])

    def weight(self, conv: Node) -> Array:
        value = self.value(conv.input[1])
        assert value is not None
        return value

    def bias(self, conv: Node) -> Array:
        """The convolution's bias, created (zeros) when it has none."""
        if len(conv.input) < 3:
            name = f"{conv.output[0]}.folded_bias"
            self.add_constant(name, np.zeros(self.weight(conv).shape[0], np.float32))
            conv.input.append(name)
        value = self.value(conv.input[2])
        assert value is not None
        return value

    def set_constant(self, name: str, value: Array) -> None:
        self.constants[name].attribute[0].t.CopyFrom(numpy_helper.from_array(value.astype(np.float32), name))

    def add_constant(self, name: str, value: Array) -> None:
        tensor = numpy_helper.from_array(value.astype(np.float32), name)
        self.graph.node.append(helper.make_node("Constant", [], [name], value=tensor))
        self.constants[name] = self.graph.node[-1]  # append copied the message: keep the graph's


@dataclass(frozen=True)
class _Affine:
    """`x * s + b` with scalar s and b, as a Mul then an Add that only the Mul feeds."""

    source: str  # x
    scale: float
    shift: float
    mul: Node
    add: Node

    @property
    def output(self) -> str:
        return str(self.add.output[0])


def _affines(graph: _Graph) -> Iterator[_Affine]:
    for mul in graph.nodes("Mul"):
        scaled = graph.scalar(mul)
        add = graph.only_consumer(mul.output[0], "Add")
        shifted = add and graph.scalar(add)
        if scaled and add and shifted:
            yield _Affine(scaled[1], scaled[0], shifted[0], mul, add)


def _into_producers(graph: _Graph) -> int:
    """conv -> affine: the affine into the convolution's weights and bias."""
    folded = 0
    for affine in _affines(graph):
        conv = graph.producer.get(affine.source)
        if conv is None or conv.op_type != "Conv" or len(graph.consumers[affine.source]) != 1:
            continue
        if not graph.owns_weights(conv) or affine.source in _graph_outputs(graph):
            continue
        bias = graph.bias(conv)
        graph.set_constant(conv.input[1], graph.weight(conv) * np.float32(affine.scale))
        graph.set_constant(conv.input[2], bias * np.float32(affine.scale) + np.float32(affine.shift))
        conv.output[0] = affine.output
        affine.add.output[0] = f"{affine.output}.unused"  # the Mul and the Add are left unread
        folded += 1
    return folded


def _hard_swishes(graph: _Graph) -> int:
    """a * clip(a + 3, 0, 6) / 6 -> a * HardSigmoid(a)."""
    folded = 0
    for add in graph.nodes("Add"):
        a, div = _hard_swish(graph, add)
        if a is None or div is None:
            continue
        gate = f"{a}.hard_sigmoid"
        alpha = 1.0 / HARD_SWISH_RANGE
        graph.graph.node.append(helper.make_node("HardSigmoid", [a], [gate], alpha=alpha, beta=0.5))
        graph.graph.node.append(helper.make_node("Mul", [a, gate], [div.output[0]]))
        div.output[0] = f"{div.output[0]}.unused"  # the written-out ops are left unread
        folded += 1
    return folded


def _hard_swish(graph: _Graph, add: Node) -> tuple[str | None, Node | None]:
    """(a, the final Div) when `add` starts a written-out hard swish of a; (None, None) if not."""
    shifted = graph.scalar(add)
    clip = graph.only_consumer(add.output[0], "Clip")
    product = clip and graph.only_consumer(clip.output[0], "Mul")
    div = product and graph.only_consumer(product.output[0], "Div")
    if not (shifted and clip and product and div) or shifted[0] != HARD_SWISH_SHIFT:
        return None, None
    a, divisor = shifted[1], graph.scalar(div)
    bounds = [graph.value(name) for name in clip.input[1:]]
    if sorted(product.input) != sorted([a, clip.output[0]]) or divisor is None:
        return None, None
    if divisor[0] != HARD_SWISH_RANGE:
        return None, None
    if [None if b is None else float(b.reshape(-1)[0]) for b in bounds] != [0.0, HARD_SWISH_RANGE]:
        return None, None
    return a, div


def _into_consumers(graph: _Graph) -> int:
    """affine -> convolutions: `s` into each one's weights, `b` into the bias of those that pad
    nothing, and one shift by `b / s` before those that pad."""
    folded = 0
    for affine in _affines(graph):
        convs = graph.consumers[affine.output]
        if affine.scale == 0.0 or not convs or affine.output in _graph_outputs(graph):
            continue
        if not all(_reads_once(graph, conv, affine.output) for conv in convs):
            continue
        padded = [conv for conv in convs if _pads(conv)]
        shifted = f"{affine.output}.shift"
        if padded:
            channels = graph.weight(padded[0]).shape[1] * _attribute(padded[0], "group", 1)
            shift = affine.shift / affine.scale
            graph.graph.node.extend(_shift(graph, affine.source, shifted, shift, channels))
        for conv in convs:
            _scale_input(graph, conv, affine, shifted if conv in padded else None)
        folded += 1
    return folded


def _reads_once(graph: _Graph, conv: Node, name: str) -> bool:
    """`conv` is a convolution of `name` (its data input only) with weights of its own."""
    return conv.op_type == "Conv" and list(conv.input).index(name) == 0 and graph.owns_weights(conv)


def _scale_input(graph: _Graph, conv: Node, affine: _Affine, shifted: str | None) -> None:
    """`conv` reads `affine.source` (or `shifted`, the source plus b / s) instead of the affine."""
    weight = graph.weight(conv)
    if shifted is None:
        bias = graph.bias(conv)  # created first when the convolution has none
        per_output = weight.reshape(weight.shape[0], -1).sum(axis=1)
        graph.set_constant(conv.input[2], bias + np.float32(affine.shift) * per_output)
    conv.input[0] = shifted or affine.source
    graph.set_constant(conv.input[1], weight * np.float32(affine.scale))


def _graph_outputs(graph: _Graph) -> set[str]:
    return {output.name for output in graph.graph.output}


def _shift(graph: _Graph, source: str, target: str, value: float, channels: int) -> list[Node]:
    """`target = source + value`, written as a BatchNormalization (scale 1, mean 0, variance 1,
    epsilon 0: exactly the sum) rather than an Add: ONNX Runtime runs that one in its blocked
    convolution layout, where an Add of a scalar makes it reorder the map out and back in."""
    names = [f"{target}.{part}" for part in ("scale", "shift", "mean", "variance")]
    values = (np.ones(channels), np.full(channels, value), np.zeros(channels), np.ones(channels))
    for name, array in zip(names, values, strict=True):
        graph.add_constant(name, array.astype(np.float32))
    return [helper.make_node("BatchNormalization", [source, *names], [target], epsilon=0.0)]


def _attribute(node: Node, name: str, default: int) -> int:
    found = [helper.get_attribute_value(a) for a in node.attribute if a.name == name]
    return int(found[0]) if found else default


def _pads(conv: Node) -> bool:
    attributes = {a.name: helper.get_attribute_value(a) for a in conv.attribute}
    auto_pad = attributes.get("auto_pad", b"NOTSET")
    return any(attributes.get("pads", [0])) or auto_pad not in (b"NOTSET", b"VALID")


def _prune(graph: onnx.GraphProto) -> None:
    """Keep only the nodes some graph output depends on, in a topological order."""
    producer = {name: node for node in graph.node for name in node.output}
    needed: set[int] = set()
    stack = [producer[o.name] for o in graph.output]
    while stack:
        node = stack.pop()
        if id(node) not in needed:
            needed.add(id(node))
            stack.extend(producer[name] for name in node.input if name in producer)
    ready = {i.name for i in graph.input} | {i.name for i in graph.initializer} | {""}
    ordered: list[Node] = []
    pending = [node for node in graph.node if id(node) in needed]
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
    kept = [onnx.NodeProto.FromString(node.SerializeToString()) for node in ordered]
    del graph.node[:]
    graph.node.extend(kept)


def fold_affine_hard_swish(model: onnx.ModelProto) -> int:
    """Rewrite `model` in place (see the module's doc); returns how many rewrites were made."""
    folded = 0
    for rewrite in (_into_producers, _hard_swishes, _into_consumers):
        folded += rewrite(_Graph(model.graph))
        _prune(model.graph)
    onnx.checker.check_model(model)
    return folded


def folded_model(data: bytes) -> bytes:
    """The serialized model with its affine + hard swish blocks folded (see the module's doc)."""
    model = onnx.load_model_from_string(data)
    fold_affine_hard_swish(model)
    serialized = model.SerializeToString(deterministic=True)
    assert isinstance(serialized, bytes)
    return serialized
