"""The names a request expects its seals to say (the optional `EXPECTED` input of `seal` and of
`seal_document`): how many a request may carry and how long each may be, checked here for both
models; `seal_document` checks them before it answers anything, as it does every input."""

from __future__ import annotations

from imgproc.arrays import AnyArray
from imgproc.imaging import Refused

MAX_EXPECTED = 20  # expected names a request may carry (the gateway's limit too)
MAX_NAME_CHARS = 64


def expected_names(tensor: AnyArray | None) -> list[str]:
    """The names an `EXPECTED` tensor holds (none where it was not sent); raises Refused for
    more than `MAX_EXPECTED`, an empty one or one longer than `MAX_NAME_CHARS` (the gateway
    checks them first; this guards the models' own callers)."""
    names = [] if tensor is None else [bytes(name).decode("utf-8", "replace") for name in tensor.reshape(-1)]
    if len(names) > MAX_EXPECTED:
        raise Refused(f"{len(names)} expected names; at most {MAX_EXPECTED} are checked")
    if any(not name.strip() or len(name) > MAX_NAME_CHARS for name in names):
        raise Refused(f"an expected name must hold 1 to {MAX_NAME_CHARS} characters")
    return names
