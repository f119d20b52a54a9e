"""Keeping the local Triton alive: `serve` restarts it, with back-off, when it dies.

A Triton killed by the kernel (out of memory), by a person or by a crash in a backend takes
every model with it. The supervisor watches the process from a thread; when it has exited,
it logs why (exit status, or the signal, and the end of the server's log) and starts it
again on the same ports, so the gateway's channel finds it where it was. While it is down,
the gateway answers 503 with Retry-After (its readiness too); a start that fails is retried
after a delay that doubles up to a ceiling, and the delay goes back to its floor once a
server has stayed up for a while. Stopping the supervisor stops the watch, then the server.

A server the watch restarted is the watch thread's child, and gets its parent-death signal
when that thread ends (gateway.local_triton): so the watch stops the server itself on its way
out, in order, rather than leave it to that signal.
"""

from __future__ import annotations

import logging
import signal
import threading
import time
from dataclasses import dataclass
from types import TracebackType

from gateway.local_triton import LocalTriton, TritonStartError

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class Backoff:
    """Delays between restarts."""

    first_s: float = 1.0
    ceiling_s: float = 30.0
    factor: float = 2.0
    poll_s: float = 0.5  # how often the process is checked
    stable_s: float = 60.0  # a server up this long resets the delay to `first_s`


def exit_reason(returncode: int | None) -> str:
    """A process's exit status in words: the signal that killed it, or its exit code."""
    if returncode is None:
        return "is not running"  # a start that failed and was already cleaned up
    if returncode < 0:
        try:
            return f"killed by {signal.Signals(-returncode).name}"
        except ValueError:
            return f"killed by signal {-returncode}"
    return f"exited with status {returncode}"


class TritonSupervisor:
    """Runs a LocalTriton and restarts it whenever it dies, until stopped."""

    def __init__(self, triton: LocalTriton, backoff: Backoff = Backoff()) -> None:
        self.triton = triton
        self._backoff = backoff
        self._stopping = threading.Event()
        self._thread: threading.Thread | None = None
        self.restarts = 0

    def start(self) -> TritonSupervisor:
        """Start the server (raises TritonStartError as LocalTriton does) and the watch."""
        self.triton.start()
        self._thread = threading.Thread(target=self._watch, name="triton-supervisor", daemon=True)
        self._thread.start()
        return self

    def _watch(self) -> None:
        try:
            self._watch_until_stopped()
        finally:
            self.triton.stop()

    def _watch_until_stopped(self) -> None:
        delay, started = self._backoff.first_s, time.monotonic()
        while not self._stopping.wait(self._backoff.poll_s):
            if self.triton.is_running():
                if time.monotonic() - started >= self._backoff.stable_s:
                    delay = self._backoff.first_s
                continue
            logger.error(
                "tritonserver %s; restarting in %.0f s. Its log ended:\n%s",
                exit_reason(self.triton.returncode()),
                delay,
                self.triton.log_tail(),
            )
            if self._stopping.wait(delay):
                return
            delay = min(self._backoff.ceiling_s, delay * self._backoff.factor)
            if self._restart():
                started = time.monotonic()

    def _restart(self) -> bool:
        try:
            self.triton.restart()
        except TritonStartError as exc:
            logger.error("tritonserver did not come back: %s", exc)
            return False
        self.restarts += 1
        logger.warning("tritonserver is back (restart %d), pid %d", self.restarts, self.triton.pid)
        return True

    def stop(self) -> None:
        """Stop watching, then stop the server (the watch's last act, or here if it never ran)."""
        self._stopping.set()
        if self._thread is not None:
            self._thread.join()
        self.triton.stop()

    def __enter__(self) -> TritonSupervisor:
        return self.start()

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()
