"""One gateway balanced over two Tritons run as `python -m gateway triton`, one killed under load.

Two real Tritons (mnist only, to stay light) in their own processes, one real gateway whose
`triton_url` lists both. Triton's own statistics (`/v2/models/mnist/stats`) show both serve;
SIGKILL of one Triton's server under load costs at most a handful of requests; the survivor
takes everything after; the killed one, started again on its ports, gets traffic again.
Readiness needs every Triton the gateway balances over to hold every required model.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

import cv2
import httpx
import pytest

from evaluation.support.digits import load_mnist
from evaluation.support.servers import free_port, serve_gateway, wait_until_ok
from gateway.local_triton import PROJECT_ROOT
from gateway.settings import Settings

pytestmark = pytest.mark.integration
TRITON_READY_TIMEOUT_S = 180.0
BANNER = re.compile(r"^Triton  : .* pid (\d+) ", re.MULTILINE)
LOAD_THREADS = 4
LOAD_BEFORE_KILL_S = 1.5
LOAD_AFTER_KILL_S = 4.0
MAX_FAILED_REQUESTS = 5  # in flight on the killed Triton when it died, at most
BALANCE_REQUESTS = 40
MNIST = ("mnist",)  # the ensemble; explicit model control loads its steps with it
READY_ASKS = 4  # round-robin over two Tritons: asked by turns, two models would pass every other time


@dataclass
class TritonProcess:
    """`python -m gateway triton` on fixed ports, so that it can come back on the same ones."""

    models: tuple[str, ...] = MNIST
    http: int = field(default_factory=free_port)
    grpc: int = field(default_factory=free_port)
    metrics: int = field(default_factory=free_port)
    process: subprocess.Popen[str] | None = None

    def start(self) -> None:
        command = [sys.executable, "-m", "gateway", "triton"]
        command += [argument for model in self.models for argument in ("--model", model)]
        command += ["--http-port", str(self.http), "--grpc-port", str(self.grpc)]
        command += ["--metrics-port", str(self.metrics)]
        self.process = subprocess.Popen(
            command, cwd=PROJECT_ROOT, stdout=subprocess.PIPE, text=True, start_new_session=True
        )
        wait_until_ok(f"http://127.0.0.1:{self.http}/v2/health/ready", self.process, TRITON_READY_TIMEOUT_S)

    def server_pid(self) -> int:
        """The tritonserver's pid, from the command's banner line."""
        assert self.process is not None and self.process.stdout is not None
        match = BANNER.match(self.process.stdout.readline())
        assert match, "no banner from `python -m gateway triton`"
        return int(match[1])

    def inferences(self) -> int:
        """Successful mnist inferences this server counted (its own statistics)."""
        stats = httpx.get(f"http://127.0.0.1:{self.http}/v2/models/mnist/stats", timeout=5).json()
        return int(stats["model_stats"][0]["inference_stats"]["success"]["count"])

    def stop(self) -> None:
        if self.process is None:
            return
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait()
        if self.process.stdout is not None:
            self.process.stdout.close()


@contextmanager
def tritons(*model_sets: tuple[str, ...]) -> Iterator[list[TritonProcess]]:
    """One `python -m gateway triton` per set of models, all stopped at the end."""
    servers = [TritonProcess(models) for models in model_sets]
    try:
        for server in servers:
            server.start()
        yield servers
    finally:
        for server in servers:
            server.stop()


@dataclass
class Load:
    """Threads posting one digit in a loop; every answer's status and time is kept."""

    url: str
    image: bytes
    results: list[tuple[float, int]] = field(default_factory=list)
    stop: threading.Event = field(default_factory=threading.Event)

    def worker(self) -> None:
        with httpx.Client(base_url=self.url, timeout=30) as client:
            while not self.stop.is_set():
                try:
                    status = client.post("/v1/mnist", files={"image": ("d.png", self.image)}).status_code
                except httpx.TransportError:
                    status = 0
                self.results.append((time.monotonic(), status))

    @contextmanager
    def running(self) -> Iterator[Load]:
        threads = [threading.Thread(target=self.worker) for _ in range(LOAD_THREADS)]
        for thread in threads:
            thread.start()
        try:
            yield self
        finally:
            self.stop.set()
            for thread in threads:
                thread.join(timeout=60)


def digit_png() -> bytes:
    images, _ = load_mnist("heldout")
    return cv2.imencode(".png", images[0])[1].tobytes()


def assert_a_dns_target_serves(server: TritonProcess, image: bytes) -> None:
    """`dns:///name:port`, the form a Kubernetes headless Service is named by, reaches Triton."""
    settings = Settings(triton_url=f"dns:///localhost:{server.grpc}", ready_models=("mnist",))
    with serve_gateway(settings) as gateway:
        assert httpx.get(f"{gateway}/readyz", timeout=10).status_code == 200
        response = httpx.post(f"{gateway}/v1/mnist", files={"image": ("d.png", image)}, timeout=30)
        assert response.status_code == 200


def test_one_gateway_spreads_over_two_tritons_and_survives_losing_one() -> None:
    image = digit_png()
    with tritons(MNIST, MNIST) as (first, second):
        url = f"127.0.0.1:{first.grpc},127.0.0.1:{second.grpc}"
        settings = Settings(triton_url=url, ready_models=("mnist",))
        with serve_gateway(settings) as gateway, httpx.Client(base_url=gateway, timeout=30) as http:
            statuses = [
                http.post("/v1/mnist", files={"image": ("d.png", image)}).status_code
                for _ in range(BALANCE_REQUESTS)
            ]
            assert statuses == [200] * BALANCE_REQUESTS
            served = [first.inferences(), second.inferences()]
            print(f"requests served per Triton: {served}")  # noqa: T201
            assert sum(served) == BALANCE_REQUESTS and min(served) >= BALANCE_REQUESTS // 4
            assert_a_dns_target_serves(first, image)

            killed_pid = first.server_pid()
            before_second = second.inferences()
            with Load(gateway, image).running() as load:
                time.sleep(LOAD_BEFORE_KILL_S)
                killed_at = time.monotonic()
                os.killpg(killed_pid, signal.SIGKILL)
                time.sleep(LOAD_AFTER_KILL_S)
            after = [status for at, status in load.results if at >= killed_at]
            failures = [status for status in after if status != 200]
            last_failure = max((at - killed_at for at, status in load.results if status != 200), default=0.0)
            print(  # noqa: T201
                f"after the kill: {len(after)} requests, failures {failures}, last {last_failure:.2f} s after"
            )
            assert len(failures) <= MAX_FAILED_REQUESTS, failures
            assert len(after) - len(failures) >= 2 * LOAD_THREADS
            assert second.inferences() - before_second >= len(after) - len(failures)
            assert http.get("/readyz").status_code == 200

            first.stop()
            first.start()
            time.sleep(1.0)  # the channel's reconnect back-off is at most a second
            statuses = [
                http.post("/v1/mnist", files={"image": ("d.png", image)}).status_code
                for _ in range(BALANCE_REQUESTS)
            ]
            assert statuses == [200] * BALANCE_REQUESTS
            assert first.inferences() >= BALANCE_REQUESTS // 4, "the restarted Triton gets no traffic"


def test_readiness_needs_every_triton_to_hold_every_required_model() -> None:
    # Each Triton holds one of the two models: a request for the other could reach it.
    required = ("mnist_preprocess", "mnist_classifier")
    with tritons(required[:1], required[1:]) as (first, second):
        url = f"127.0.0.1:{first.grpc},127.0.0.1:{second.grpc}"
        settings = Settings(triton_url=url, ready_models=required)
        with serve_gateway(settings) as gateway:
            answers = [httpx.get(f"{gateway}/readyz", timeout=30) for _ in range(READY_ASKS)]
    assert [answer.status_code for answer in answers] == [503] * READY_ASKS
    message = answers[0].json()["error"]["message"]
    assert "model mnist_classifier not ready on 1 of 2 tritons" in message
    assert "model mnist_preprocess not ready on 1 of 2 tritons" in message
