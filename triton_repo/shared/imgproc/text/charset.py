"""The recogniser's character table, read from the model's own files (one source of truth).

PP-OCRv4 exports store the dictionary as the newline-separated metadata entry `character`;
PP-OCRv5 ships it as a separate file, provisioned as `charset.txt` beside `model.onnx`.
The CTC output has two more classes than that list: the blank at index 0 and a space
appended at the end, which PP-OCR adds at training time; `load_charset` returns the full
table so that `charset[class_index]` is the character.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

import onnxruntime as ort

CHARSET_METADATA_KEY = "character"
CHARSET_FILE = "charset.txt"  # beside model.onnx, for models without the metadata
BLANK_TOKEN = "blank"  # placeholder at index 0; the decoder never emits it
SPACE = " "


def charset_from_metadata(text: str) -> list[str]:
    """The metadata's newline-separated characters with the blank in front and the space behind."""
    return [BLANK_TOKEN, *text.splitlines(), SPACE]


@cache  # read once per model: the seal model wants PP-OCRv4's for its rim and its inner lines
def load_charset(model_path: Path | str) -> tuple[str, ...]:
    """Full CTC class table of a PP-OCR recogniser: its metadata, else `charset.txt` beside it.

    Raises ValueError if the model has neither or its output width disagrees.
    """
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    session = ort.InferenceSession(str(model_path), options, providers=["CPUExecutionProvider"])
    metadata = session.get_modelmeta().custom_metadata_map
    beside = Path(model_path).parent / CHARSET_FILE
    if CHARSET_METADATA_KEY in metadata:
        charset = charset_from_metadata(metadata[CHARSET_METADATA_KEY])
    elif beside.is_file():
        charset = charset_from_metadata(beside.read_text(encoding="utf-8"))
    else:
        raise ValueError(
            f"{model_path} has no '{CHARSET_METADATA_KEY}' metadata and no {CHARSET_FILE} beside it"
        )
    classes = session.get_outputs()[0].shape[-1]
    if isinstance(classes, int) and classes != len(charset):
        raise ValueError(f"{model_path} outputs {classes} classes but its table has {len(charset)}")
    return tuple(charset)
