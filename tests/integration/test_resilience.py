"""Faults injected for real: a Triton killed under load heals by itself, the gateway's channel
comes back within about a second of Triton's return, and SIGTERM loses no accepted request.

Each test runs its own processes (`python -m gateway serve`, or a LocalTriton serving only
the MNIST models so that it restarts quickly) and prints how long each recovery took.
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

import cv2
import httpx
import pytest

from evaluation.support.digits import load_mnist
from evaluation.support.servers import free_port, serve_gateway, wait_until_ok
from gateway.local_triton import PROJECT_ROOT, LocalTriton, only_models
from gateway.settings import Settings
from tests.support.load import Load, stop, threads

pytestmark = pytest.mark.integration
READY_TIMEOUT_S = 240.0
HEAL_TIMEOUT_S = 300.0
# Not a speed target (that is the printed figure, about 1 s here): gRPC's default back-off had
# grown to 8-10 s after a restart, so a bound well under that shows the capped back-off works.
RECONNECT_BOUND_S = 5.0
TRITON_PID = re.compile(r"^Triton  : .* pid (\d+) ", re.MULTILINE)
RESTARTED_PID = re.compile(r"tritonserver is back \(restart \d+\), pid (\d+)")
MNIST_MODELS = ("mnist_preprocess", "mnist_classifier", "mnist")  # the ensemble and its steps


def digit_png() -> bytes:
    images, _ = load_mnist("heldout")
    return cv2.imencode(".png", images[7])[1].tobytes()


@pytest.fixture
def serve() -> Iterator[tuple[subprocess.Popen[str], str, int, list[str]]]:
    """`python -m gateway serve` with its own local Triton serving MNIST only (it restarts in
    seconds): (process, URL, Triton's first pid, its output so far)."""
    port = free_port()
    env = {**os.environ, "PYTHONUNBUFFERED": "1", "GATEWAY_READY_MODELS": '["mnist"]'}
    command = [sys.executable, "-m", "gateway", "serve", "--host", "127.0.0.1", "--port", str(port)]
    process = subprocess.Popen(
        [*command, "--models", ",".join(MNIST_MODELS)],
        cwd=PROJECT_ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env,
    )  # fmt: skip
    url = f"http://127.0.0.1:{port}"
    output: list[str] = []
    reader = threading.Thread(target=_collect, args=(process, output), daemon=True)
    reader.start()  # read as it comes: a full pipe would block the server
    try:
        wait_until_ok(f"{url}/readyz", process, READY_TIMEOUT_S)
        match = TRITON_PID.search("".join(output))
        assert match, "".join(output)
        yield process, url, int(match[1]), output
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGINT)
            process.wait(timeout=120)
        reader.join(timeout=10)
        if process.stdout is not None:
            process.stdout.close()
        print("".join(output)[-3000:])  # noqa: T201 - shown when a test fails


def _collect(process: subprocess.Popen[str], output: list[str]) -> None:
    assert process.stdout is not None
    for line in process.stdout:
        output.append(line)


def test_a_killed_triton_heals_and_sigterm_loses_no_request(
    serve: tuple[subprocess.Popen[str], str, int, list[str]],
) -> None:
    process, url, triton_pid, output = serve
    load = Load(url, digit_png())
    workers = threads(load, 2)
    time.sleep(1.0)
    killed = time.monotonic()
    os.kill(triton_pid, signal.SIGKILL)
    assert httpx.get(f"{url}/readyz", timeout=5).status_code == 503
    deadline = killed + HEAL_TIMEOUT_S
    while not any(t > killed + 0.5 and status == 200 for t, status, _, _ in load.answers):
        assert time.monotonic() < deadline, "Triton did not come back"
        time.sleep(0.2)
    healed = min(t for t, status, _, _ in load.answers if t > killed + 0.5 and status == 200) - killed
    print(f"\nTriton killed under load: 200 again after {healed:.1f} s, gateway untouched")  # noqa: T201
    statuses = {status for _, status, _, _ in load.answers}
    assert statuses <= {200, 503}, statuses
    down = [(body, retry) for _, status, body, retry in load.answers if status == 503]
    assert down and all(
        body and body["error"]["code"] == "triton_unavailable" and retry for body, retry in down
    )
    assert not load.lost, load.lost

    before = len(load.answers)
    process.send_signal(signal.SIGTERM)
    time.sleep(0.3)
    assert httpx.get(f"{url}/readyz", timeout=5).status_code == 503  # draining, still accepting
    process.wait(timeout=120)
    stop(load, workers)
    after = load.answers[before:]
    print(f"SIGTERM under load: {len(after)} requests answered while draining, {load.refused} refused after")  # noqa: T201
    assert process.returncode == 0
    (restarted_pid,) = RESTARTED_PID.findall("".join(output))
    with pytest.raises(ProcessLookupError):  # the Triton it restarted is stopped with it
        os.kill(int(restarted_pid), 0)
    # Every request was answered or its connect refused (gateway.server: a connection the
    # kernel had queued when the listener closed is taken, not reset).
    assert load.lost == []
    assert after and all(status == 200 for _, status, _, _ in after)


def test_kept_alive_clients_through_sigterm_get_answers_or_refusals_only(
    serve: tuple[subprocess.Popen[str], str, int, list[str]],
) -> None:
    process, url, _, _ = serve
    load = Load(url, digit_png())
    workers = threads(load, 8)
    time.sleep(1.0)
    sigterm = time.monotonic()
    process.send_signal(signal.SIGTERM)
    process.wait(timeout=120)
    stop(load, workers)
    draining = sigterm + 0.2  # the signal handled, with room
    print(f"\nSIGTERM under 8 kept-alive clients: {load.answered_after(draining)} answered while draining")  # noqa: T201
    assert process.returncode == 0 and load.lost == []
    assert load.answered_after(draining) == sum(1 for at in load.closing if at > draining) > 0


def test_the_gateway_reconnects_within_about_a_second_of_tritons_return() -> None:
    triton = LocalTriton(extra_args=only_models(MNIST_MODELS))
    with triton, serve_gateway(Settings(triton_url=triton.grpc_url, ready_models=("mnist",))) as url:
        body = digit_png()
        with httpx.Client(base_url=url, timeout=30) as client:
            assert client.post("/v1/mnist", files={"image": ("d.png", body)}).status_code == 200
            os.kill(triton.pid, signal.SIGKILL)
            time.sleep(0.5)
            down = client.post("/v1/mnist", files={"image": ("d.png", body)})
            assert down.status_code == 503 and down.headers.get("retry-after")
            triton.restart()  # returns once Triton answers ready
            back = time.monotonic()
            while client.post("/v1/mnist", files={"image": ("d.png", body)}).status_code != 200:
                assert time.monotonic() - back < 30, "the gateway never reconnected"
                time.sleep(0.05)
            took = time.monotonic() - back
    print(f"\nexternal Triton restarted: the gateway answered 200 {took:.2f} s after it was ready")  # noqa: T201
    assert took <= RECONNECT_BOUND_S
