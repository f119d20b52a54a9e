"""A client that hangs up stops its request.

Without this, a request whose client has gone runs on to the end of the gateway's deadline:
the handler awaits Triton, and the seal model reads every seal of a page nobody waits for,
holding the requests queued behind it (seen: a page of 20 seals, curl stopped after 2 s, the
next page answered 504 after the whole 5 s deadline). Here the handler is cancelled as soon
as the client hangs up, which cancels its gRPC call; Triton passes that on to the model,
which stops at its next model call (`pymodel.check_cancelled`).

Pure ASGI. The app reads the request body as usual; once it has all of it, one task waits
for the next `receive` message, which the server sends only when the client disconnects or
the response is complete. A disconnect before the response has started cancels the app's
task, and the request is recorded as 499 (nginx's "client closed request", sent to nobody):
a response already started is left to finish here. A stream (a PDF's pages as NDJSON lines,
gateway.documents) is the exception that needs no help: Starlette's StreamingResponse listens
for the disconnect itself and cancels the stream, which cancels its Triton request, and the
document model reads no page after.
"""

from __future__ import annotations

import asyncio
import logging

from starlette.types import ASGIApp, Message, Receive, Scope, Send

CLIENT_CLOSED = 499
logger = logging.getLogger(__name__)


class CancelOnDisconnect:
    """Cancels a request's handling when its client disconnects before the response starts."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        body_read = asyncio.Event()
        after_body: asyncio.Future[Message] = asyncio.get_running_loop().create_future()
        started = False

        async def app_receive() -> Message:
            if body_read.is_set():  # the watcher owns `receive` now: share what it gets
                return await asyncio.shield(after_body)
            message = await receive()
            if message["type"] != "http.request" or not message.get("more_body", False):
                body_read.set()
            return message

        async def app_send(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        async def handle() -> None:
            await self.app(scope, app_receive, app_send)

        handling = asyncio.create_task(handle())

        async def watch() -> None:
            await body_read.wait()
            message = await receive()
            after_body.set_result(message)
            if message["type"] == "http.disconnect" and not started:
                handling.cancel()

        watcher = asyncio.create_task(watch())
        try:
            await handling
        except asyncio.CancelledError:
            current = asyncio.current_task()
            if current is not None and current.cancelling():
                handling.cancel()  # we were cancelled ourselves (shutdown): so is the app
                raise
            logger.info("client disconnected before the response: handling cancelled")
            await send({"type": "http.response.start", "status": CLIENT_CLOSED, "headers": []})
            await send({"type": "http.response.body", "body": b""})
        finally:
            watcher.cancel()
