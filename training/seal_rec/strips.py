"""Rim strips for fine-tuning a CTC recogniser: generated seals whose names are random text.

The seal generator's names come from a few hundred parts (`vocab.organisation_name`), so a
recogniser fine-tuned on them could learn the names rather than the glyphs. Here three names
in four are random characters of GB2312's first level (the 3,755 common ones), half of them
followed by a legal form; the rest stay the generator's own. Each page then goes through the
seal pipeline's own finding and unwrapping (`training.seal_seq2seq.strips`), so the strips are
those the recognisers read in serving. Runs in the serving environment (`.venv`).

    .venv/bin/python -m training.seal_rec.strips --seed 101 --pages 1200 --out .cache/seal_rec/train.npz
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path

import numpy as np

from evaluation.seal.generator import vocab
from training.seal_seq2seq import strips
from training.seal_seq2seq.strip_file import save

RANDOM_SHARE = 0.75
LEGAL_FORM_SHARE = 0.5
MIN_BODY_CHARS = 4
GB2312_LEVEL1_ROWS = range(0xB0, 0xD8)  # rows 16-55 of GB2312: the first-level hanzi
GB2312_CELLS = range(0xA1, 0xFF)


def common_characters() -> tuple[str, ...]:
    """GB2312's first-level hanzi, in code order."""
    found = []
    for row in GB2312_LEVEL1_ROWS:
        for cell in GB2312_CELLS:
            try:
                found.append(bytes([row, cell]).decode("gb2312"))
            except UnicodeDecodeError:
                continue  # the last row is not full
    return tuple(found)


Namer = Callable[[np.random.Generator, int], str]


def random_names(characters: tuple[str, ...], generator_name: Namer) -> Namer:
    """An `organisation_name` that draws random text three times in four."""

    def name(rng: np.random.Generator, max_chars: int = vocab.MAX_RIM_CHARS) -> str:
        if rng.random() < 1 - RANDOM_SHARE:
            return generator_name(rng, max_chars)
        forms = vocab.LEGAL_FORMS
        tail = forms[int(rng.integers(len(forms)))] if rng.random() < LEGAL_FORM_SHARE else ""
        room = max_chars - len(tail)
        length = max(1, min(int(rng.integers(MIN_BODY_CHARS, max(MIN_BODY_CHARS + 1, room) + 1)), room))
        text = "".join(characters[int(i)] for i in rng.integers(0, len(characters), length)) + tail
        short = vocab.MIN_RIM_CHARS - len(text)  # a short body without a legal form
        return text[:max_chars] if short <= 0 else text + "有限公司"[:short]

    return name


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=101)
    parser.add_argument("--pages", type=int, default=1200)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    # The generator calls it through the module, so replacing it there reaches every design.
    vocab.organisation_name = random_names(common_characters(), vocab.organisation_name)
    images, texts = strips.collect(strips.generated_pages(args.seed, args.pages, 0), strips.OnnxSealModels())
    save(args.out, images, texts)
    print(f"{len(texts)} strips -> {args.out}")


if __name__ == "__main__":
    main()
