"""Reference OCR: RapidOCR 1.4.4 run in-process, to compare the project's PP-OCR pipeline against.

Runs only in the separate reference environment (`.venv-ref`, from
`evaluation/support/requirements-ref.txt`) and imports nothing from the project:

    .venv-ref/bin/python evaluation/support/reference_ocr.py < requests.jsonl > results.jsonl
    .venv-ref/bin/python evaluation/support/reference_ocr.py --input requests.jsonl --output results.jsonl

Each request line is `{"id": str, "path": str, "modes": ["full", "rec"]}` (modes optional,
both by default). Each result line is `{"id": str, "full": [{"text", "score", "box"}], "rec":
{"text", "score"}}`: "full" is the default pipeline (detection, direction classifier,
recognition, lines under text_score dropped; box is 4 [x, y] corners in image pixels) and
"rec" is `use_det=False` (direction classifier and recognition of the whole image as one line).
ONNX Runtime uses `--threads` threads (default 1) so runs stay light on shared machines.

The serving environment imports this module only for `REFERENCE_PYTHON` and `SCRIPT`, where
the reference runs from (RapidOCR is imported when the command runs).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

if TYPE_CHECKING:
    from rapidocr_onnxruntime import RapidOCR

ROOT = Path(__file__).resolve().parents[2]
REFERENCE_PYTHON = ROOT / ".venv-ref" / "bin" / "python"  # `make reference`
SCRIPT = Path(__file__).resolve()
DEFAULT_MODES = ("full", "rec")


def _full(engine: RapidOCR, path: str) -> list[dict[str, Any]]:
    result, _ = engine(path)
    return [
        {"text": text, "score": float(score), "box": [[float(x), float(y)] for x, y in box]}
        for box, text, score in (result or [])
    ]


def _rec(engine: RapidOCR, path: str) -> dict[str, Any]:
    result, _ = engine(path, use_det=False, use_cls=True, use_rec=True)
    text, score = result[0] if result else ("", 0.0)
    return {"text": text, "score": float(score)}


def run_one(engine: RapidOCR, request: dict[str, Any]) -> dict[str, Any]:
    """One request -> one result line, with the modes it asked for."""
    modes = request.get("modes", DEFAULT_MODES)
    result: dict[str, Any] = {"id": request["id"]}
    if "full" in modes:
        result["full"] = _full(engine, request["path"])
    if "rec" in modes:
        result["rec"] = _rec(engine, request["path"])
    return result


def run_all(engine: RapidOCR, lines: Iterable[str]) -> Iterator[dict[str, Any]]:
    """Results for every non-blank JSON request line, in order."""
    for line in lines:
        if line.strip():
            yield run_one(engine, json.loads(line))


def main(argv: list[str] | None = None) -> int:
    """Command line entry point; returns the exit status."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    parser.add_argument("--input", type=argparse.FileType("r", encoding="utf-8"), default=sys.stdin)
    parser.add_argument("--output", type=argparse.FileType("w", encoding="utf-8"), default=sys.stdout)
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args(argv)
    from rapidocr_onnxruntime import RapidOCR  # noqa: PLC0415 - only in .venv-ref (numpy>=2)

    engine = RapidOCR(intra_op_num_threads=args.threads, inter_op_num_threads=1)
    out: TextIO = args.output
    for result in run_all(engine, args.input):
        out.write(json.dumps(result, ensure_ascii=False) + "\n")
        out.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
