"""`python -m gateway serve` and `triton` as a user starts them: stopped by a signal, they stop
their Triton; killed outright, they take it with them."""

from __future__ import annotations

import contextlib
import os
import re
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import cv2
import httpx
import pytest

from evaluation.support.digits import load_mnist
from evaluation.support.servers import free_port, wait_until_ok
from gateway.local_triton import PROJECT_ROOT

pytestmark = pytest.mark.integration
READY_TIMEOUT_S = 240.0
TRITON_LOG = re.compile(r"^Triton  : .* log (\S+)$", re.MULTILINE)
TRITON_BANNER = re.compile(r"^Triton  : http http://[\d.]+:(\d+)\s+grpc [\d.]+:(\d+)\s.*pid (\d+) ")
# The mnist models only, so that Triton starts in seconds (an ensemble's steps are named too).
MNIST_MODELS = ("mnist_preprocess", "mnist_classifier", "mnist")
ORPHAN_DEADLINE_S = 15.0  # a Triton told to stop unloads its models and exits in a few seconds


# SIGTERM is what Docker and Kubernetes send; SIGINT is Ctrl-C. Either must also stop Triton.
@pytest.mark.parametrize("stop_signal", [signal.SIGINT, signal.SIGTERM])
def test_serve_answers_then_stops_cleanly(stop_signal: signal.Signals) -> None:
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "gateway", "serve", "--host", "127.0.0.1", "--port", str(port)],
        cwd=PROJECT_ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        wait_until_ok(f"{url}/readyz", process, READY_TIMEOUT_S)
        images, labels = load_mnist("heldout")
        png = cv2.imencode(".png", images[5])[1].tobytes()
        response = httpx.post(f"{url}/v1/mnist", files={"image": ("d.png", png)}, timeout=30)
        assert response.status_code == 200 and response.json()["label"] == int(labels[5])
    finally:
        process.send_signal(stop_signal)
        output, _ = process.communicate(timeout=60)
    assert process.returncode == 0, output
    assert "Triton  :" in output and "Gateway :" in output
    triton_log = Path(TRITON_LOG.search(output)[1])  # type: ignore[index]
    assert not triton_log.parent.exists(), "Triton's working directory outlived serve"


def triton_banner(process: subprocess.Popen[str]) -> tuple[int, int, int]:
    """(http port, grpc port, pid) of the Triton a command started, read from its banner."""
    assert process.stdout is not None
    output = []
    for line in process.stdout:  # the command exits (EOF) if its Triton does not start
        output.append(line)
        if match := TRITON_BANNER.match(line):
            return int(match[1]), int(match[2]), int(match[3])
    raise AssertionError("no Triton banner:\n" + "".join(output))


def running_in_group(pgid: int) -> list[int]:
    """Processes of process group `pgid` that are still running (zombies left out: an orphan's
    exit status waits for a reaper this container may not have)."""
    pids = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        with contextlib.suppress(OSError):
            state, _, group = stat.read_text().rsplit(")", 1)[1].split()[:3]
            if int(group) == pgid and state != "Z":
                pids.append(int(stat.parent.name))
    return pids


def listening(port: int) -> bool:
    """Whether something still listens on `port` (a server starting again could not bind it)."""
    with socket.socket() as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind(("", port))
        except OSError:
            return True
    return False


def left_behind(pid: int, ports: tuple[int, ...]) -> dict[str, list[int]]:
    return {"processes": running_in_group(pid), "ports": [port for port in ports if listening(port)]}


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the parent-death signal is Linux's")
@pytest.mark.parametrize("command", ["triton", "serve"])
def test_a_command_killed_outright_takes_its_triton_with_it(command: str) -> None:
    if command == "triton":
        arguments = ["triton", "--model", "mnist"]
    else:
        arguments = ["serve", "--host", "127.0.0.1", "--port", str(free_port())]
        arguments += ["--models", ",".join(MNIST_MODELS)]
    process = subprocess.Popen(
        [sys.executable, "-m", "gateway", *arguments],
        cwd=PROJECT_ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    try:
        http_port, grpc_port, triton_pid = triton_banner(process)
    finally:
        process.kill()  # SIGKILL, as the OOM killer does: no handler, no clean-up runs
        process.communicate()
    try:
        deadline = time.monotonic() + ORPHAN_DEADLINE_S
        while (left := left_behind(triton_pid, (http_port, grpc_port))) != {"processes": [], "ports": []}:
            assert time.monotonic() < deadline, f"Triton outlived its killed parent: {left}"
            time.sleep(0.2)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(triton_pid, signal.SIGKILL)  # never leave an orphan to the next test
