"""Running the app under uvicorn so that a stop signal loses no request.

On SIGTERM or SIGINT, `DrainingServer` first marks the app draining (readiness 503) and keeps
accepting for `Settings.drain_s`, so that a load balancer that still sends requests here has
them answered; then uvicorn stops accepting, lets the requests in flight finish for up to
`Settings.shutdown_grace_s`, and runs the lifespan's shutdown. A second signal stops at once,
as uvicorn's own handling does. With several worker processes uvicorn's process manager runs
them, with the grace period but without the drain.

Every answer while draining says `Connection: close` (gateway.lifecycle), so kept-alive clients
reconnect, and are refused once the listener closes. uvicorn's own shutdown lost a few of them
(19 read errors in 6 SIGTERMs under 8 kept-alive clients): closing the listener reset the
connections the kernel had queued on it, and the connections accepted last were closed before
their request arrived. `DrainingServer.shutdown` stops new handshakes on the listener, takes
the queued connections, closes it, and gives the last ones `FIRST_REQUEST_GRACE_S` to send
their request. A client whose connect came too late is refused when it retries its SYN.
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import logging
import math
import os
import socket
import struct
import threading
import time
from types import FrameType

import uvicorn

from gateway.lifecycle import Lifecycle
from gateway.main import create_app
from gateway.settings import Settings

logger = logging.getLogger(__name__)
LOOP, HTTP = "uvloop", "httptools"
# Once the listener is closed, how long a connection accepted just before may take to send its
# request: a client writes it right after connecting, so this bounds that gap, with room.
FIRST_REQUEST_GRACE_S = 0.5
# How long a handshake begun before the listener stopped taking new ones may take to complete:
# one round trip between the client and here, with room (a loopback or data-centre network).
HANDSHAKE_S = 0.05
SO_ATTACH_FILTER = 26  # linux/asm-generic/socket.h; the socket module does not name it
# struct sock_filter {u16 code; u8 jt; u8 jf; u32 k} x 4: load the TCP flags byte; if SYN is
# set, return 0 (drop), else return 0xffffffff (keep the whole segment).
_SYN_DROPPING_FILTER = b"".join(
    struct.pack("HBBI", code, jt, jf, k)
    for code, jt, jf, k in (
        (0x30, 0, 0, 13),  # BPF_LD | BPF_B | BPF_ABS: A = byte 13 of the TCP header (flags)
        (0x45, 0, 1, 0x02),  # BPF_JMP | BPF_JSET | BPF_K: A & SYN ? next : skip one
        (0x06, 0, 0, 0),  # BPF_RET | BPF_K: drop
        (0x06, 0, 0, 0xFFFFFFFF),  # BPF_RET | BPF_K: keep
    )
)


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

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        """Stop accepting without resetting a connection already made, let the connections
        accepted last send their request, then shut down as uvicorn does (it closes a
        connection that has not sent one at once)."""
        loop = asyncio.get_running_loop()
        for connection in await self._close_listeners():
            await loop.connect_accepted_socket(self._protocol, connection)
        await self._first_requests(FIRST_REQUEST_GRACE_S)
        await super().shutdown(sockets)

    async def _first_requests(self, limit_s: float) -> None:
        """Wait, up to `limit_s`, until every connection has sent a request."""
        deadline = time.monotonic() + limit_s
        while any(_awaiting_request(c) for c in self.server_state.connections):
            if time.monotonic() >= deadline:
                return
            await asyncio.sleep(0.01)

    async def _close_listeners(self) -> list[socket.socket]:
        """Close the listening sockets, and return the connections the kernel had queued on
        them: closing a listener resets those, clients that had connected and sent their
        request. New handshakes are stopped first (`_refuse_new_connections`), so none
        completes between the last accept and the close."""
        listeners = [
            socket.socket(fileno=os.dup(s.fileno())) for server in self.servers for s in server.sockets
        ]
        for server in self.servers:
            server.close()  # the event loop no longer accepts; our duplicates keep them open
        for listener in listeners:
            _refuse_new_connections(listener)
        await asyncio.sleep(HANDSHAKE_S)  # let the handshakes already begun complete and be queued
        queued: list[socket.socket] = []
        for listener in listeners:
            with listener:
                listener.setblocking(False)
                queued += _accept_queued(listener)
        return queued  # a client connecting from now on is refused

    def _protocol(self) -> asyncio.Protocol:
        """A connection's protocol, as uvicorn's startup makes it."""
        protocol: asyncio.Protocol = self.config.http_protocol_class(  # type: ignore[call-arg]
            config=self.config, server_state=self.server_state, app_state=self.lifespan.state
        )
        return protocol


def _refuse_new_connections(listener: socket.socket) -> None:
    """Drop every SYN that reaches `listener`, and nothing else: a client's first SYN goes
    unanswered and its retry, once the listener is closed, is refused, while a handshake already
    begun still completes and joins the queue. Without it a connection completed between the
    last accept and the close was reset after its request was sent (1 in 14 SIGTERMs under 8
    kept-alive clients). A classic BPF socket filter: TCP runs it on the listener for every
    segment, from the TCP header, before a handshake can complete."""
    program = ctypes.create_string_buffer(_SYN_DROPPING_FILTER, len(_SYN_DROPPING_FILTER))
    fprog = struct.pack("HP", len(_SYN_DROPPING_FILTER) // 8, ctypes.addressof(program))  # sock_fprog
    try:
        listener.setsockopt(socket.SOL_SOCKET, SO_ATTACH_FILTER, fprog)
    except OSError as exc:  # a kernel without socket filters: drain as before, with the race
        logger.warning("stopping: new connections not held off (%s)", exc)


def _accept_queued(listener: socket.socket) -> list[socket.socket]:
    """Every connection waiting on a non-blocking listener, non-blocking too."""
    accepted = []
    with contextlib.suppress(BlockingIOError):
        while True:
            connection, _ = listener.accept()
            connection.setblocking(False)
            accepted.append(connection)
    return accepted


def _awaiting_request(connection: object) -> bool:
    """Whether a connection (uvicorn's protocol) has not yet had a request's headers."""
    return getattr(connection, "cycle", None) is None


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
