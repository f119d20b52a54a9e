"""The benchmark harness's pure parts: generator output parsing, /proc accounting, bodies, tables."""

from __future__ import annotations

import mmap
import os
import re
import struct
import subprocess
import time
from pathlib import Path

import numpy as np
import pytest
import tritonclient.grpc.service_pb2 as pb

from bench import app_overhead, frontdoor, tracing
from bench.loadgen import LoadGeneratorError, Run, parse_h2load_log, parse_wrk
from bench.procstat import all_stats, descendants, pin_tree, tree_cpu_s, tree_pss_mib

PNG = b"\x89PNG\r\n\x1a\n" + bytes(range(40))


def test_parse_wrk_takes_the_json_line_after_the_report() -> None:
    stdout = 'Running 1s test\n  1 threads\n{"requests": 5, "status": 1}\n'
    assert parse_wrk(stdout) == {"requests": 5, "status": 1}


def test_parse_wrk_without_summary_is_an_error() -> None:
    with pytest.raises(LoadGeneratorError):
        parse_wrk("unable to connect\n")


def test_parse_h2load_log_reads_status_and_duration() -> None:
    statuses, durations = parse_h2load_log("1795\t200\t1200\n1796\t503\t900\n")
    assert statuses.tolist() == [200, 503] and durations.tolist() == [1200, 900]
    assert parse_h2load_log("")[0].size == 0


def test_descendants_walks_the_whole_tree_only() -> None:
    def stat(ppid: int) -> list[str]:
        return ["S", str(ppid)] + ["0"] * 20

    stats = {1: stat(0), 10: stat(1), 11: stat(10), 12: stat(11), 20: stat(1)}
    assert descendants(10, stats) == {10, 11, 12}
    assert descendants(99, stats) == set()


def test_tree_cpu_grows_with_work() -> None:
    before = tree_cpu_s(os.getpid())
    deadline = time.process_time() + 0.1
    while time.process_time() < deadline:
        pass
    assert tree_cpu_s(os.getpid()) - before >= 0.05


def test_tree_pss_grows_with_memory_touched() -> None:
    # Fresh anonymous pages, each written once, so resident: a bytes object of this size may be
    # served from heap pages already resident after a long test session, and not grow the PSS.
    size, page = 64 * 1024 * 1024, mmap.PAGESIZE
    before = tree_pss_mib(os.getpid())
    with mmap.mmap(-1, size) as block:
        for offset in range(0, size, page):
            block[offset] = 1
        grown = tree_pss_mib(os.getpid()) - before
    assert 48 < grown < 80


def test_pin_tree_moves_a_child_and_its_child_to_one_cpu() -> None:
    one = {min(os.sched_getaffinity(0))}
    # A shell that starts a sleep and waits: a tree of two processes.
    shell = subprocess.Popen(["sh", "-c", "sleep 30 & wait"])
    try:
        deadline = time.monotonic() + 5
        while len(tree := descendants(shell.pid, all_stats())) < 2 and time.monotonic() < deadline:
            time.sleep(0.02)
        pin_tree(shell.pid, one)
        assert len(tree) == 2
        assert all(os.sched_getaffinity(pid) == one for pid in tree)
    finally:
        subprocess.run(["pkill", "-P", str(shell.pid)], check=False)
        shell.wait(timeout=5)


def test_grpc_frame_is_length_prefixed_model_infer_request() -> None:
    frame = frontdoor.grpc_frame(frontdoor.infer_request(PNG))
    assert frame[0] == 0 and struct.unpack(">I", frame[1:5])[0] == len(frame) - 5
    request = pb.ModelInferRequest.FromString(frame[5:])
    assert request.model_name == "mnist" and request.raw_input_contents[0] == PNG
    assert list(request.inputs[0].shape) == [1, len(PNG)]


def test_binary_tensor_body_header_length_splits_json_from_bytes() -> None:
    body, header_length = frontdoor.binary_tensor_body(PNG)
    assert body[header_length:] == PNG
    assert body[:header_length].decode().startswith('{"inputs"')


def test_multipart_body_carries_the_bytes_in_the_image_field() -> None:
    body = frontdoor.multipart_body(PNG)
    assert b'name="image"' in body and PNG in body and body.endswith(f"--{frontdoor.BOUNDARY}--\r\n".encode())


def _sample(path: str, connections: int, requests: int, p50: float, errors: int = 0) -> frontdoor.Sample:
    run = Run(requests, errors, 1.0, p50, p50 * 2, p50 * 3, 0.01)
    return frontdoor.Sample(path, connections, run, gateway_cpu_s=0.1, triton_cpu_s=0.2)


def test_summarise_pools_rounds_and_ratio_compares_with_native() -> None:
    samples = [
        _sample("gateway", 16, 80, 10.0),
        _sample("gateway", 16, 80, 12.0),
        _sample("triton-http", 16, 100, 8.0),
        _sample("triton-http", 16, 100, 8.0),
    ]
    rows = {row.path: row for row in frontdoor.summarise(samples)}
    assert rows["gateway"].rps == pytest.approx(80) and rows["gateway"].p50_ms == pytest.approx(11.0)
    assert rows["gateway"].gateway_cpu_ms == pytest.approx(1000 * 0.2 / 160)
    ratios = frontdoor.ratio_table(list(rows.values()))
    assert "| gateway | 16 | 0.80 | +3.00 |" in ratios


def test_digit_png_is_a_small_png() -> None:
    data = frontdoor.digit_png(np.zeros((28, 28), np.uint8))
    assert data.startswith(b"\x89PNG") and len(data) < 4096


@pytest.mark.parametrize("kind", ["multipart", "raw"])
def test_app_overhead_drives_the_real_app_to_200(kind: str) -> None:
    image = frontdoor.digit_png(np.zeros((28, 28), np.uint8))
    body, content_type = (
        (frontdoor.multipart_body(image), f"multipart/form-data; boundary={frontdoor.BOUNDARY}")
        if kind == "multipart"
        else (image, "application/octet-stream")
    )
    assert app_overhead.cpu_us_per_request(body, content_type, requests=5, repeats=1) > 0


def test_every_benchmark_is_run_or_imported_by_something_else() -> None:
    """A benchmark nothing names (the Makefile, a document, another module or a test) is code
    kept for what was tried: git keeps it."""
    root = Path(__file__).resolve().parents[2]
    skipped = {".git", ".cache", "node_modules", "__pycache__", "results"}
    texts = {
        path: path.read_text(encoding="utf-8")
        for pattern in ("*.py", "*.md", "*.toml", "Makefile")
        for path in root.rglob(pattern)
        if not any(part in skipped or part.startswith(".venv") for part in path.relative_to(root).parts)
    }
    benchmarks = [path for path in (root / "bench").glob("*.py") if not path.stem.startswith("__")]
    unused = [
        path.stem
        for path in benchmarks
        if not any(
            re.search(rf"\bbench[./]{path.stem}\b|from bench import [^\n]*\b{path.stem}\b", text)
            for other, text in texts.items()
            if other != path
        )
    ]
    assert unused == []


class FakeStoppedTriton:
    """Fake: a Triton that exited, with a log, for `tracing.check_served`."""

    def is_running(self) -> bool:
        return False

    def returncode(self) -> int:
        return -11

    def log_tail(self) -> str:
        return "E1128 tracing exporter failed"


def test_tracing_check_served_says_which_arm_stopped_and_shows_its_log() -> None:
    stopped = FakeStoppedTriton()
    fine = [_sample(tracing.OFF, 16, 100, 1.0), _sample(tracing.TRACED, 16, 100, 1.0, errors=3)]
    tracing.check_served(fine, {tracing.OFF: stopped, tracing.TRACED: stopped})  # type: ignore[dict-item]
    down = [_sample(tracing.OFF, 16, 100, 1.0), _sample(tracing.TRACED, 16, 40, 1.0, errors=40)]
    said = r"(?s)gateway and Triton traced.*exited with -11.*exporter failed"
    with pytest.raises(tracing.ArmDown, match=said):
        tracing.check_served(down, {tracing.OFF: stopped, tracing.TRACED: stopped})  # type: ignore[dict-item]
