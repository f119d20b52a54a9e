"""What a request asks of its seals beside the page, checked here for both `seal` and
`seal_document` (which checks them before it answers anything, as it does every input): the
names it expects them to say (the optional `EXPECTED` input: how many a request may carry and
how long each may be), and whether they are checked against the page's own parties (`CHECK`)."""

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


# The one check a request may ask for beside its names (the optional `CHECK` input): the seals
# checked against the parties the page itself names (`pipeline.read_page(check_document=True)`).
CHECK_DOCUMENT = "document"


def check_requested(tensor: AnyArray | None) -> bool:
    """Whether a `CHECK` tensor asks for the document check (False where it was not sent);
    raises Refused for anything but the one value `CHECK_DOCUMENT`."""
    if tensor is None:
        return False
    values = [bytes(value).decode("utf-8", "replace") for value in tensor.reshape(-1)]
    if values != [CHECK_DOCUMENT]:
        raise Refused(f"CHECK must be the one value {CHECK_DOCUMENT!r}, not {values[:3]!r}")
    return True
