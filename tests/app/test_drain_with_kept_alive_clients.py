"""SIGTERM under kept-alive clients, on the real server (`python -m gateway serve`) with no
Triton behind it: the HTTP side of draining, a few times over (its failure was a race: 19 read
errors in 6 SIGTERMs under 8 clients). Every request is answered or its connect refused; none
meets its connection closed or reset under it, and every answer while draining says
`Connection: close`."""

from __future__ import annotations

import signal
import subprocess
import sys
import time

from evaluation.support.servers import free_port, wait_until_ok
from gateway.local_triton import PROJECT_ROOT
from gateway.settings import Settings
from tests.support.load import Load, stop, threads

SIGTERMS, CLIENTS = 3, 8
# A PNG whose header is cut short: the gateway answers it (422) without asking Triton.
CUT_PNG = b"\x89PNG\r\n\x1a\n" + bytes(100)
SIGNAL_HANDLED_S = 0.2  # from SIGTERM to the server marking itself draining, with room


def drained_under_load() -> tuple[Load, float, str]:
    """One `serve` under load until SIGTERM has stopped it: the load, when the signal went,
    and the server's output."""
    port = free_port()
    command = [sys.executable, "-m", "gateway", "serve", "--triton-url", f"127.0.0.1:{free_port()}"]
    process = subprocess.Popen(
        [*command, "--host", "127.0.0.1", "--port", str(port)],
        cwd=PROJECT_ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )  # fmt: skip
    url = f"http://127.0.0.1:{port}"
    load, workers = Load(url, CUT_PNG), []
    try:
        wait_until_ok(f"{url}/healthz", process)
        workers = threads(load, CLIENTS)
        time.sleep(0.5)
        sigterm = time.monotonic()
        process.send_signal(signal.SIGTERM)
        output = process.communicate(timeout=60)[0]
    finally:
        stop(load, workers)
        if process.poll() is None:
            process.kill()
            process.wait()
    return load, sigterm, output


def test_kept_alive_clients_through_a_drain_get_answers_or_refusals_only() -> None:
    for _ in range(SIGTERMS):
        load, sigterm, output = drained_under_load()
        assert load.lost == [], f"{load.lost}\n{output}"
        draining = sigterm + SIGNAL_HANDLED_S
        assert load.answered_after(draining + Settings().drain_s / 2) > 0  # it drained under load
        assert load.answered_after(draining) == sum(1 for at in load.closing if at > draining)
        assert load.refused > 0  # the clients outlived the server: their connects were refused
