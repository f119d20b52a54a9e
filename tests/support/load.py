"""Requests sent in a loop from threads, each thread on one kept-alive connection, until stopped:
what each request got, and when (the resilience and draining tests)."""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field

import httpx


@dataclass
class Load:
    """What the requests got: an answer (when, status, JSON body, Retry-After), a refused
    connect, or an error on a connection made (lost, with when it was sent and why)."""

    url: str
    body: bytes
    route: str = "/v1/mnist"
    answers: list[tuple[float, int, dict[str, object] | None, str | None]] = field(default_factory=list)
    closing: list[float] = field(default_factory=list)  # when answers saying `Connection: close` came
    refused: int = 0
    lost: list[tuple[float, str]] = field(default_factory=list)
    stop: threading.Event = field(default_factory=threading.Event)

    def run(self) -> None:
        with httpx.Client(base_url=self.url, timeout=60) as client:
            while not self.stop.is_set():
                self._one(client)

    def _one(self, client: httpx.Client) -> None:
        sent = time.monotonic()
        try:
            response = client.post(self.route, files={"image": ("d.png", self.body)})
        except httpx.ConnectError:  # not accepted: the listener is closed
            self.refused += 1
            time.sleep(0.05)
            return
        except httpx.TransportError as exc:  # the connection closed or reset under the request
            self.lost.append((sent, repr(exc)))
            return
        answered = time.monotonic()
        is_json = response.headers.get("content-type", "").startswith("application/json")
        self.answers.append(
            (answered, response.status_code, response.json() if is_json else None,
             response.headers.get("retry-after"))
        )  # fmt: skip
        if response.headers.get("connection", "").lower() == "close":
            self.closing.append(answered)

    def answered_after(self, moment: float) -> int:
        return sum(1 for answered, *_ in self.answers if answered > moment)


def threads(load: Load, count: int) -> list[threading.Thread]:
    """`count` threads running `load`, started."""
    started = [threading.Thread(target=load.run, daemon=True) for _ in range(count)]
    for thread in started:
        thread.start()
    return started


def stop(load: Load, workers: list[threading.Thread]) -> None:
    """Stop `load` and wait for its threads to end."""
    load.stop.set()
    for worker in workers:
        worker.join(timeout=60)
