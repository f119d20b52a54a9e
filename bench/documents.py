"""Long documents: a PDF's pages streamed as they are read, against the same pages each read on
its own, and the first document after a fresh start.

- `stream`: a mixed PDF (pages with seals, pages of dense printed text, nearly blank pages)
  sent once as an NDJSON stream, against each of its pages sent as a one-page PDF by as many
  clients as the document model reads pages at once (its `pages_in_flight`), side by side in
  one process tree, which goes first alternating by round, so that the ratio of the two
  holds on a shared machine (the last row pools the rounds). It reports when the first line
  and the first page came, the stream's total over the pages' own (their closed-loop wall
  time, and the sum of their latencies over the concurrency); then one more stream with the
  memory (PSS, the stubs' shared memory counted once) of Triton's tree and of the document
  model's stub sampled, apart from the timed ones: a sample costs tens of ms of kernel CPU,
  and sampling 4 times a second made the stream 10-25% slower than the pages alone.
- `fresh`: a stack started for the purpose answers a dense-text PDF as one JSON answer at
  once, then again, warm.
"""

from __future__ import annotations

import io
import json
import random
import re
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx
import numpy as np
from PIL import Image, ImageDraw

from bench.procstat import tree_pss_mib
from bench.serving import Stack, local_stack
from evaluation.seal.generator import generate_page
from evaluation.support.pdf import as_pdf
from evaluation.support.text_corpus import EN_SENTENCES, font_paths, load_font, wrap

MODELS = Path(__file__).resolve().parent.parent / "triton_repo" / "models"
IN_FLIGHT = re.compile(r'key: "pages_in_flight" value: \{ string_value: "(\d+)" \}')
DOCUMENT_MODELS = {"/v1/seal": "seal_document", "/v1/ocr": "ocr_document"}
A4_150_DPI = (1240, 1754)  # a scan's page in pixels; Triton renders it at its own dpi
TEXT_PX, LINE_STEP_PX, MARGIN_PX = 24, 32, 80  # a dense page: 50 lines of 11-point text
MIX = ("seals", "text", "seals", "blank", "text")  # the order pages of each kind come in
MEMORY_EVERY_S = 0.5
NDJSON = {"Accept": "application/x-ndjson"}
TIMEOUT_S = 3600


def dense_text_page(seed: int) -> Image.Image:
    """An A4 scan at 150 dpi filled with printed English lines."""
    rng = random.Random(seed)
    font = load_font(font_paths("en")[0], TEXT_PX)
    page = Image.new("L", A4_150_DPI, 250)
    text = " ".join(rng.choice(EN_SENTENCES) for _ in range(200))
    lines = wrap(text, "en", font, A4_150_DPI[0] - 2 * MARGIN_PX)
    rows = (A4_150_DPI[1] - 2 * MARGIN_PX) // LINE_STEP_PX
    draw = ImageDraw.Draw(page)
    for row, line in enumerate(lines[:rows]):
        draw.text((MARGIN_PX, MARGIN_PX + row * LINE_STEP_PX), line, fill=20, font=font)
    return page


def seal_page(seed: int) -> Image.Image:
    """A generated page of one to three seals, in a style drawn by weight (contracts,
    invoices, official letters, photos)."""
    rng = np.random.default_rng(seed)
    return Image.open(io.BytesIO(generate_page(rng, int(rng.integers(1, 4))).image_bytes))


def blank_page(seed: int) -> Image.Image:
    """A nearly blank page: a short heading and a page number."""
    page = Image.new("L", A4_150_DPI, 252)
    draw = ImageDraw.Draw(page)
    font = load_font(font_paths("en")[0], TEXT_PX)
    draw.text((MARGIN_PX, MARGIN_PX), f"Annex {seed}", fill=30, font=font)
    draw.text((A4_150_DPI[0] // 2, A4_150_DPI[1] - MARGIN_PX), str(seed), fill=30, font=font)
    return page


KINDS = {"seals": seal_page, "text": dense_text_page, "blank": blank_page}


def mixed_pages(count: int, seed: int = 42) -> list[Image.Image]:
    """`count` pages of the kinds in MIX, in turn."""
    return [KINDS[MIX[n % len(MIX)]](seed + n) for n in range(count)]


def pages_in_flight(route: str) -> int:
    """The document model's `pages_in_flight`, as its config says."""
    config = (MODELS / DOCUMENT_MODELS[route] / "config.pbtxt").read_text()
    match = IN_FLIGHT.search(config)
    if match is None:
        raise ValueError(f"{DOCUMENT_MODELS[route]} names no pages_in_flight")
    return int(match[1])


@dataclass(frozen=True)
class StreamRun:
    pages: int
    failed: int
    first_line_s: float
    first_page_s: float
    total_s: float


@dataclass(frozen=True)
class OwnRun:
    pages: int
    failed: int
    wall_s: float
    latencies_s: list[float]


@dataclass
class Peak:
    """The PSS of Triton's tree, and of the document model's stub alone, before and at most."""

    before: float
    model_before: float
    peak: float = 0.0
    model_peak: float = 0.0


@contextmanager
def peak_memory(pid: int, model: str) -> Iterator[Peak]:
    """Samples the tree's PSS, and the document model's, while the block runs (each sample
    costs tens of ms of kernel CPU: timed runs take none)."""
    stub = f"models/{model}/"
    peak, stop = Peak(tree_pss_mib(pid), tree_pss_mib(pid, stub)), threading.Event()

    def sample() -> None:
        while True:
            peak.peak = max(peak.peak, tree_pss_mib(pid))
            peak.model_peak = max(peak.model_peak, tree_pss_mib(pid, stub))
            if stop.wait(MEMORY_EVERY_S):
                return

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    try:
        yield peak
    finally:
        stop.set()
        sampler.join()


def stream_once(stack: Stack, route: str, pdf: bytes) -> StreamRun:
    """The PDF sent once as a stream: when its lines came."""
    seen: list[tuple[float, dict[str, object]]] = []
    start = time.perf_counter()
    files = {"image": ("mixed.pdf", pdf, "application/pdf")}
    with httpx.stream(
        "POST", stack.gateway_url + route, files=files, headers=NDJSON, timeout=TIMEOUT_S
    ) as response:
        response.raise_for_status()
        for line in response.iter_lines():
            seen.append((time.perf_counter() - start, json.loads(line)))
    pages = [(at, line) for at, line in seen if "page" in line]
    closing = seen[-1][1]
    assert closing.get("done"), f"the stream did not close: {closing}"
    return StreamRun(
        pages=len(pages),
        failed=sum("error" in line for _, line in pages),
        first_line_s=seen[0][0],
        first_page_s=pages[0][0],
        total_s=seen[-1][0],
    )


def each_page_alone(stack: Stack, route: str, pages: list[bytes], concurrency: int) -> OwnRun:
    """Every page as a one-page PDF of its own, `concurrency` clients in a closed loop."""

    def one(client: httpx.Client, pdf: bytes) -> tuple[float, bool]:
        start = time.perf_counter()
        response = client.post(route, files={"image": ("page.pdf", pdf, "application/pdf")})
        return time.perf_counter() - start, response.status_code == 200

    limits = httpx.Limits(max_connections=concurrency)
    with httpx.Client(base_url=stack.gateway_url, timeout=TIMEOUT_S, limits=limits) as client:
        start = time.perf_counter()
        with ThreadPoolExecutor(concurrency) as pool:
            results = list(pool.map(lambda pdf: one(client, pdf), pages))
        wall = time.perf_counter() - start
    return OwnRun(len(pages), sum(not ok for _, ok in results), wall, [seconds for seconds, _ in results])


def _row(round_: str, streamed: StreamRun, own: OwnRun, concurrency: int) -> str:
    summed = sum(own.latencies_s) / concurrency
    return (
        f"| {round_} | {streamed.pages} ({streamed.failed} failed) | {streamed.first_line_s:.2f} "
        f"| {streamed.first_page_s:.2f} | {streamed.total_s:.1f} | {own.wall_s:.1f} | {summed:.1f} "
        f"| {streamed.total_s / own.wall_s:.3f} | {streamed.total_s / summed:.3f} |"
    )


def memory_line(stack: Stack, route: str, pdf: bytes) -> str:
    """One more stream, its memory sampled."""
    with peak_memory(stack.triton_pid, DOCUMENT_MODELS[route]) as peak:
        streamed = stream_once(stack, route, pdf)
    return (
        f"Memory, one more stream sampled every {MEMORY_EVERY_S:g} s ({streamed.total_s:.0f} s): "
        f"Triton's tree {peak.before:.0f} MiB PSS before, {peak.peak:.0f} at most "
        f"(+{peak.peak - peak.before:.0f}); the document model's stub {peak.model_before:.0f} "
        f"before, {peak.model_peak:.0f} at most (+{peak.model_peak - peak.model_before:.0f})."
    )


def stream_table(stack: Stack, route: str, count: int, rounds: int) -> str:
    images = mixed_pages(count)
    pdf, alone = as_pdf(images), [as_pdf([image]) for image in images]
    concurrency = pages_in_flight(route)
    warm = each_page_alone(stack, route, alone[: len(MIX)], concurrency)  # first calls, connections
    assert not warm.failed
    rows, streams, owns = [], [], []
    for round_ in range(1, rounds + 1):
        if round_ % 2:  # the order alternates, so that drift in the machine's load falls on both
            own, streamed = each_page_alone(stack, route, alone, concurrency), stream_once(stack, route, pdf)
        else:
            streamed, own = stream_once(stack, route, pdf), each_page_alone(stack, route, alone, concurrency)
        streams.append(streamed.total_s)
        owns.append(own.wall_s)
        rows.append(_row(str(round_), streamed, own, concurrency))
    rows.append(f"| all | | | | {sum(streams):.1f} | {sum(owns):.1f} | | {sum(streams) / sum(owns):.3f} | |")
    return "\n".join(
        [
            f"### `{route}`: a {count}-page mixed PDF streamed, against its pages read alone "
            f"({concurrency} at a time, the document model's pages_in_flight)",
            "",
            f"{len(pdf) / 1e6:.1f} MB; pages in turn: {', '.join(MIX)}. Times in seconds from the request.",
            "",
            "| round | pages streamed | first line | first page | stream total | pages alone, wall "
            "| pages alone, sum / concurrency | stream / wall | stream / sum |",
            "|---|---|---|---|---|---|---|---|---|",
            *rows,
            "",
            memory_line(stack, route, pdf),
        ]
    )


def fresh_table(route: str, pages: int) -> str:
    """A stack started for this: the dense-text PDF as one JSON answer at once, then again."""
    pdf = as_pdf([dense_text_page(seed) for seed in range(pages)])
    rows = []
    with local_stack() as stack:
        with httpx.Client(base_url=stack.gateway_url, timeout=TIMEOUT_S) as client:
            for when in ("first after start", "again, warm"):
                start = time.perf_counter()
                response = client.post(route, files={"image": ("dense.pdf", pdf, "application/pdf")})
                seconds = time.perf_counter() - start
                read = len(response.json().get("pages", [])) if response.status_code == 200 else 0
                rows.append(f"| {when} | {response.status_code} | {read} | {seconds:.1f} |")
    return "\n".join(
        [
            f"### `{route}`: a {pages}-page dense-text PDF as one JSON answer on a freshly started stack",
            "",
            "| request | status | pages | seconds |",
            "|---|---|---|---|",
            *rows,
        ]
    )
