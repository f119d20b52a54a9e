"""Compiled load generators driven from Python: wrk for HTTP/1.1, h2load for gRPC (HTTP/2).

Both run closed-loop: N connections, each sending its next request when the last one returns.
One generator thread each, so the generator takes as little of the CPU being measured as it can.
They return the same `Run`, so the harness can put the paths side by side.

wrk's report comes from `wrk_post.lua`'s `done()` as one JSON line. h2load has no
percentiles, so its per-request log (`--log-file`: start µs, HTTP status, duration µs) is read.
"""

from __future__ import annotations

import json
import os
import re
import resource
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from imgproc.arrays import Ints

WRK_SCRIPT = Path(__file__).with_name("wrk_post.lua")
WRK_ERROR_KINDS = ("connect", "read", "write", "status", "timeout")
REQUEST_TIMEOUT_S = 10
US_PER_S = 1e6
# gRPC always answers HTTP 200; a failed call is told in the grpc-status trailer, which h2load
# does not read. The harness therefore checks the body once with a real gRPC client first.
H2LOAD_OK = re.compile(r"status codes: (\d+) 2xx")
H2LOAD_FINISHED = re.compile(r"finished in ([\d.]+)(ms|s),")


class LoadGeneratorError(RuntimeError):
    """The generator is missing, failed, or printed something the harness cannot read."""


@dataclass(frozen=True)
class Target:
    """One way of asking for the same inference: where, with which headers and body."""

    name: str
    url: str
    headers: tuple[str, ...]
    body: bytes
    protocol: str  # "http1" (wrk) or "grpc" (h2load)


@dataclass(frozen=True)
class Run:
    """What one generator run measured."""

    requests: int
    errors: int
    duration_s: float
    p50_ms: float
    p95_ms: float
    p99_ms: float
    generator_cpu_s: float

    @property
    def rps(self) -> float:
        return self.requests / self.duration_s if self.duration_s else 0.0


def require(tool: str) -> str:
    """The tool's path; raises LoadGeneratorError naming the Debian package otherwise."""
    path = shutil.which(tool)
    if path is None:
        package = {"wrk": "wrk", "h2load": "nghttp2-client"}[tool]
        raise LoadGeneratorError(f"{tool} is not installed (Debian package {package}; `make setup`)")
    return path


def children_cpu_s() -> float:
    """CPU seconds of every child process this process has waited for so far."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def parse_wrk(stdout: str) -> dict[str, int]:
    """The JSON line `wrk_post.lua` prints at the end of a run."""
    for line in reversed(stdout.splitlines()):
        if line.startswith("{"):
            parsed: dict[str, int] = json.loads(line)
            return parsed
    raise LoadGeneratorError(f"wrk printed no summary:\n{stdout[-2000:]}")


def parse_h2load_log(text: str) -> tuple[Ints, Ints]:
    """(HTTP status, duration in µs) of every request in an h2load --log-file."""
    rows = np.array([line.split("\t") for line in text.splitlines() if line.strip()], dtype=np.int64)
    if rows.size == 0:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    return rows[:, 1], rows[:, 2]


def _run(command: list[str], env: dict[str, str] | None, timeout_s: float) -> tuple[str, float]:
    cpu_before = children_cpu_s()
    try:
        done = subprocess.run(
            command, capture_output=True, text=True, env=env, timeout=timeout_s, check=False
        )
    except subprocess.TimeoutExpired as exc:
        raise LoadGeneratorError(f"{command[0]} did not finish in {timeout_s:.0f} s") from exc
    if done.returncode != 0:
        raise LoadGeneratorError(f"{' '.join(command)} failed ({done.returncode}):\n{done.stderr[-2000:]}")
    return done.stdout, children_cpu_s() - cpu_before


def wrk(target: Target, connections: int, duration_s: int, timeout_s: int = REQUEST_TIMEOUT_S) -> Run:
    """POST target.body over `connections` keep-alive HTTP/1.1 connections for duration_s;
    a request unanswered after timeout_s counts as an error."""
    with tempfile.NamedTemporaryFile(suffix=".body") as body:
        body.write(target.body)
        body.flush()
        command = [
            require("wrk"),
            "-t1",
            f"-c{connections}",
            f"-d{duration_s}s",
            f"--timeout={timeout_s}s",
        ]
        command += [arg for header in target.headers for arg in ("-H", header)]
        command += ["-s", str(WRK_SCRIPT), target.url]
        stdout, cpu = _run(command, {**os.environ, "BENCH_BODY": body.name}, duration_s + 30)
    summary = parse_wrk(stdout)
    return Run(
        requests=summary["requests"],
        errors=sum(summary[kind] for kind in WRK_ERROR_KINDS),
        duration_s=summary["duration_us"] / US_PER_S,
        p50_ms=summary["p50_us"] / 1000,
        p95_ms=summary["p95_us"] / 1000,
        p99_ms=summary["p99_us"] / 1000,
        generator_cpu_s=cpu,
    )


def h2load(target: Target, connections: int, duration_s: int) -> Run:
    """POST target.body as gRPC over `connections` HTTP/2 connections, one stream each."""
    with tempfile.TemporaryDirectory() as folder:
        body, log = Path(folder) / "body", Path(folder) / "log"
        body.write_bytes(target.body)
        command = [require("h2load"), "-t1", f"-c{connections}", "-m1", f"-D{duration_s}", f"-d{body}"]
        command += [arg for header in target.headers for arg in ("-H", header)]
        command += [f"--log-file={log}", f"-T{REQUEST_TIMEOUT_S}", target.url]
        stdout, cpu = _run(command, None, duration_s + 30)
        statuses, durations_us = parse_h2load_log(log.read_text())
    finished = H2LOAD_FINISHED.search(stdout)
    if finished is None or not H2LOAD_OK.search(stdout) or durations_us.size == 0:
        raise LoadGeneratorError(f"h2load completed no request:\n{stdout[-2000:]}")
    elapsed_s = float(finished[1]) / (1000 if finished[2] == "ms" else 1)
    p50, p95, p99 = np.percentile(durations_us, (50, 95, 99)) / 1000
    return Run(
        requests=int(durations_us.size),
        errors=int(np.count_nonzero(statuses != 200)),
        duration_s=elapsed_s,
        p50_ms=float(p50),
        p95_ms=float(p95),
        p99_ms=float(p99),
        generator_cpu_s=cpu,
    )


def drive(target: Target, connections: int, duration_s: int) -> Run:
    """Load `target` with the generator its protocol needs."""
    return (h2load if target.protocol == "grpc" else wrk)(target, connections, duration_s)
