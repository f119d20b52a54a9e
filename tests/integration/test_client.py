"""`python -m gateway.client` against the real stack: a folder of real digits and a file the
service refuses, JSON Lines out, and a second run that resumes instead of sending again; a
PDF's pages streamed into a line each."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest
from PIL import Image

from evaluation.support.digits import load_mnist
from tests.support.seal_pages import as_pdf, seal_grid

pytestmark = pytest.mark.integration
DIGITS = 5


def client(*args: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "gateway.client", *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)


@pytest.fixture
def folder(tmp_path: Path) -> tuple[Path, list[int]]:
    """Held-out MNIST digits as PNGs in a folder tree, and a text file posing as a PNG."""
    images, labels = load_mnist("heldout")
    (tmp_path / "more").mkdir()
    for i in range(DIGITS):
        ok, encoded = cv2.imencode(".png", 255 - images[i].astype(np.uint8))
        assert ok
        (tmp_path / ("more" if i % 2 else ".") / f"digit{i}.png").write_bytes(encoded.tobytes())
    (tmp_path / "notes.png").write_bytes(b"not an image at all")
    return tmp_path, [int(label) for label in labels[:DIGITS]]


def test_a_folder_is_read_into_json_lines_and_a_second_run_resumes(
    gateway_url: str, folder: tuple[Path, list[int]], tmp_path_factory: pytest.TempPathFactory
) -> None:
    root, labels = folder
    output = tmp_path_factory.mktemp("out") / "digits.jsonl"
    first = client("mnist", str(root), "--url", gateway_url, "--concurrency", "3", "--output", str(output))
    assert first.returncode == 1, first.stderr  # one file failed
    assert "6/6 files, 1 failed, 5 pages" in first.stderr
    records = {Path(r["file"]).name: r for r in map(json.loads, output.read_text().splitlines())}
    assert len(records) == DIGITS + 1
    assert records["notes.png"]["status"] == 415
    assert records["notes.png"]["error"]["code"] == "unsupported_media_type"
    read = [records[f"digit{i}.png"] for i in range(DIGITS)]
    assert all(r["status"] == 200 for r in read)
    correct = sum(r["result"]["label"] == label for r, label in zip(read, labels, strict=True))
    assert correct >= DIGITS - 1  # the model reads 99% of held-out digits

    again = client("mnist", str(root), "--url", gateway_url, "--output", str(output))
    assert again.returncode == 0, again.stderr
    assert "resuming: 6 of 6 files already done" in again.stderr
    assert len(output.read_text().splitlines()) == DIGITS + 1


def test_a_gateway_that_is_not_there_gives_a_line_per_file_not_a_crash(
    folder: tuple[Path, list[int]], tmp_path_factory: pytest.TempPathFactory
) -> None:
    root, _ = folder
    output = tmp_path_factory.mktemp("out") / "down.jsonl"
    done = client(
        "mnist", str(root), "--url", "http://127.0.0.1:9", "--attempts", "2", "--output", str(output)
    )
    assert done.returncode == 1
    records = [json.loads(line) for line in output.read_text().splitlines()]
    assert len(records) == DIGITS + 1 and all(r["status"] == 0 for r in records)
    assert all(r["error"]["code"] == "no_answer" for r in records)


def test_a_pdf_is_written_a_line_per_page_and_a_resumed_run_skips_it(
    gateway_url: str, tmp_path_factory: pytest.TempPathFactory
) -> None:
    root = tmp_path_factory.mktemp("contracts")
    page = Image.fromarray(seal_grid(1, 1)[..., ::-1])
    (root / "contract.pdf").write_bytes(as_pdf([page] * 3))
    output = root / "seals.jsonl"
    first = client("seal", str(root / "contract.pdf"), "--url", gateway_url, "--output", str(output))
    assert first.returncode == 0, first.stderr
    assert "1/1 files, 0 failed, 3 pages" in first.stderr
    *pages, closing = map(json.loads, output.read_text().splitlines())
    assert sorted(p["page"] for p in pages) == [1, 2, 3]  # each as it came, before the file's own line
    assert all(p["status"] == 200 and len(p["result"]["seals"]) == 1 for p in pages)
    assert closing["status"] == 200 and closing["result"]["done"] and closing["result"]["pages"] == 3
    again = client("seal", str(root / "contract.pdf"), "--url", gateway_url, "--output", str(output))
    assert "resuming: 1 of 1 files already done" in again.stderr
    assert len(output.read_text().splitlines()) == 4
