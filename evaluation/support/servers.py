"""Serving the real gateway on a real socket: uvicorn in a thread (tests) or in its own process
(benchmarks, so it neither shares a GIL with the load nor hides its CPU time); torn down always."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import httpx
import uvicorn

from gateway.local_triton import stop_group
from gateway.main import create_app
from gateway.settings import Settings

STARTUP_TIMEOUT_S = 20.0
LOG_TAIL_BYTES = 4000


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextmanager
def serve_gateway(settings: Settings) -> Iterator[str]:
    """Run create_app(settings) under uvicorn on a free port; yield its base URL."""
    port = free_port()
    config = uvicorn.Config(
        create_app(settings),
        host="127.0.0.1",
        port=port,
        log_level="warning",
        loop="asyncio",
        http="httptools",
        lifespan="on",
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + STARTUP_TIMEOUT_S
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError("the gateway did not start")
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)


@dataclass(frozen=True)
class GatewayProcess:
    url: str
    pid: int


@contextmanager
def gateway_process(
    triton_grpc: str, workers: int = 1, env: dict[str, str] | None = None
) -> Iterator[GatewayProcess]:
    """`python -m gateway serve` against `triton_grpc`, as production runs it; waits for /healthz.
    Its log (a JSON line per request) goes to a file, shown when it does not start."""
    port = free_port()
    command = [sys.executable, "-m", "gateway", "serve", "--host", "127.0.0.1", "--port", str(port)]
    command += ["--triton-url", triton_grpc, "--workers", str(workers)]
    url = f"http://127.0.0.1:{port}"
    with tempfile.TemporaryFile() as log:
        environment = {**os.environ, **(env or {})}
        process = subprocess.Popen(
            command, env=environment, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
        )
        try:
            try:
                wait_until_ok(f"{url}/healthz", process)
            except RuntimeError as exc:
                log.seek(0)
                raise RuntimeError(f"{exc}\n{log.read()[-LOG_TAIL_BYTES:].decode(errors='replace')}") from exc
            yield GatewayProcess(url, process.pid)
        finally:
            stop_group(process, STARTUP_TIMEOUT_S)


def wait_until_ok(url: str, process: subprocess.Popen[Any], timeout_s: float = STARTUP_TIMEOUT_S) -> None:
    """Poll `url` until it answers 200; raises RuntimeError if `process` exits or time runs out."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if process.poll() is not None:
            output = process.communicate()[0] if process.stdout else ""
            raise RuntimeError(f"the process exited with {process.returncode}:\n{output}")
        try:
            if httpx.get(url, timeout=2).status_code == 200:
                return
        except httpx.TransportError:
            pass
        time.sleep(0.1)
    raise RuntimeError(f"{url} did not answer 200 within {timeout_s:.0f} s")
