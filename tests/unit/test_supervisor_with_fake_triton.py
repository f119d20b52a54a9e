"""The Triton supervisor's watch and back-off, with a FAKE server (no process is started)."""

from __future__ import annotations

import logging
import signal
import threading
import time

import pytest

from gateway.local_triton import TritonStartError
from gateway.supervisor import Backoff, TritonSupervisor, exit_reason

FAST = Backoff(first_s=0.05, ceiling_s=0.2, factor=2.0, poll_s=0.01, stable_s=10.0)


class FakeTriton:
    """Dies when told to; its restarts fail `failures` times before one works."""

    def __init__(self, failures: int = 0) -> None:
        self.running, self.failures, self.starts, self.stops = False, failures, 0, 0
        self.stopped_by: list[str] = []  # the thread of each stop that ended a running server
        self.code: int | None = None
        self.pid = 4242
        self.restarted = threading.Event()

    def start(self) -> FakeTriton:
        self.starts += 1
        self.running, self.code = True, None
        return self

    def restart(self) -> FakeTriton:
        self.stop()
        if self.failures:
            self.failures -= 1
            raise TritonStartError("not ready")
        self.start()
        self.restarted.set()
        return self

    def kill(self, code: int) -> None:
        self.running, self.code = False, code

    def is_running(self) -> bool:
        return self.running

    def returncode(self) -> int | None:
        return self.code

    def log_tail(self) -> str:
        return "E... out of memory"

    def stop(self) -> None:
        self.stops += 1
        if self.running:
            self.stopped_by.append(threading.current_thread().name)
        self.running = False


def test_a_dead_server_is_restarted_and_the_log_says_why(caplog: pytest.LogCaptureFixture) -> None:
    fake = FakeTriton()
    with caplog.at_level(logging.ERROR), TritonSupervisor(fake, FAST) as supervisor:  # type: ignore[arg-type]
        fake.kill(-signal.SIGKILL)
        assert fake.restarted.wait(2.0)
        assert supervisor.restarts == 1 and fake.is_running()
    assert "killed by SIGKILL" in caplog.text and "out of memory" in caplog.text
    assert not fake.is_running()  # stopping the supervisor stops the server


def test_failed_restarts_are_retried_with_growing_delays() -> None:
    fake = FakeTriton(failures=3)
    with TritonSupervisor(fake, FAST):  # type: ignore[arg-type]
        started = time.monotonic()
        fake.kill(1)
        assert fake.restarted.wait(5.0)
        waited = time.monotonic() - started
    assert fake.starts == 2  # the first start and the one restart that worked
    assert waited >= 0.05 + 0.1 + 0.2 + 0.2  # 0.05, doubled, capped at 0.2


def test_the_watch_stops_a_server_it_restarted_before_it_ends() -> None:
    # A restarted server is the watch thread's child: its parent-death signal fires when that
    # thread ends, so the thread stops it first, in order (gateway.local_triton).
    fake = FakeTriton()
    with TritonSupervisor(fake, FAST):  # type: ignore[arg-type]
        fake.kill(-signal.SIGKILL)
        assert fake.restarted.wait(2.0)
    assert fake.stopped_by == ["triton-supervisor"] and not fake.is_running()


def test_exit_reasons_read_as_words() -> None:
    assert exit_reason(-signal.SIGKILL) == "killed by SIGKILL"
    assert exit_reason(3) == "exited with status 3"
    assert exit_reason(None) == "is not running"
