"""What tracing costs: POST /v1/mnist at 16 connections with every request traced, against the
same with tracing off, side by side.

Three stacks from this process tree, MNIST models only, started as `serve` starts them: one
with tracing off (`OTEL_SDK_DISABLED=true`: no provider, no spans); one tracing every request
(`OTEL_TRACES_SAMPLER=always_on`) in the gateway and in Triton (the flags `serve` gives it),
the target's configuration; and, to tell the two shares apart, one tracing in the gateway
alone (its Triton without tracing flags ignores the context). They export to an OTLP/HTTP
receiver in this process that reads every export and counts its spans. The
receiver (the collector) works on the same two cores, so the traced figure carries a cost that
production puts on another machine: if anything, the ratio is pessimistic. Rounds alternate
which arm goes first, so that drift on a shared machine falls on both alike; the spans that
came in are counted, so that "every request traced" is checked, not assumed.
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import replace

from bench.frontdoor import WARMUP_S, Row, Sample, check_paths, measure, summarise, targets
from bench.loadgen import drive
from bench.serving import Stack, split_cores
from evaluation.support.otlp import OtlpReceiver, otlp_receiver
from evaluation.support.servers import gateway_process
from gateway.local_triton import LocalTriton, only_models
from gateway.otlp import otlp_target, triton_trace_args

CONNECTIONS = 16
TARGET_RATIO = 0.95  # traced throughput at least this share of untraced (issue 41)
MNIST_MODELS = ("mnist_preprocess", "mnist_classifier", "mnist")
OFF, GATEWAY_ONLY, TRACED = "tracing off", "gateway traced", "gateway and Triton traced"
FLUSH_S = 30.0  # spans still queued at the end arrive within the batch delay (5 s) and then some
FLUSH_POLL_S = 6.0  # longer than the exporters' batch delay: a count unchanged over it is final
GATEWAY_SPAN, TRITON_SPAN = "POST /v1/mnist", "InferRequest"


class ArmDown(RuntimeError):
    """An arm answered none of its timed requests: its Triton stopped serving."""


@contextmanager
def arm(env: Mapping[str, str], triton_args: Sequence[str]) -> Iterator[tuple[Stack, LocalTriton]]:
    """A local Triton (MNIST only) and a gateway process in front of it, with `env`."""
    extra = (*only_models(MNIST_MODELS), *triton_args)
    with LocalTriton(extra_args=extra) as triton, gateway_process(triton.grpc_url, env=dict(env)) as gateway:
        yield Stack(gateway.url, gateway.pid, triton.grpc_url, triton.http_url, triton.pid), triton


def check_served(samples: Sequence[Sample], tritons: Mapping[str, LocalTriton]) -> None:
    """Raises `ArmDown` with the Triton's state and log where every timed request of an arm
    failed. Once in a full test run the traced arm's Triton stopped serving after its path
    check (its CPU 0, every request an error) and its log went with its working directory:
    its end is kept here for the next time."""
    for name, triton in tritons.items():
        runs = [s.run for s in samples if s.path == name]
        if runs and all(run.errors >= run.requests for run in runs):
            state = "running" if triton.is_running() else f"exited with {triton.returncode()}"
            raise ArmDown(f"{name}: every timed request failed; its Triton is {state}\n{triton.log_tail()}")


def alternate(arms: dict[str, Stack], image: bytes, rounds: int, duration_s: int) -> list[Sample]:
    """Every arm once a round, the order rotated from round to round."""
    chosen = {name: replace(targets(stack, image)["gateway"], name=name) for name, stack in arms.items()}
    check_paths(list(chosen.values()))
    for target in chosen.values():
        drive(target, CONNECTIONS, WARMUP_S)
    names, samples = list(arms), []
    for round_index in range(rounds):
        shift = round_index % len(names)
        for name in [*names[shift:], *names[:shift]]:
            samples.append(measure(arms[name], chosen[name], CONNECTIONS, duration_s))
    return samples


def settled(receiver: OtlpReceiver) -> tuple[int, int]:
    """(gateway, Triton) request spans received, once no more arrive (or after FLUSH_S)."""
    deadline, last = time.monotonic() + FLUSH_S, (-1, -1)
    while time.monotonic() < deadline:
        counts = (receiver.counts[GATEWAY_SPAN], receiver.counts[TRITON_SPAN])
        if counts == last:
            return counts
        last = counts
        time.sleep(FLUSH_POLL_S)
    return last


def table(rows: Sequence[Row]) -> str:
    lines = [
        "| arm | req/s | p50 ms | p95 ms | p99 ms | errors | gateway CPU ms/req | Triton CPU ms/req |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append(
            f"| {r.path} | {r.rps:.0f} | {r.p50_ms:.2f} | {r.p95_ms:.2f} | {r.p99_ms:.2f} | {r.errors} "
            f"| {r.gateway_cpu_ms:.2f} | {r.triton_cpu_ms:.2f} |"
        )
    return "\n".join(lines)


def run(image: bytes, rounds: int = 3, duration_s: int = 5, split: bool = False) -> tuple[str, float]:
    """Markdown for BENCHMARKS.md, and traced ÷ off throughput. `split`: each Triton on half
    the CPUs, the gateways, the load and the receiver on the rest (bench.serving.split_cores)."""
    with otlp_receiver(keep=False) as receiver:  # counted, not kept: as light as a collector can be
        traced_env = {"OTEL_EXPORTER_OTLP_ENDPOINT": receiver.url, "OTEL_TRACES_SAMPLER": "always_on"}
        triton_args = triton_trace_args(otlp_target(traced_env))
        with (
            arm({"OTEL_SDK_DISABLED": "true"}, ()) as off,
            arm(traced_env, ()) as gateway_only,
            arm(traced_env, triton_args) as traced,
        ):
            arms = {OFF: off, GATEWAY_ONLY: gateway_only, TRACED: traced}
            stacks = {name: stack for name, (stack, _) in arms.items()}
            cores = split_cores(*stacks.values()) if split else "Every process on every CPU."
            samples = alternate(stacks, image, rounds, duration_s)
            check_served(samples, {name: triton for name, (_, triton) in arms.items()})
            gateway_spans, triton_spans = settled(receiver)
    rows = {row.path: row for row in summarise(samples)}
    ratio = rows[TRACED].rps / rows[OFF].rps
    measured = sum(s.run.requests for s in samples if s.path != OFF)
    text = "\n".join(
        [
            f"### Tracing's cost (mnist, {CONNECTIONS} connections, a {len(image)}-byte PNG)",
            "",
            f"{rounds} rounds of {duration_s:g} s per arm, alternating; req/s over all rounds, percentiles"
            f" the median round's. {cores}",
            "",
            table([rows[OFF], rows[GATEWAY_ONLY], rows[TRACED]]),
            "",
            f"Gateway and Triton traced ÷ off: **{ratio:.3f}x** the throughput (target ≥ {TARGET_RATIO}x);"
            f" the gateway's tracing alone: {rows[GATEWAY_ONLY].rps / rows[OFF].rps:.3f}x. Spans received:"
            f" {gateway_spans} gateway request spans and {triton_spans} Triton request spans for"
            f" {measured} timed traced requests (plus the warm-ups and the checks; Triton's from one arm).",
        ]
    )
    return text, ratio
