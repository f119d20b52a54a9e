"""Start a local stack with this checkout's code and hold it until killed, its addresses
written to a JSON file: what `bench.seal_ab` compares two checkouts' stacks with.

.venv/bin/python -m bench.hold STACK.json   # run it from each checkout (its own .venv)
"""

from __future__ import annotations

import json
import signal
import sys
import time
from pathlib import Path
from types import FrameType

from bench.serving import local_stack

POLL_S = 5


def _stop(signum: int, frame: FrameType | None) -> None:
    raise SystemExit(0)  # the stack's context then stops Triton and the gateway


def main() -> int:
    # Killed (SIGTERM) without this, the process ends without leaving the stack's context, and
    # the gateway it started runs on.
    signal.signal(signal.SIGTERM, _stop)
    target = Path(sys.argv[1])
    with local_stack() as stack:
        partial = target.with_suffix(".partial")
        partial.write_text(json.dumps({"gateway": stack.gateway_url, "grpc": stack.triton_grpc}))
        partial.rename(target)  # whole or absent: the comparison waits for it
        while True:
            time.sleep(POLL_S)


if __name__ == "__main__":
    sys.exit(main())
