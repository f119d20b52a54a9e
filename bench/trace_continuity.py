"""Whether Triton continues the trace it is given: the same MNIST requests, each with a fresh
W3C `traceparent`, sent straight to Triton over gRPC and over HTTP, counting the requests whose
trace holds Triton's spans.

One Triton (MNIST models only) runs with the tracing flags `serve` gives it (rate 0: it traces
only the requests that arrive with a context) and exports to an OTLP/HTTP receiver in this
process. A request whose context Triton did not take leaves no span under its trace id.

    .venv/bin/python -m bench.trace_continuity [--requests N]
"""

from __future__ import annotations

import argparse
import secrets
import time
from collections.abc import Callable

import numpy as np
import tritonclient.grpc as grpcclient
import tritonclient.http as httpclient
from imgproc.arrays import Pixels

from bench.frontdoor import digit_png
from evaluation.support.digits import load_mnist
from evaluation.support.otlp import OtlpReceiver, otlp_receiver
from gateway.local_triton import LocalTriton, only_models
from gateway.otlp import otlp_target, triton_trace_args

MNIST_MODELS = ("mnist_preprocess", "mnist_classifier", "mnist")
SETTLE_S = 8.0  # Triton's batch processor sends every 5 s (its default): one batch and then some
PROTOCOLS = ("gRPC", "HTTP")
Send = Callable[[Pixels, str], None]


def traceparent() -> tuple[str, str]:
    """A fresh sampled context and its trace id."""
    trace_id = secrets.token_hex(16)
    return f"00-{trace_id}-{secrets.token_hex(8)}-01", trace_id


def sender(protocol: str, triton: LocalTriton) -> Send:
    """Sends MNIST one image over `protocol` ("gRPC" or "HTTP": the two clients share their
    API), with the context it is given as the `traceparent` header."""
    client_lib = grpcclient if protocol == "gRPC" else httpclient
    url = triton.grpc_url if protocol == "gRPC" else triton.http_url.removeprefix("http://")
    client = client_lib.InferenceServerClient(url)

    def send(image: Pixels, context: str) -> None:
        request = client_lib.InferInput("IMAGE", list(image.shape), "UINT8")
        request.set_data_from_numpy(image)
        client.infer("mnist", [request], headers={"traceparent": context})

    return send


def continued(receiver: OtlpReceiver, send: Send, image: Pixels, requests: int) -> int:
    """How many of `requests` requests Triton traced under the context they carried."""
    trace_ids = []
    for _ in range(requests):
        context, trace_id = traceparent()
        send(image, context)
        trace_ids.append(trace_id)
    time.sleep(SETTLE_S)
    return sum(bool(receiver.trace(trace_id)) for trace_id in trace_ids)


def measure(requests: int) -> list[tuple[str, int]]:
    """Per protocol, how many of `requests` requests Triton traced under their own context."""
    images, _ = load_mnist("all")
    image = np.frombuffer(digit_png(images[0]), dtype=np.uint8)[None]
    with otlp_receiver() as receiver:
        tracing = triton_trace_args(otlp_target({"OTEL_EXPORTER_OTLP_ENDPOINT": receiver.url}))
        with LocalTriton(extra_args=(*only_models(MNIST_MODELS), *tracing)) as triton:
            return [
                (protocol, continued(receiver, sender(protocol, triton), image, requests))
                for protocol in PROTOCOLS
            ]


def table(rows: list[tuple[str, int]], requests: int) -> str:
    lines = ["| protocol | requests | traces continued | lost |", "|---|---|---|---|"]
    lines += [f"| {name} | {requests} | {kept} | {requests - kept} |" for name, kept in rows]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.trace_continuity")
    parser.add_argument("--requests", type=int, default=200, help="requests per protocol")
    requests = parser.parse_args().requests
    print(table(measure(requests), requests))


if __name__ == "__main__":
    main()
