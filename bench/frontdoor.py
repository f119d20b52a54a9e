"""The gateway against Triton's own front door, on the same MNIST ensemble with the same bytes.

Paths, all asking `mnist` for PROBABILITIES of one PNG digit:

    gateway           POST /v1/mnist, multipart field `image`              (wrk)
    gateway-raw       POST /v1/mnist, application/octet-stream body         (wrk)
    triton-http       POST /v2/models/mnist/infer, binary-tensor extension  (wrk)
    triton-grpc       ModelInfer over HTTP/2, the bytes as raw_input_contents (h2load)

At each concurrency level every path runs `rounds` times, in rotating order, so that drift on
a shared machine falls on all of them alike. Each path is checked once with a real client
before it is loaded, so a body that Triton would refuse cannot pass as a fast error.
Per request, the gateway's and Triton's CPU time come from /proc over their process trees.
"""

from __future__ import annotations

import io
import json
import struct
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import grpc
import httpx
import numpy as np
import tritonclient.grpc.service_pb2 as pb
from imgproc.arrays import Floats, Pixels
from PIL import Image

from bench.loadgen import Run, Target, drive
from bench.procstat import tree_cpu_s
from bench.serving import Stack

MODEL, INPUT, OUTPUT = "mnist", "IMAGE", "PROBABILITIES"
GRPC_METHOD = "/inference.GRPCInferenceService/ModelInfer"
BOUNDARY = "benchboundary7d1e"
LEVELS = (1, 4, 16, 64)
PATHS = ("gateway", "gateway-raw", "triton-http", "triton-grpc")
NATIVE = "triton-http"
DIGIT_SIDE = 56  # a 28x28 test digit drawn at twice the size: a PNG of about 1 KB
WARMUP_S = 1


def digit_png(mnist_test_digit: Pixels) -> bytes:
    """One held-out digit as a PNG, as a client would upload it."""
    image = Image.fromarray(mnist_test_digit).resize((DIGIT_SIDE, DIGIT_SIDE), Image.Resampling.BILINEAR)
    buffer = io.BytesIO()
    image.save(buffer, "PNG")
    return buffer.getvalue()


def multipart_body(image: bytes) -> bytes:
    head = f'--{BOUNDARY}\r\nContent-Disposition: form-data; name="image"; filename="digit.png"\r\n'
    return head.encode() + b"Content-Type: image/png\r\n\r\n" + image + f"\r\n--{BOUNDARY}--\r\n".encode()


def binary_tensor_body(image: bytes) -> tuple[bytes, int]:
    """Triton's binary-tensor request: a JSON header, then the raw bytes; and the header length."""
    header = {
        "inputs": [
            {
                "name": INPUT,
                "shape": [1, len(image)],
                "datatype": "UINT8",
                "parameters": {"binary_data_size": len(image)},
            }
        ],
        "outputs": [{"name": OUTPUT, "parameters": {"binary_data": False}}],
    }
    encoded = json.dumps(header).encode()
    return encoded + image, len(encoded)


def infer_request(image: bytes) -> bytes:
    """A serialized ModelInferRequest carrying the bytes as raw_input_contents."""
    request = pb.ModelInferRequest(model_name=MODEL)
    tensor = request.inputs.add(name=INPUT, datatype="UINT8")
    tensor.shape.extend([1, len(image)])
    request.outputs.add(name=OUTPUT)
    request.raw_input_contents.append(image)
    serialized: bytes = request.SerializeToString()
    return serialized


def grpc_frame(message: bytes) -> bytes:
    """gRPC's length-prefixed message: not compressed, 4-byte big-endian length."""
    return b"\x00" + struct.pack(">I", len(message)) + message


def targets(stack: Stack, image: bytes) -> dict[str, Target]:
    tensor, header_length = binary_tensor_body(image)
    grpc_host = stack.triton_grpc
    return {
        "gateway": Target(
            "gateway", f"{stack.gateway_url}/v1/mnist",
            (f"Content-Type: multipart/form-data; boundary={BOUNDARY}",), multipart_body(image), "http1",
        ),
        "gateway-raw": Target(
            "gateway-raw", f"{stack.gateway_url}/v1/mnist",
            ("Content-Type: application/octet-stream",), image, "http1",
        ),
        "triton-http": Target(
            "triton-http", f"{stack.triton_http}/v2/models/{MODEL}/infer",
            ("Content-Type: application/octet-stream", f"Inference-Header-Content-Length: {header_length}"),
            tensor, "http1",
        ),
        "triton-grpc": Target(
            "triton-grpc", f"http://{grpc_host}{GRPC_METHOD}",
            ("content-type: application/grpc", "te: trailers"), grpc_frame(infer_request(image)), "grpc",
        ),
    }  # fmt: skip


def probe(target: Target) -> Floats:
    """Send the target's exact body once with a real client; the probabilities it returns."""
    if target.protocol == "grpc":
        host = target.url.removeprefix("http://").split("/", 1)[0]
        with grpc.insecure_channel(host) as channel:
            call = channel.unary_unary(GRPC_METHOD, response_deserializer=pb.ModelInferResponse.FromString)
            reply = call(target.body[5:], timeout=30)
        return np.frombuffer(reply.raw_output_contents[0], np.float32)
    headers = dict(header.split(": ", 1) for header in target.headers)
    response = httpx.post(target.url, content=target.body, headers=headers, timeout=30)
    response.raise_for_status()
    answer = response.json()
    values = answer["probabilities"] if "probabilities" in answer else answer["outputs"][0]["data"]
    return np.asarray(values, np.float32)


@dataclass(frozen=True)
class Sample:
    path: str
    connections: int
    run: Run
    gateway_cpu_s: float
    triton_cpu_s: float


def measure(stack: Stack, target: Target, connections: int, duration_s: int) -> Sample:
    gateway_before, triton_before = tree_cpu_s(stack.gateway_pid), tree_cpu_s(stack.triton_pid)
    run = drive(target, connections, duration_s)
    gateway_cpu = tree_cpu_s(stack.gateway_pid) - gateway_before
    return Sample(target.name, connections, run, gateway_cpu, tree_cpu_s(stack.triton_pid) - triton_before)


def alternate(
    stack: Stack, chosen: Sequence[Target], levels: Sequence[int], rounds: int, duration_s: int
) -> list[Sample]:
    """Every target at every level, `rounds` times each, in rotating order within a level."""
    samples = []
    for connections in levels:
        for target in chosen:
            drive(target, connections, WARMUP_S)  # connections, caches and batcher settle first
        for round_index in range(rounds):
            shift = round_index % len(chosen)
            for target in [*chosen[shift:], *chosen[:shift]]:
                samples.append(measure(stack, target, connections, duration_s))
    return samples


@dataclass(frozen=True)
class Row:
    """One path at one level, over all its rounds: totals, and the median round's percentiles."""

    path: str
    connections: int
    rps: float
    p50_ms: float
    p95_ms: float
    p99_ms: float
    errors: int
    gateway_cpu_ms: float
    triton_cpu_ms: float
    generator_cpu_ms: float


def summarise(samples: Sequence[Sample]) -> list[Row]:
    keys = dict.fromkeys((s.path, s.connections) for s in samples)
    rows = []
    for path, connections in keys:
        group = [s for s in samples if (s.path, s.connections) == (path, connections)]
        requests = sum(s.run.requests for s in group) or 1

        def per_request_ms(total_s: float, n: int = requests) -> float:
            return 1000 * total_s / n

        rows.append(
            Row(
                path,
                connections,
                rps=sum(s.run.requests for s in group) / sum(s.run.duration_s for s in group),
                p50_ms=float(np.median([s.run.p50_ms for s in group])),
                p95_ms=float(np.median([s.run.p95_ms for s in group])),
                p99_ms=float(np.median([s.run.p99_ms for s in group])),
                errors=sum(s.run.errors for s in group),
                gateway_cpu_ms=per_request_ms(sum(s.gateway_cpu_s for s in group)),
                triton_cpu_ms=per_request_ms(sum(s.triton_cpu_s for s in group)),
                generator_cpu_ms=per_request_ms(sum(s.run.generator_cpu_s for s in group)),
            )
        )
    return rows


def results_table(rows: Sequence[Row]) -> str:
    columns = (
        "path | conns | req/s | p50 ms | p95 ms | p99 ms | errors | gateway CPU | Triton CPU | generator CPU"
    )
    lines = [f"| {columns} |", "|---" * len(columns.split("|")) + "|"]
    for r in sorted(rows, key=lambda r: (PATHS.index(r.path), r.connections)):
        lines.append(
            f"| {r.path} | {r.connections} | {r.rps:.0f} | {r.p50_ms:.2f} | {r.p95_ms:.2f} | {r.p99_ms:.2f} "
            f"| {r.errors} | {r.gateway_cpu_ms:.2f} | {r.triton_cpu_ms:.2f} | {r.generator_cpu_ms:.2f} |"
        )
    return "\n".join(lines)


def ratio_table(rows: Sequence[Row]) -> str:
    """Each gateway path against Triton's HTTP endpoint at the same level, from the same run."""
    by_key = {(r.path, r.connections): r for r in rows}
    lines = ["| path | conns | req/s ÷ triton-http | p50 − triton-http ms |", "|---|---|---|---|"]
    for r in sorted(rows, key=lambda r: (PATHS.index(r.path), r.connections)):
        native = by_key.get((NATIVE, r.connections))
        if r.path.startswith("gateway") and native is not None:
            lines.append(
                f"| {r.path} | {r.connections} | {r.rps / native.rps:.2f} | {r.p50_ms - native.p50_ms:+.2f} |"
            )
    return "\n".join(lines)


def plot(rows: Sequence[Row], path: Path) -> None:
    """Latency (p50, with p95 dashed) against throughput, one line per path, one dot per level."""
    import matplotlib  # noqa: PLC0415 - only the full benchmark draws

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt  # noqa: PLC0415

    figure, axes = plt.subplots(figsize=(8, 5), dpi=120)
    for name in PATHS:
        line = sorted((r for r in rows if r.path == name), key=lambda r: r.connections)
        if not line:
            continue
        (drawn,) = axes.plot([r.rps for r in line], [r.p50_ms for r in line], "o-", label=f"{name} p50")
        axes.plot([r.rps for r in line], [r.p95_ms for r in line], "--", color=drawn.get_color(), alpha=0.5)
        for r in line:
            axes.annotate(
                f"c{r.connections}", (r.rps, r.p50_ms), textcoords="offset points", xytext=(4, 4), fontsize=7
            )
    axes.set_yscale("log")
    axes.set_xlabel("throughput (requests/s)")
    axes.set_ylabel("latency (ms; p50 solid, p95 dashed)")
    axes.set_title("POST mnist: gateway vs Triton's own HTTP and gRPC endpoints")
    axes.grid(True, which="both", alpha=0.3)
    axes.legend()
    figure.tight_layout()
    figure.savefig(path)
    plt.close(figure)


def check_paths(chosen: Sequence[Target]) -> None:
    """Every path must give the same answer to the same bytes before any of them is timed."""
    answers = {target.name: probe(target) for target in chosen}
    first = next(iter(answers.values()))
    for name, answer in answers.items():
        if answer.shape != (10,) or not np.allclose(answer, first, atol=1e-5):
            raise RuntimeError(f"{name} answered {answer}, not the {first} of the other paths")


def run(
    stack: Stack,
    image: bytes,
    out: Path,
    levels: Sequence[int] = LEVELS,
    rounds: int = 3,
    duration_s: int = 5,
    paths: Sequence[str] = PATHS,
) -> tuple[str, list[Row]]:
    """The whole comparison: Markdown for BENCHMARKS.md, and the rows; the plot goes to `out`.

    CPU columns are milliseconds of CPU per request, over each process tree."""
    every = targets(stack, image)
    chosen = [every[name] for name in paths]
    check_paths(chosen)
    rows = summarise(alternate(stack, chosen, levels, rounds, duration_s))
    out.mkdir(parents=True, exist_ok=True)
    plot(rows, out / "frontdoor.png")
    text = "\n".join(
        [
            f"### Gateway vs Triton's front door (mnist, a {len(image)}-byte PNG)",
            "",
            f"{rounds} rounds of {duration_s:g} s per path and level, alternating; req/s over all rounds,"
            " percentiles the median round's.",
            "",
            results_table(rows),
            "",
            ratio_table(rows),
        ]
    )
    return text, rows
