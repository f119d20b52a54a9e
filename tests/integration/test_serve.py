"""`python -m gateway serve`: Triton plus the gateway as a user starts them, stopped by a signal."""

from __future__ import annotations

import re
import signal
import subprocess
import sys
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
