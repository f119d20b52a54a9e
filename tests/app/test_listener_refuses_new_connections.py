"""The SYN-dropping filter `gateway.server` attaches to a listener before its last accept, on
real loopback sockets: a connection completed before it stays queued and is accepted, a new
one never completes, and once the listener is closed that client's connect is refused; on a
kernel without socket filters (a fake listener) the drain goes on without it and says so."""

from __future__ import annotations

import contextlib
import errno
import socket
import time

import pytest

from gateway.server import _accept_queued, _refuse_new_connections


def _listener() -> socket.socket:
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(16)
    return listener


def _connect_started(address: tuple[str, int]) -> socket.socket:
    client = socket.socket()
    client.setblocking(False)
    with contextlib.suppress(BlockingIOError):
        client.connect(address)
    return client


def _connect_error(client: socket.socket, within_s: float) -> int | None:
    """The connect's error once it has ended (0 if it completed), or None if still pending."""
    deadline = time.monotonic() + within_s
    while time.monotonic() < deadline:
        try:
            client.getpeername()
            return 0
        except OSError:
            error = client.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR)
            if error:
                return error
        time.sleep(0.01)
    return None


def test_a_filtered_listener_keeps_its_queue_and_completes_no_new_handshake() -> None:
    listener = _listener()
    address = listener.getsockname()
    with socket.create_connection(address) as before:
        before.sendall(b"GET / HTTP/1.1\r\n\r\n")
        _refuse_new_connections(listener)
        late = _connect_started(address)
        assert _connect_error(late, within_s=0.3) is None  # its SYN went unanswered
        listener.setblocking(False)
        queued = _accept_queued(listener)
        assert len(queued) == 1 and queued[0].recv(64).startswith(b"GET /")
        listener.close()
        # The client retries its SYN after about a second, and now meets no listener.
        assert _connect_error(late, within_s=5) == errno.ECONNREFUSED
        for connection in [*queued, late]:
            connection.close()


def test_an_unfiltered_listener_completes_the_same_handshake_at_once() -> None:
    """The control: without the filter, the same late connect completes."""
    with _listener() as listener:
        late = _connect_started(listener.getsockname())
        assert _connect_error(late, within_s=0.3) == 0
        late.close()


class FakeFilterlessListener:
    """A listener whose kernel has no socket filters: setsockopt fails as it would there."""

    def setsockopt(self, *args: object) -> None:
        raise OSError(errno.ENOPROTOOPT, "Protocol not available")


def test_without_socket_filters_the_drain_goes_on_and_says_so(caplog: pytest.LogCaptureFixture) -> None:
    _refuse_new_connections(FakeFilterlessListener())  # type: ignore[arg-type]
    assert "new connections not held off" in caplog.text
