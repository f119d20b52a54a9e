"""/v1/ocr against RapidOCR 1.4.4 (the reference) on a rendered corpus: CER must not be worse.

Pages go through the full pipeline (reference: detection, direction, recognition, score filter);
single lines go through `detect=false` (reference: `use_det=False`). The reference runs in its
own environment (`.venv-ref`, `make reference`) in a subprocess on one ONNX Runtime thread.
Target: ours <= reference + 0.5 points overall and per kind, and both under 5% on clean renders.
"""

from __future__ import annotations

import json
import subprocess
import time
from collections import defaultdict
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest

from evaluation.support.reference_ocr import REFERENCE_PYTHON
from evaluation.support.reference_ocr import SCRIPT as REFERENCE_SCRIPT
from evaluation.support.text_corpus import Sample, generate_corpus
from evaluation.text import CerTally, page_text

pytestmark = [pytest.mark.integration, pytest.mark.slow]
ROOT = Path(__file__).resolve().parents[2]
SEED, PAGES, LINES = 0, 2, 4  # per language x variant: 12 pages and 24 lines in all
MARGIN = 0.005
CLEAN_LIMIT = 0.05
CLIENT_THREADS = 2
MODE = {"page": "full", "line": "rec"}  # the reference's mode for each kind
Key = tuple[str, ...]


def reference(samples: list[Sample], folder: Path) -> dict[str, list[str]]:
    """The reference's lines per sample; fails (not skips) when its environment is missing."""
    if not REFERENCE_PYTHON.is_file():
        pytest.fail(f"{REFERENCE_PYTHON} is missing: create the reference environment with `make reference`")
    requests = []
    for sample in samples:
        path = folder / sample.name
        path.write_bytes(sample.image)
        requests.append(json.dumps({"id": sample.name, "path": str(path), "modes": [MODE[sample.kind]]}))
    done = subprocess.run(
        [str(REFERENCE_PYTHON), str(REFERENCE_SCRIPT)],
        input="\n".join(requests),
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    results = [json.loads(line) for line in done.stdout.splitlines() if line.strip()]
    return {r["id"]: [ln["text"] for ln in r["full"]] if "full" in r else [r["rec"]["text"]] for r in results}


def ours(http: httpx.Client, samples: list[Sample]) -> dict[str, list[str]]:
    def one(sample: Sample) -> list[str]:
        detect = "true" if sample.kind == "page" else "false"
        files = {"image": (sample.name, sample.image, "application/octet-stream")}
        response = http.post("/v1/ocr", files=files, params={"detect": detect})
        assert response.status_code == 200, response.text
        return [line["text"] for line in response.json()["lines"]]

    with ThreadPoolExecutor(CLIENT_THREADS) as pool:
        return dict(zip((s.name for s in samples), pool.map(one, samples), strict=True))


def tally(samples: list[Sample], texts: dict[str, list[str]]) -> dict[Key, CerTally]:
    """CER tallies per (kind, language, variant), per kind and overall."""
    tallies: dict[Key, CerTally] = defaultdict(CerTally)
    for sample in samples:
        predicted, truth = page_text(texts[sample.name]), page_text(sample.lines)
        for key in ((sample.kind, sample.language, sample.variant), (sample.kind,), ("all",)):
            tallies[key].add(predicted, truth)
    return tallies


def table(mine: dict[Key, CerTally], theirs: dict[Key, CerTally]) -> str:
    rows = [f"{'group':22} {'n':>3} {'chars':>6} {'ours %':>7} {'ref %':>7}"]
    for key in sorted(mine, key=lambda k: (len(k) == 1, k)):
        a, b = mine[key], theirs[key]
        rows.append(
            f"{'/'.join(key):22} {a.samples:3d} {a.length:6d} {100 * a.rate:7.2f} {100 * b.rate:7.2f}"
        )
    return "\n".join(rows)


def failures(mine: dict[Key, CerTally], theirs: dict[Key, CerTally]) -> list[str]:
    found = []
    for key in (k for k in mine if len(k) == 1):  # overall and per kind
        if mine[key].rate > theirs[key].rate + MARGIN:
            found.append(f"{key}: ours {mine[key].rate:.4f} > reference {theirs[key].rate:.4f} + {MARGIN}")
    for key in (k for k in mine if len(k) == 3 and k[2] == "clean"):
        if max(mine[key].rate, theirs[key].rate) >= CLEAN_LIMIT:
            found.append(f"{key}: clean CER not under {CLEAN_LIMIT}")
    return found


def test_cer_matches_the_reference(http: httpx.Client, tmp_path: Path) -> None:
    samples = generate_corpus(SEED, PAGES, LINES)
    started = time.perf_counter()
    theirs = reference(samples, tmp_path)
    reference_s, started = time.perf_counter() - started, time.perf_counter()
    mine = ours(http, samples)
    ours_s = time.perf_counter() - started
    our_tallies, ref_tallies = tally(samples, mine), tally(samples, theirs)
    differ = [s.name for s in samples if mine[s.name] != theirs[s.name]]
    print(f"\n{table(our_tallies, ref_tallies)}")  # noqa: T201
    print(f"{len(samples)} images: reference {reference_s:.1f}s, /v1/ocr {ours_s:.1f}s; differ: {differ}")  # noqa: T201
    assert not (problems := failures(our_tallies, ref_tallies)), problems
