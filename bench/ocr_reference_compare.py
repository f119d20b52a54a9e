"""Our PP-OCR functions vs RapidOCR 1.4.4 on the generated corpus: CER per kind, language and variant.

    PYTHONPATH=triton_repo/shared:. .venv/bin/python bench/ocr_reference_compare.py [--check]

Renders `evaluation/support/text_corpus`, writes the images under bench/results/ocr_compare/,
runs the reference (`.venv-ref`, evaluation/support/reference_ocr.py) in a subprocess and ours
(evaluation/ocr.py) in this process, both on one ONNX Runtime thread, and
prints a table: "full" is the whole pipeline on every image (page CER over the lines joined
in reading order), "rec" is recognition without detection on the single-line images. It also
counts images where our lines differ from the reference's at all. `--check` exits non-zero
unless ours <= reference + 0.5 points everywhere and both are under 5% on clean full runs.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

import numpy as np
from imgproc.imaging import decode_rgb

from evaluation.ocr import InProcessOcr
from evaluation.support.reference_ocr import REFERENCE_PYTHON
from evaluation.support.reference_ocr import SCRIPT as REFERENCE_SCRIPT
from evaluation.support.text_corpus import Sample, generate_corpus
from evaluation.text import CerTally, page_text

ROOT = Path(__file__).resolve().parent.parent
OUT_DIR = ROOT / "bench" / "results" / "ocr_compare"
MODEL_REPOSITORY = ROOT / "triton_repo" / "models"
MARGIN = 0.005
CLEAN_LIMIT = 0.05


def write_images(samples: list[Sample], folder: Path) -> dict[str, Path]:
    folder.mkdir(parents=True, exist_ok=True)
    paths = {}
    for sample in samples:
        path = folder / f"{sample.name}.{'jpg' if sample.variant == 'jpeg' else 'png'}"
        path.write_bytes(sample.image)
        paths[sample.name] = path
    return paths


def run_reference(samples: list[Sample], paths: dict[str, Path]) -> dict[str, dict[str, Any]]:
    requests = "".join(
        json.dumps({"id": s.name, "path": str(paths[s.name]), "modes": _modes(s)}) + "\n" for s in samples
    )
    done = subprocess.run(
        [str(REFERENCE_PYTHON), str(REFERENCE_SCRIPT)],
        input=requests,
        capture_output=True,
        text=True,
        check=True,
    )
    results = [json.loads(line) for line in done.stdout.splitlines() if line.strip()]
    return {result["id"]: result for result in results}


def _modes(sample: Sample) -> list[str]:
    return ["full", "rec"] if sample.kind == "line" else ["full"]


def run_ours(samples: list[Sample], rec_batch_size: int | None) -> dict[str, dict[str, Any]]:
    ocr = InProcessOcr(MODEL_REPOSITORY, threads=1, rec_batch_size=rec_batch_size)
    results = {}
    for sample in samples:
        rgb = decode_rgb(sample.image)
        lines = [{"text": ln.text, "score": ln.score, "box": ln.box.tolist()} for ln in ocr.read_page(rgb)]
        result: dict[str, Any] = {"id": sample.name, "full": lines}
        if "rec" in _modes(sample):
            text, score = ocr.read_line(rgb)
            result["rec"] = {"text": text, "score": score}
        results[sample.name] = result
    return results


def _texts(result: dict[str, Any], mode: str) -> list[str]:
    return [line["text"] for line in result["full"]] if mode == "full" else [result["rec"]["text"]]


def tally(samples: list[Sample], results: dict[str, dict[str, Any]]) -> dict[tuple[str, ...], CerTally]:
    tallies: dict[tuple[str, ...], CerTally] = defaultdict(CerTally)
    for sample in samples:
        for mode in _modes(sample):
            predicted = page_text(_texts(results[sample.name], mode))
            tallies[(mode, sample.kind, sample.language, sample.variant)].add(
                predicted, page_text(sample.lines)
            )
    return tallies


def disagreements(samples: list[Sample], ours: dict[str, Any], ref: dict[str, Any]) -> list[str]:
    differ = []
    for sample in samples:
        for mode in _modes(sample):
            if _texts(ours[sample.name], mode) != _texts(ref[sample.name], mode):
                differ.append(f"{sample.name}/{mode}")
    return differ


def largest_gaps(ours: dict[str, Any], ref: dict[str, Any]) -> tuple[float, float]:
    """Largest |score difference| and |box corner difference| over lines both found, in order."""
    score_gap, box_gap = 0.0, 0.0
    for name, mine in ours.items():
        for a, b in zip(mine["full"], ref[name]["full"], strict=False):
            score_gap = max(score_gap, abs(a["score"] - b["score"]))
            box_gap = max(box_gap, float(np.abs(np.subtract(a["box"], b["box"])).max()))
        if "rec" in mine:
            score_gap = max(score_gap, abs(mine["rec"]["score"] - ref[name]["rec"]["score"]))
    return score_gap, box_gap


def reference_results(samples: list[Sample], paths: dict[str, Path], reuse: bool) -> dict[str, Any]:
    """The reference's results, from the last run's file when asked and it covers these samples."""
    cached = OUT_DIR / "reference.json"
    if reuse and cached.is_file():
        results: dict[str, Any] = json.loads(cached.read_text())
        if {s.name for s in samples} <= results.keys():
            return results
    results = run_reference(samples, paths)
    cached.write_text(json.dumps(results, ensure_ascii=False, indent=1))
    return results


def report(ours: dict[tuple[str, ...], CerTally], ref: dict[tuple[str, ...], CerTally]) -> list[str]:
    failures = []
    print(f"{'mode':5} {'kind':5} {'lang':4} {'variant':7} {'n':>3} {'chars':>6} {'ours %':>7} {'ref %':>7}")
    for key in sorted(ours):
        mine, theirs = ours[key], ref[key]
        print(f"{key[0]:5} {key[1]:5} {key[2]:4} {key[3]:7} {mine.samples:3d} {mine.length:6d} "
              f"{100 * mine.rate:7.2f} {100 * theirs.rate:7.2f}")  # fmt: skip
        if mine.rate > theirs.rate + MARGIN:
            failures.append(f"{key}: ours {mine.rate:.4f} > reference {theirs.rate:.4f} + {MARGIN}")
        if key[0] == "full" and key[3] == "clean" and max(mine.rate, theirs.rate) >= CLEAN_LIMIT:
            failures.append(f"{key}: clean CER not under {CLEAN_LIMIT}")
    return failures


def _overall(tallies: dict[tuple[str, ...], CerTally], mode: str) -> float:
    picked = [t for key, t in tallies.items() if key[0] == mode]
    return sum(t.distance for t in picked) / max(sum(t.length for t in picked), 1)


def _parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--pages", type=int, default=3, help="pages per language x variant")
    parser.add_argument("--lines", type=int, default=8, help="single lines per language x variant")
    parser.add_argument("--rec-batch", type=int, default=6, help="0: all crops of an image in one batch")
    parser.add_argument("--check", action="store_true", help="exit 1 unless the acceptance target holds")
    parser.add_argument("--reuse-reference", action="store_true", help="reuse the last reference.json")
    return parser.parse_args()


def _summary(samples: list[Sample], ours: dict[str, Any], ref: dict[str, Any]) -> None:
    our_tallies, ref_tallies = tally(samples, ours), tally(samples, ref)
    for mode in ("full", "rec"):
        mine, theirs = 100 * _overall(our_tallies, mode), 100 * _overall(ref_tallies, mode)
        print(f"overall {mode}: ours {mine:.2f}%  reference {theirs:.2f}%")
    differ = disagreements(samples, ours, ref)
    print(f"outputs differing from the reference: {len(differ)} {differ}")
    score_gap, box_gap = largest_gaps(ours, ref)
    print(f"largest gaps to the reference: score {score_gap:.2g}, box corner {box_gap:.2g} px")


def main() -> int:
    args = _parse_args()
    samples = generate_corpus(args.seed, args.pages, args.lines)
    paths = write_images(samples, OUT_DIR / "images")
    started = time.perf_counter()
    ref_results = reference_results(samples, paths, args.reuse_reference)
    ref_s, started = time.perf_counter() - started, time.perf_counter()
    our_results = run_ours(samples, args.rec_batch or None)
    our_s = time.perf_counter() - started
    (OUT_DIR / "ours.json").write_text(json.dumps(our_results, ensure_ascii=False, indent=1))
    failures = report(tally(samples, our_results), tally(samples, ref_results))
    _summary(samples, our_results, ref_results)
    print(f"time: reference {ref_s:.1f}s, ours {our_s:.1f}s, {len(samples)} images")
    for failure in failures:
        print("FAIL", failure)
    return 1 if args.check and failures else 0


if __name__ == "__main__":
    sys.exit(main())
