"""Progress on stderr while a run goes, and the summary at its end."""

from __future__ import annotations

import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, TextIO

from gateway.client.runner import FileOutcome, PageOutcome

BAR_WIDTH = 30
LINE_EVERY = 0.1  # without a terminal, a line at each tenth of the run


def page_verdicts(body: Any) -> list[str]:
    """The document check's verdicts an answer holds: an image's, a PDF's pages' or one streamed
    page's (none where the check was not asked for)."""
    if not isinstance(body, dict):
        return []
    pages = body.get("pages")
    answers = pages if isinstance(pages, list) else [body]
    verdicts = [page.get("verdict") for page in answers if isinstance(page, dict)]
    return [verdict["verdict"] for verdict in verdicts if isinstance(verdict, dict)]


@dataclass
class Tally:
    """Files settled so far, failures among them, pages read, since `started`, and how many
    pages had each verdict of the document check."""

    total: int
    files: int = 0
    failures: int = 0
    pages: int = 0
    started: float = field(default_factory=time.monotonic)
    verdicts: Counter[str] = field(default_factory=Counter)

    def add(self, outcome: FileOutcome | PageOutcome) -> None:
        """A file settled, or one page of a streamed PDF read."""
        if outcome.ok:
            self.verdicts.update(page_verdicts(outcome.body))
        if isinstance(outcome, PageOutcome):
            self.pages += outcome.ok
            return
        self.files += 1
        self.failures += not outcome.ok
        self.pages += outcome.pages

    @property
    def pages_per_s(self) -> float:
        return self.pages / max(time.monotonic() - self.started, 1e-9)

    def line(self) -> str:
        """Files, failures and throughput in words, and the pages of each verdict where any."""
        verdicts = ", ".join(f"{verdict} {count}" for verdict, count in sorted(self.verdicts.items()))
        line = (
            f"{self.files}/{self.total} files, {self.failures} failed, "
            f"{self.pages} pages, {self.pages_per_s:.2f} pages/s"
        )
        return f"{line}; verdicts: {verdicts}" if verdicts else line


class Progress:
    """A bar redrawn in place on a terminal; on anything else, a line now and then."""

    def __init__(self, tally: Tally, stream: TextIO) -> None:
        self.tally, self.stream = tally, stream
        self.live = stream.isatty()
        self._next_line = LINE_EVERY

    def update(self, outcome: FileOutcome | PageOutcome) -> None:
        self.tally.add(outcome)
        share = self.tally.files / max(self.tally.total, 1)
        if self.live:
            filled = round(BAR_WIDTH * share)
            bar = "#" * filled + "." * (BAR_WIDTH - filled)
            self.stream.write(f"\r[{bar}] {self.tally.line()}")
            self.stream.flush()
        elif share >= self._next_line:
            self.stream.write(f"{self.tally.line()}\n")
            self._next_line = share + LINE_EVERY

    def close(self) -> None:
        """End the bar and print the summary."""
        if self.live:
            self.stream.write("\n")
        self.stream.write(f"done: {self.tally.line()}\n")
        self.stream.flush()
