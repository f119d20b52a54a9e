"""Runs the real Triton server bundled in the nvidia-pytriton wheel, for `serve` and the tests.

The wheel ships `tritonserver` 2.51 with the Python backend and one backend stub per Python
version, but no ONNX Runtime backend. `LocalTriton` therefore materializes a runnable copy of
the model repository in which every `platform: "onnxruntime_onnx"` model is served by the
Python-backend runner in `triton_repo/local/onnx_runner.py` over the same model.onnx, then
starts the server on free (or given) ports, waits for readiness with a deadline, notices an
early death, shows the server log when anything fails, and always stops the server.

The server runs in a session of its own (a Ctrl-C in the terminal reaches only its parent, which
stops it in order), so it would outlive a parent killed outright (SIGKILL, the OOM killer) and
keep its ports. On Linux it is therefore started with a parent-death signal (`prctl
PR_SET_PDEATHSIG`): when the thread that started it ends, the kernel sends it SIGTERM and it
shuts down as on any stop. That signal follows the starting *thread*, not the process, so a
server must be started by a thread that outlives it (the main thread, or the supervisor's
watch, which stops the server before it ends).

Errors: `TritonStartError` (binary missing, died early, not ready in time).
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import sysconfig
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any

PROJECT_ROOT = Path(__file__).resolve().parent.parent
TRITON_REPO = PROJECT_ROOT / "triton_repo"
# The gateway pings Triton every 30 s, between calls too (gateway/triton.py CHANNEL_ARGS).
# Triton's defaults refuse pings without calls and count them as abuse: after two it closes
# the connection (GOAWAY "too_many_pings") and a request then in flight fails with 503. This
# showed when the channel sat idle for minutes (a long reference run inside a test).
KEEPALIVE_ARGS = (
    "--grpc-keepalive-permit-without-calls=1",
    "--grpc-http2-min-recv-ping-interval-without-data=10000",
)
ONNX_RUNNER = TRITON_REPO / "local" / "onnx_runner.py"
ONNX_PLATFORM = re.compile(r'^\s*platform\s*:\s*"onnxruntime_onnx"\s*$', re.MULTILINE)
# The Python backend reads `default_model_filename` as its own script's name: the runner gets
# the ONNX file's name as a parameter instead (optimum's exports are not named model.onnx).
MODEL_FILENAME = re.compile(r'^\s*default_model_filename\s*:\s*"([^"]+)"\s*$', re.MULTILINE)
ONNX_FILE_PARAMETER = "onnx_file"
LOG_TAIL_CHARS = 6000
STOP_GRACE_S = 20.0
PR_SET_PDEATHSIG = 1  # <linux/prctl.h>
PARENT_DEATH_SIGNAL = signal.SIGTERM  # a server whose parent died shuts down as on any stop


class TritonStartError(RuntimeError):
    """The local Triton server could not be started or did not become ready."""


@dataclass(frozen=True)
class TritonDistribution:
    """Where the pieces of the bundled server live inside the installed wheel."""

    binary: Path
    python_backend: Path
    stub: Path
    libs: Path

    @classmethod
    def find(cls) -> TritonDistribution:
        """Locate the server inside the installed nvidia-pytriton; raises TritonStartError."""
        try:
            import pytriton  # noqa: PLC0415 - optional until a local server is wanted
        except ImportError as exc:
            raise TritonStartError("nvidia-pytriton is not installed; run `make setup`") from exc
        root = Path(pytriton.__file__).parent / "tritonserver"
        version = f"{sys.version_info.major}.{sys.version_info.minor}"
        dist = cls(
            binary=root / "bin" / "tritonserver",
            python_backend=root / "backends" / "python",
            stub=root / "python_backend_stubs" / version / "triton_python_backend_stub",
            libs=root.parent.parent / "nvidia_pytriton.libs",
        )
        missing = [str(p) for p in (dist.binary, dist.python_backend, dist.stub, dist.libs) if not p.exists()]
        if missing:
            raise TritonStartError(f"bundled Triton is incomplete, missing: {', '.join(missing)}")
        return dist


@dataclass(frozen=True)
class TritonPorts:
    """The three ports one server listens on."""

    http: int
    grpc: int
    metrics: int

    @classmethod
    def free(cls) -> TritonPorts:
        """Reserve three currently free loopback ports."""
        return cls(*_free_ports(3))


def _free_ports(count: int) -> list[int]:
    sockets = [socket.socket() for _ in range(count)]
    try:
        for sock in sockets:
            sock.bind(("127.0.0.1", 0))
        return [sock.getsockname()[1] for sock in sockets]
    finally:
        for sock in sockets:
            sock.close()


def materialize_repository(source: Path, target: Path) -> None:
    """Copy the model repository, swapping each ONNX Runtime model onto the Python runner."""
    shutil.copytree(source, target, symlinks=False, dirs_exist_ok=True)
    for config in target.glob("*/config.pbtxt"):
        text = config.read_text()
        if not ONNX_PLATFORM.search(text):
            continue
        text = MODEL_FILENAME.sub(
            lambda m: f'parameters {{ key: "{ONNX_FILE_PARAMETER}" value: {{ string_value: "{m[1]}" }} }}',
            text,
        )
        config.write_text(ONNX_PLATFORM.sub('backend: "python"', text))
        for version in (p for p in config.parent.iterdir() if p.is_dir() and p.name.isdigit()):
            shutil.copy(ONNX_RUNNER, version / "model.py")


def _backend_directory(dist: TritonDistribution, target: Path) -> Path:
    python = target / "python"
    python.mkdir(parents=True, exist_ok=True)
    shutil.copy(dist.python_backend / "libtriton_python.so", python)
    shutil.copy(dist.python_backend / "triton_python_backend_utils.py", python)
    shutil.copy(dist.stub, python)
    return target


def _environment(dist: TritonDistribution) -> dict[str, str]:
    # The stub's interpreter is isolated (PYTHONPATH is ignored): the python models' shared
    # code reaches it as the installed triton-shared package in this same environment.
    env = dict(os.environ)
    libdir = sysconfig.get_config_var("LIBDIR") or ""
    env["LD_LIBRARY_PATH"] = os.pathsep.join(
        filter(None, [str(dist.libs), libdir, env.get("LD_LIBRARY_PATH")])
    )
    # The stub is a separate process: it must find this environment's numpy, onnxruntime, ...
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    return env


def die_with_parent() -> Callable[[], None] | None:
    """A `preexec_fn` that has the kernel signal the child when the thread starting it ends
    (Linux; None elsewhere). libc's prctl is looked up before the fork."""
    if not sys.platform.startswith("linux"):
        return None
    prctl = ctypes.CDLL(None, use_errno=True).prctl
    parent, signum = os.getpid(), int(PARENT_DEATH_SIGNAL)

    def set_parent_death_signal() -> None:
        if prctl(PR_SET_PDEATHSIG, signum) != 0:
            raise OSError(ctypes.get_errno(), "prctl(PR_SET_PDEATHSIG) failed")
        if os.getppid() != parent:  # the parent died before prctl: no signal will come
            os.kill(os.getpid(), signum)

    return set_parent_death_signal


def stop_group(process: subprocess.Popen[Any], grace_s: float = STOP_GRACE_S) -> None:
    """Stop a server's process group: the server gently first (SIGTERM, SIGKILL after
    `grace_s`), then whatever is left of it (the Python-backend stubs of a server that was
    killed outlive it in its group)."""
    if process.poll() is None:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=grace_s)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)


def only_models(names: Sequence[str]) -> tuple[str, ...]:
    """Server arguments that load just these models (an ensemble's steps must be named too):
    a Triton with one pipeline starts and restarts in seconds, not a minute."""
    return ("--model-control-mode=explicit", *(f"--load-model={name}" for name in names))


class LocalTriton:
    """A real tritonserver process over a materialized copy of the model repository."""

    def __init__(
        self,
        model_repository: Path = TRITON_REPO / "models",
        ports: TritonPorts | None = None,
        startup_timeout_s: float = 180.0,
        extra_args: tuple[str, ...] = (),
    ) -> None:
        self.ports = ports or TritonPorts.free()
        self._source = model_repository
        self._timeout = startup_timeout_s
        self._extra_args = extra_args
        self._workdir: Path | None = None
        self._process: subprocess.Popen[bytes] | None = None

    @property
    def grpc_url(self) -> str:
        return f"127.0.0.1:{self.ports.grpc}"

    @property
    def http_url(self) -> str:
        return f"http://127.0.0.1:{self.ports.http}"

    @property
    def log_path(self) -> Path:
        if self._workdir is None:
            raise TritonStartError("server has not been started")
        return self._workdir / "tritonserver.log"

    def start(self) -> LocalTriton:
        """Start the server and wait until it is ready; raises TritonStartError."""
        dist = TritonDistribution.find()
        self._workdir = Path(tempfile.mkdtemp(prefix="local-triton-"))
        repository = self._workdir / "models"
        materialize_repository(self._source, repository)
        command = self._command(dist, repository, _backend_directory(dist, self._workdir / "backends"))
        with self.log_path.open("wb") as log:
            self._process = subprocess.Popen(
                command,
                stdout=log,
                stderr=subprocess.STDOUT,
                env=_environment(dist),
                start_new_session=True,
                preexec_fn=die_with_parent(),  # only prctl between fork and exec
            )
        try:
            self._wait_ready()
        except BaseException:
            self.stop()
            raise
        return self

    def _command(self, dist: TritonDistribution, repository: Path, backends: Path) -> list[str]:
        return [
            str(dist.binary),
            f"--model-repository={repository}",
            f"--backend-directory={backends}",
            f"--http-port={self.ports.http}",
            f"--grpc-port={self.ports.grpc}",
            f"--metrics-port={self.ports.metrics}",
            "--log-verbose=0",
            "--exit-timeout-secs=10",
            *KEEPALIVE_ARGS,
            *self._extra_args,
        ]

    def _wait_ready(self) -> None:
        deadline = time.monotonic() + self._timeout
        while time.monotonic() < deadline:
            if self._process is not None and self._process.poll() is not None:
                raise TritonStartError(
                    f"tritonserver exited with {self._process.returncode}\n{self.log_tail()}"
                )
            if self._is_ready():
                return
            time.sleep(0.25)
        raise TritonStartError(f"tritonserver not ready after {self._timeout:.0f} s\n{self.log_tail()}")

    def _is_ready(self) -> bool:
        try:
            with urllib.request.urlopen(f"{self.http_url}/v2/health/ready", timeout=2) as response:
                return bool(response.status == 200)
        except (urllib.error.URLError, OSError):
            return False

    def log_tail(self, chars: int = LOG_TAIL_CHARS) -> str:
        """The end of the server log, for error messages."""
        try:
            return self.log_path.read_text(errors="replace")[-chars:]
        except (OSError, TritonStartError):
            return "(no server log)"

    def is_running(self) -> bool:
        return self._process is not None and self._process.poll() is None

    def returncode(self) -> int | None:
        """The server's exit status once it has exited (negative: the signal that killed it)."""
        return None if self._process is None else self._process.poll()

    def restart(self) -> LocalTriton:
        """Stop what is left of the server and start it again on the same ports; raises
        TritonStartError."""
        self.stop()
        return self.start()

    @property
    def pid(self) -> int:
        """The tritonserver process id (its Python-backend stubs are its children)."""
        if self._process is None:
            raise TritonStartError("server has not been started")
        return self._process.pid

    def stop(self) -> None:
        """Stop the server (SIGTERM, then SIGKILL after a grace period) and remove its files."""
        if self._process is not None:
            stop_group(self._process)
        self._process = None
        if self._workdir is not None:
            shutil.rmtree(self._workdir, ignore_errors=True)
            self._workdir = None

    def __enter__(self) -> LocalTriton:
        return self.start()

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()
