"""The per-request loop of the python models: one response per request, in order, and the
request being answered, whose client every BLS call made for it checks first."""

from __future__ import annotations

import asyncio
from contextvars import ContextVar
from typing import Any

from pymodel.errors import RequestCancelled, failed

# The request a model is answering, set around `respond`: every BLS call made for it checks
# first that its client still waits, and joins its trace (`_tensor_request`), so the models
# need not pass it on.
_answering: ContextVar[Any] = ContextVar("answering", default=None)


def answering(request: Any) -> None:
    """Marks `request` as the one the calling task (and the tasks it starts) answers: their
    BLS calls stop once its client has gone. The error boundaries set it; a decoupled model,
    which answers outside them, sets it itself."""
    _answering.set(request)


class PerRequestModel:
    """Base of the python models: exactly one response per request, in order.

    Subclasses implement `respond` and simply raise: `failed` is the one error boundary that
    turns what they raise into that request's error response, never failing the others.
    """

    def execute(self, requests: list[Any]) -> list[Any]:
        return [self._guarded(request) for request in requests]

    def _guarded(self, request: Any) -> Any:
        answering = _answering.set(request)
        try:
            return self.respond(request)
        except Exception as exc:  # noqa: BLE001 - the contract: never fail the other requests
            return failed(exc, type(self).__module__, request)
        finally:
            _answering.reset(answering)

    def respond(self, request: Any) -> Any:
        raise NotImplementedError


class AsyncPerRequestModel:
    """`PerRequestModel` for models whose work awaits other models (BLS `async_exec`): the
    requests of a batch are answered concurrently, each by the coroutine `respond`."""

    async def execute(self, requests: list[Any]) -> list[Any]:
        return list(await asyncio.gather(*(self._guarded(request) for request in requests)))

    async def _guarded(self, request: Any) -> Any:
        answering(request)  # in this request's own task (gather): its calls' tasks inherit it
        try:
            return await self.respond(request)
        except Exception as exc:  # noqa: BLE001 - the contract: never fail the other requests
            return failed(exc, type(self).__module__, request)

    async def respond(self, request: Any) -> Any:
        raise NotImplementedError


def check_cancelled(request: Any) -> None:
    """Raises RequestCancelled where Triton has marked `request` cancelled: a long request
    (a page of many seals) then stops at its next model call instead of holding the model
    instance, and the requests queued behind it, for an answer nobody reads. Calls already in
    flight finish: a page of 24 seals past a 5 s deadline had 104 strips read after its 504,
    and has 10 now."""
    if request.is_cancelled():
        raise RequestCancelled
