"""python -m gateway.client {mnist,ocr,seal} PATH... [--url URL] [--api-key KEY]
[--concurrency N] [--output FILE] [--expect NAME]... [--expect-file FILE] [--check document]

Sends every image and PDF under PATH to the gateway and writes one JSON line per file, and
for a PDF one line per page before it, as each page is read. For seals, --expect names the
organisations every file's seals should say: each answer then holds their verdicts
(`expected`: found or not, score, which seal; for a PDF, per page and, in its closing line,
on which page). --check document checks each page's seals against the parties the page
itself names: each page's answer holds its `parties`, each seal's `party` and the page's
`verdict`, and the summary on stderr counts the pages of each verdict. With --output, files that
already have a final answer there are skipped and new lines appended, so the same command
resumes an interrupted run (a PDF cut short is sent again whole). Exit status: 0 when every file was read, 1
when some failed, 2 on bad arguments.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TextIO

from gateway.client.files import discover, settled
from gateway.client.progress import Progress, Tally
from gateway.client.runner import EMPTY_FORM, FileOutcome, Form, PageOutcome, RetryPolicy, client_for, run

TASKS = ("mnist", "ocr", "seal")
EXPECT = "expect"  # the seal route's form field of expected names
CHECK, CHECKS = "check", ("document",)  # its form field of the document check, and its one value
API_KEY_ENV = "GATEWAY_API_KEY"


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m gateway.client", description=__doc__.splitlines()[0])
    parser.add_argument("task", choices=TASKS)
    parser.add_argument("paths", nargs="+", type=Path, metavar="PATH", help="files or folders")
    parser.add_argument("--url", default="http://127.0.0.1:8080", help="the gateway's base URL")
    parser.add_argument("--api-key", default=os.environ.get(API_KEY_ENV), help=f"or ${API_KEY_ENV}")
    parser.add_argument("--concurrency", type=int, default=4, help="requests in flight")
    parser.add_argument("--output", type=Path, help="JSON Lines file (default: stdout; no resume)")
    parser.add_argument("--attempts", type=int, default=RetryPolicy.attempts, help="tries per file")
    parser.add_argument(
        "--expect", action="append", default=[], metavar="NAME", help="seal: a name to check (repeat)"
    )
    parser.add_argument("--expect-file", type=Path, metavar="FILE", help="seal: names to check, one per line")
    parser.add_argument(
        "--check", choices=CHECKS, help="seal: document = check the seals against the parties each page names"
    )
    return parser


def names_to_expect(args: argparse.Namespace) -> list[str]:
    """The names of --expect, then those of --expect-file (blank lines skipped); raises OSError."""
    names = list(args.expect)
    if args.expect_file is not None:
        lines = args.expect_file.read_text(encoding="utf-8").splitlines()
        names += [line.strip() for line in lines if line.strip()]
    return names


def form_of(args: argparse.Namespace, parser: argparse.ArgumentParser) -> Form:
    """The text fields every file is sent with; exits (status 2) on names for another task or
    an unreadable names file."""
    try:
        names = names_to_expect(args)
    except OSError as exc:
        parser.error(f"--expect-file: {exc}")
    if (names or args.check) and args.task != "seal":
        parser.error("--expect, --expect-file and --check are for seal")
    form = ({EXPECT: names} if names else {}) | ({CHECK: [args.check]} if args.check else {})
    return form or EMPTY_FORM


@contextlib.contextmanager
def _output(path: Path | None) -> Iterator[TextIO]:
    if path is None:
        yield sys.stdout
        return
    with path.open("a", encoding="utf-8") as stream:
        yield stream


async def _run(
    args: argparse.Namespace, form: Form, files: list[Path], out: TextIO, progress: Progress
) -> None:
    def done(outcome: FileOutcome | PageOutcome) -> None:
        out.write(json.dumps(outcome.record(), ensure_ascii=False) + "\n")
        out.flush()  # a line per page and per settled file survives an interruption
        progress.update(outcome)

    async with client_for(args.url, args.api_key, args.concurrency) as client:
        policy = RetryPolicy(attempts=max(1, args.attempts))
        await run(client, f"/v1/{args.task}", files, args.concurrency, done, policy, form)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    parser = _parser()
    args = parser.parse_args(argv)
    form = form_of(args, parser)
    try:
        files = discover(args.paths)
    except FileNotFoundError as exc:
        parser.error(str(exc))
    skip = settled(args.output) if args.output else set()
    todo = [path for path in files if str(path) not in skip]
    if skip:
        sys.stderr.write(f"resuming: {len(files) - len(todo)} of {len(files)} files already done\n")
    progress = Progress(Tally(len(todo)), sys.stderr)
    with _output(args.output) as out:
        try:
            asyncio.run(_run(args, form, todo, out, progress))
        finally:
            progress.close()
    return 1 if progress.tally.failures else 0


if __name__ == "__main__":
    sys.exit(main())
