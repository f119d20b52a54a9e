"""CancelOnDisconnect with a FAKE ASGI app and server: when a hang-up cancels the handling, and
when it must not."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from starlette.types import Message

from gateway.disconnect import CLIENT_CLOSED, CancelOnDisconnect

SCOPE: dict[str, Any] = {"type": "http", "method": "POST", "path": "/v1/seal", "headers": []}
BODY: list[Message] = [
    {"type": "http.request", "body": b"ab", "more_body": True},
    {"type": "http.request", "body": b"cd", "more_body": False},
]


class FakeServer:
    """Hands out the body, then `http.disconnect` once `hang_up` is set; records what is sent."""

    def __init__(self) -> None:
        self.messages = list(BODY)
        self.hang_up = asyncio.Event()
        self.sent: list[Message] = []

    async def receive(self) -> Message:
        if self.messages:
            return self.messages.pop(0)
        await self.hang_up.wait()
        return {"type": "http.disconnect"}

    async def send(self, message: Message) -> None:
        self.sent.append(message)


class SlowApp:
    """Reads the whole body, then waits for `answer` before responding 200."""

    def __init__(self) -> None:
        self.body = b""
        self.answer = asyncio.Event()
        self.cancelled = False

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        while True:
            message = await receive()
            self.body += message.get("body", b"")
            if not message.get("more_body", False):
                break
        try:
            await self.answer.wait()
        except asyncio.CancelledError:
            self.cancelled = True
            raise
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await asyncio.sleep(0)  # a hang-up here, mid-response, must not cut it
        await send({"type": "http.response.body", "body": b"ok"})


def statuses(server: FakeServer) -> list[int]:
    return [m["status"] for m in server.sent if m["type"] == "http.response.start"]


def test_a_hang_up_before_the_response_cancels_the_handling_and_counts_as_499() -> None:
    async def run() -> tuple[SlowApp, FakeServer]:
        app, server = SlowApp(), FakeServer()
        handling = asyncio.create_task(CancelOnDisconnect(app)(SCOPE, server.receive, server.send))
        await asyncio.sleep(0.01)
        server.hang_up.set()
        await asyncio.wait_for(handling, 1.0)
        return app, server

    app, server = asyncio.run(run())
    assert app.body == b"abcd" and app.cancelled
    assert statuses(server) == [CLIENT_CLOSED]


def test_without_a_hang_up_the_app_answers_as_it_would_alone() -> None:
    async def run() -> tuple[SlowApp, FakeServer]:
        app, server = SlowApp(), FakeServer()
        app.answer.set()
        await CancelOnDisconnect(app)(SCOPE, server.receive, server.send)
        return app, server

    app, server = asyncio.run(run())
    assert not app.cancelled and statuses(server) == [200]
    assert server.sent[-1]["body"] == b"ok"


def test_a_response_already_started_is_left_to_finish() -> None:
    async def run() -> tuple[SlowApp, FakeServer]:
        app, server = SlowApp(), FakeServer()
        server.hang_up.set()  # the server says disconnect as soon as the body is read...
        original = server.receive

        async def late_receive() -> Message:  # ...but only once the response has started
            message = await original()
            if message["type"] == "http.disconnect":
                app.answer.set()
                await asyncio.sleep(0)
            return message

        server.receive = late_receive  # type: ignore[method-assign]
        await CancelOnDisconnect(app)(SCOPE, server.receive, server.send)
        return app, server

    app, server = asyncio.run(run())
    assert not app.cancelled and statuses(server) == [200]


def test_a_shutdown_cancelling_the_request_cancels_the_app_too() -> None:
    async def run() -> SlowApp:
        app, server = SlowApp(), FakeServer()
        handling = asyncio.create_task(CancelOnDisconnect(app)(SCOPE, server.receive, server.send))
        await asyncio.sleep(0.01)
        handling.cancel()
        with pytest.raises(asyncio.CancelledError):
            await handling
        await asyncio.sleep(0)
        return app

    assert asyncio.run(run()).cancelled
