"""Running the app under uvicorn so that a stop signal loses no request.

On SIGTERM or SIGINT, `DrainingServer` first marks the app draining (readiness 503) and keeps
accepting for `Settings.drain_s`, so that a load balancer that still sends requests here has
them answered; then uvicorn stops accepting, lets the requests in flight finish for up to
`Settings.shutdown_grace_s`, and runs the lifespan's shutdown. A second signal stops at once,
as uvicorn's own handling does. With several worker processes uvicorn's process manager runs
them, with the grace period but without the drain.
"""

from __future__ import annotations

import contextlib
import logging
import math
import threading
from types import FrameType

import uvicorn

from gateway.lifecycle import Lifecycle
from gateway.main import create_app
from gateway.settings import Settings

logger = logging.getLogger(__name__)
LOOP, HTTP = "uvloop", "httptools"


class DrainingServer(uvicorn.Server):
    """uvicorn's server with a drain before it stops accepting (see the module docstring)."""

    def __init__(self, config: uvicorn.Config, lifecycle: Lifecycle, drain_s: float) -> None:
        super().__init__(config)
        self._lifecycle = lifecycle
        self._drain_s = drain_s

    def handle_exit(self, sig: int, frame: FrameType | None) -> None:
        if self._lifecycle.draining or self._drain_s <= 0:
            super().handle_exit(sig, frame)
            return
        self._lifecycle.draining = True
        logger.info("stopping: not ready from now on, accepting for %.1f s more", self._drain_s)
        timer = threading.Timer(self._drain_s, super().handle_exit, (sig, frame))
        timer.daemon = True
        timer.start()


def run_gateway(host: str, port: int, workers: int, settings: Settings) -> None:
    """Serve the gateway until a stop signal, losing no request accepted before it."""
    grace = math.ceil(settings.shutdown_grace_s)  # uvicorn counts whole seconds
    if workers > 1:  # uvicorn's process manager builds the app in each worker
        uvicorn.run(
            "gateway.main:create_app", factory=True, host=host, port=port, workers=workers,
            timeout_graceful_shutdown=grace, loop=LOOP, http=HTTP, access_log=False,
        )  # fmt: skip
        return
    lifecycle = Lifecycle()
    config = uvicorn.Config(
        create_app(settings, lifecycle),
        host=host,
        port=port,
        timeout_graceful_shutdown=grace,
        loop=LOOP,
        http=HTTP,
        access_log=False,
    )
    # uvicorn re-raises the SIGINT it caught once it has shut down; uvicorn.run swallows the
    # KeyboardInterrupt that follows, and so must we, or Ctrl-C would end `serve` with status -2.
    with contextlib.suppress(KeyboardInterrupt):
        DrainingServer(config, lifecycle, settings.drain_s).run()
