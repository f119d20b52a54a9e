"""Where the process is in its life: serving, or draining after a stop signal.

`serve` sets `draining` when SIGTERM or SIGINT arrives: readiness turns 503 at once, so that a
load balancer stops sending requests here, while the server keeps accepting for `drain_s` and
then stops accepting and lets the requests in flight finish (`shutdown_grace_s`) before Triton
is stopped.
"""

from __future__ import annotations

from dataclasses import dataclass

from starlette.types import ASGIApp, Message, Receive, Scope, Send


@dataclass
class Lifecycle:
    """Shared between the server loop and the app: set once, never cleared."""

    draining: bool = False


class CloseWhileDraining:
    """ASGI middleware: while draining, every response asks the client to close its
    connection. A keep-alive connection left idle when the server stops would otherwise meet
    the client's next request with a reset, a request lost as far as the client can tell;
    a client that reconnects is refused cleanly instead, and goes elsewhere."""

    def __init__(self, app: ASGIApp, lifecycle: Lifecycle) -> None:
        self.app, self.lifecycle = app, lifecycle

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def closing(message: Message) -> None:
            if message["type"] == "http.response.start" and self.lifecycle.draining:
                message = {**message, "headers": [*message.get("headers", []), (b"connection", b"close")]}
            await send(message)

        await self.app(scope, receive, closing)
