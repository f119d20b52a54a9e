"""Encoder-decoder (TrOCR-style) line recognition as pure functions: input, greedy loop, text.

The model is two ONNX graphs in the layout `optimum` exports a `VisionEncoderDecoderModel`
to: the encoder takes `pixel_values` float32[N, 3, H, W] and gives `last_hidden_state`
[N, S, D]; the decoder takes `input_ids` int64[N, T] and `encoder_hidden_states` and gives
`logits` [N, T, V]. Greedy decoding starts every row with the decoder start token, appends
the most probable next token until the row says end-of-sequence or `max_length` tokens have
been generated, and stops when every row has ended. A row that has ended is fed padding:
the decoder is causal and rows do not mix, so padding changes no other row's output.

Every decoder call is `decode(input_ids, parents)`: the whole sequences so far, and for each
row the row of the previous call it continues (itself in greedy decoding; the beam it grew
from in a beam search). A decoder that reads the whole prefix ignores `parents`; one that keeps
past key/values between calls (`imgproc.text.past`) reorders its cache by them and reads only
the last token.

Everything a checkpoint differs by (input size, normalisation, special tokens, vocabulary)
is a `Seq2SeqSpec` parameter or the `vocab.json` beside the served model, never code: the
small model trained here (training/seal_seq2seq) and a TrOCR exported by optimum go through
the same functions with different parameters.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, fields
from functools import cache
from pathlib import Path

import cv2
import numpy as np

from imgproc.arrays import Floats, Ints, Pixels, as_pixels
from imgproc.imaging import WHITE, ImageError

from .recognition import Decoded

VOCAB_FILE = "vocab.json"
# Byte-level BPE vocabularies (GPT-2, RoBERTa: TrOCR's English checkpoints) write a space as
# this mark; SentencePiece ones write it as the second.
BYTE_LEVEL_SPACE, SENTENCEPIECE_SPACE = "\u0120", "\u2581"

# (input_ids int64[R, T], parents int64[R]) -> the logits of the last position, float32[R, V]
Decode = Callable[[Ints, Ints], Awaitable[Floats]]


@dataclass(frozen=True)
class Seq2SeqSpec:
    """How a checkpoint wants its input and its tokens (config.pbtxt parameters of the same names)."""

    height: int = 32
    width: int = 256
    keep_aspect: bool = True  # resize to `height` and pad white to `width`; else stretch (TrOCR)
    mean: float = 0.5  # pixel_values = (x / 255 - mean) / std, in RGB order
    std: float = 0.5
    decoder_start_token_id: int = 1
    eos_token_id: int = 2
    pad_token_id: int = 0
    max_length: int = 32  # generated tokens per row, end-of-sequence included
    num_beams: int = 1  # 1: greedy; more: beam search keeping this many sequences per row

    @classmethod
    def from_parameters(cls, parameters: Mapping[str, str]) -> Seq2SeqSpec:
        """The spec with every field named in `parameters` set from its text; raises ValueError."""
        values: dict[str, object] = {}
        for field in fields(cls):
            if field.name in parameters:
                text = parameters[field.name]
                values[field.name] = (
                    text.lower() == "true" if field.type == "bool" else _number(field.type, text)
                )
        return cls(**values)  # type: ignore[arg-type]


def _number(kind: object, text: str) -> float | int:
    return float(text) if kind == "float" else int(text)


def fit_strip(image: Pixels, spec: Seq2SeqSpec) -> Pixels:
    """uint8[H, W, 3] BGR line image -> uint8[spec.height, spec.width, 3]: scaled to the height
    keeping its aspect (squeezed when wider than `width`), padded white on the right; or
    stretched to the size when the checkpoint does not keep the aspect."""
    if not spec.keep_aspect:
        return as_pixels(cv2.resize(image, (spec.width, spec.height), interpolation=cv2.INTER_AREA))
    width = min(spec.width, max(1, round(image.shape[1] * spec.height / max(1, image.shape[0]))))
    fitted = np.full((spec.height, spec.width, 3), WHITE, np.uint8)
    fitted[:, :width] = cv2.resize(image, (width, spec.height), interpolation=cv2.INTER_AREA)
    return fitted


def pixel_values(fitted: Pixels, spec: Seq2SeqSpec) -> Floats:
    """uint8[N, H, W, 3] BGR fitted strips -> the encoder's float32[N, 3, H, W], RGB, normalised."""
    rgb = fitted[..., ::-1].astype(np.float32) / np.float32(WHITE)
    return np.ascontiguousarray(((rgb - np.float32(spec.mean)) / np.float32(spec.std)).transpose(0, 3, 1, 2))


def unpadded(images: Pixels, widths: Ints | None) -> list[Pixels]:
    """The rows of a white-padded uint8[N, H, W, 3] batch, each cut to its own width; raises
    ImageError when the widths are not one per row, each within the batch's width."""
    if widths is None:
        return list(images)
    widths = widths.ravel()
    if len(widths) != len(images) or (
        len(widths) and not 0 <= widths.min() <= widths.max() <= images.shape[2]
    ):
        raise ImageError(
            f"WIDTHS must give one width in 0..{images.shape[2]} per image, got {widths.tolist()}"
        )
    return [image[:, : int(width)] for image, width in zip(images, widths, strict=True)]


def padded_batch(images: Sequence[Pixels]) -> tuple[Pixels, Ints]:
    """BGR line images -> (uint8[N, H, W, 3] padded white right and below, int32[N] widths)."""
    height = max((image.shape[0] for image in images), default=1)
    width = max((image.shape[1] for image in images), default=1)
    batch = np.full((len(images), height, width, 3), WHITE, np.uint8)
    for row, image in enumerate(images):
        batch[row, : image.shape[0], : image.shape[1]] = image
    return batch, np.array([image.shape[1] for image in images], np.int32)


def _softmax(logits: Floats) -> Floats:
    shifted = np.exp(logits - logits.max(axis=1, keepdims=True))
    chances: Floats = shifted / shifted.sum(axis=1, keepdims=True)
    return chances


@dataclass(frozen=True)
class Generated:
    """One row's generated token ids (end-of-sequence included when it came) and the
    probability of each."""

    tokens: tuple[int, ...]
    probs: tuple[float, ...]


async def greedy(
    decode: Decode, rows: int, spec: Seq2SeqSpec, max_length: int | None = None
) -> list[Generated]:
    """Greedy decoding of `rows` sequences; `decode(input_ids, parents)` gives the decoder's
    logits of the last position, float32[rows, V] (`parents`: every row its own). Stops at
    `max_length` (default the spec's) generated tokens, or sooner when every row has ended.
    A row that has ended is decoded on (fed padding) until all have: its logits are unused."""
    limit = spec.max_length if max_length is None else min(max_length, spec.max_length)
    ids = np.full((rows, 1), spec.decoder_start_token_id, np.int64)
    done, parents = np.zeros(rows, bool), np.arange(rows, dtype=np.int64)
    tokens: list[list[int]] = [[] for _ in range(rows)]
    probs: list[list[float]] = [[] for _ in range(rows)]
    for _ in range(limit if rows else 0):
        logits = np.asarray(await decode(ids, parents), np.float32)
        best = np.where(done, spec.pad_token_id, logits.argmax(axis=1))
        chances = _softmax(logits)
        for row in np.nonzero(~done)[0]:
            tokens[row].append(int(best[row]))
            probs[row].append(float(chances[row, best[row]]))
        done |= best == spec.eos_token_id
        ids = np.concatenate([ids, best[:, None].astype(np.int64)], axis=1)
        if done.all():
            break
    return [Generated(tuple(t), tuple(p)) for t, p in zip(tokens, probs, strict=True)]


def _log_softmax(logits: Floats) -> Floats:
    shifted = logits - logits.max(axis=-1, keepdims=True)
    log_chances: Floats = shifted - np.log(np.exp(shifted).sum(axis=-1, keepdims=True))
    return log_chances


@dataclass
class _Beam:
    """One hypothesis of a row: its tokens, their probabilities, its summed log probability."""

    tokens: list[int]
    probs: list[float]
    score: float
    ended: bool = False

    def ranking(self) -> float:
        """Summed log probability per token (length-normalised, as transformers' beam search
        with its default length penalty of 1), so short hypotheses are not favoured."""
        return self.score / max(1, len(self.tokens))


def _extended(
    beams: list[_Beam], log_probs: Floats, width: int, spec: Seq2SeqSpec
) -> list[tuple[_Beam, int]]:
    """The `width` best one-token extensions of a row's beams (an ended beam stays as it is,
    competing with its score), best first, each with the index of the beam it grew from;
    `log_probs` is float[len(beams), V]."""
    candidates: list[tuple[float, int, int]] = []
    for b, beam in enumerate(beams):
        if beam.ended:
            candidates.append((beam.score, b, -1))
            continue
        for token in np.argsort(-log_probs[b], kind="stable")[:width]:
            candidates.append((beam.score + float(log_probs[b, token]), b, int(token)))
    candidates.sort(key=lambda c: -c[0])  # stable: the earlier beam and lower token win ties
    chosen = []
    for score, b, token in candidates[:width]:
        parent = beams[b]
        if token < 0:
            chosen.append((parent, b))
        else:
            prob = float(np.exp(log_probs[b, token]))
            grown = _Beam([*parent.tokens, token], [*parent.probs, prob], score, token == spec.eos_token_id)
            chosen.append((grown, b))
    return chosen


async def beam_search(
    decode: Decode, rows: int, spec: Seq2SeqSpec, max_length: int | None = None
) -> list[Generated]:
    """Beam search of `rows` sequences, `spec.num_beams` hypotheses each: `decode(input_ids,
    parents)` gets rows * num_beams sequences (row r's beams at r * num_beams ...; `parents`:
    the sequence of the previous call each beam grew from, within its row's) and gives the
    logits of their last position. The loop stops at `max_length` tokens or when every row's
    beams have ended; each row answers its best hypothesis (`_Beam.ranking`). With one beam it
    is greedy decoding, token for token. Ended beams (and, in the first call, the beams not
    yet there) are decoded on with padding; their logits are unused."""
    width = max(1, spec.num_beams)
    limit = spec.max_length if max_length is None else min(max_length, spec.max_length)
    beams = [[_Beam([], [], 0.0)] for _ in range(rows)]
    parents: Ints = np.arange(rows * width, dtype=np.int64)
    for _ in range(limit if rows else 0):
        ids = np.full((rows * width, 1 + max(len(b.tokens) for row in beams for b in row)), spec.pad_token_id)
        ids[:, 0] = spec.decoder_start_token_id
        for r, row in enumerate(beams):
            for b, beam in enumerate(row):
                ids[r * width + b, 1 : 1 + len(beam.tokens)] = beam.tokens
        log_probs = _log_softmax(np.asarray(await decode(ids.astype(np.int64), parents), np.float64))
        grown = [
            _extended(row, log_probs[r * width : r * width + len(row)], width, spec)
            for r, row in enumerate(beams)
        ]
        beams = [[beam for beam, _ in row] for row in grown]
        parents = _parents(grown, width)
        if all(beam.ended for row in beams for beam in row):
            break
    best = [max(row, key=_Beam.ranking) if width > 1 else row[0] for row in beams]
    return [Generated(tuple(beam.tokens), tuple(beam.probs)) for beam in best]


def _parents(grown: list[list[tuple[_Beam, int]]], width: int) -> Ints:
    """Which sequence of the last call each of the next call's grew from (a slot with no beam,
    which only a vocabulary smaller than the beam width leaves, continues its row's first)."""
    parents = np.repeat(np.arange(len(grown), dtype=np.int64) * width, width)
    for r, row in enumerate(grown):
        for b, (_, parent) in enumerate(row):
            parents[r * width + b] = r * width + parent
    return parents


async def generate(
    decode: Decode, rows: int, spec: Seq2SeqSpec, max_length: int | None = None
) -> list[Generated]:
    """Greedy decoding, or beam search where the spec asks for more than one beam (`decode`
    then gets `spec.num_beams` sequences per row: see `beam_search`)."""
    if spec.num_beams > 1:
        return await beam_search(decode, rows, spec, max_length)
    return await greedy(decode, rows, spec, max_length)


def _byte_decoder() -> dict[str, int]:
    """GPT-2's byte-level BPE alphabet, character -> byte (the inverse of `bytes_to_unicode`)."""
    printable = [
        *range(ord("!"), ord("~") + 1),
        *range(ord("¡"), ord("¬") + 1),
        *range(ord("®"), ord("ÿ") + 1),
    ]
    codes, extra = list(printable), 0
    for byte in range(256):
        if byte not in printable:
            printable.append(byte)
            codes.append(256 + extra)
            extra += 1
    return {chr(code): byte for byte, code in zip(printable, codes, strict=True)}


@dataclass(frozen=True)
class Vocabulary:
    """Token ids -> text, from a tokenizer's `vocab.json` ({token: id}); special tokens dropped."""

    tokens: tuple[str, ...]
    special: frozenset[int]
    byte_level: bool

    @classmethod
    def load(cls, path: Path, spec: Seq2SeqSpec) -> Vocabulary:
        """Read `vocab.json`; raises OSError or ValueError for a missing or malformed file."""
        table: dict[str, int] = json.loads(path.read_text(encoding="utf-8"))
        tokens = [""] * (max(table.values()) + 1)
        for token, index in table.items():
            tokens[index] = token
        special = {spec.decoder_start_token_id, spec.eos_token_id, spec.pad_token_id}
        special |= {index for token, index in table.items() if token.startswith("<") and token.endswith(">")}
        return cls(
            tuple(tokens), frozenset(special), any(token.startswith(BYTE_LEVEL_SPACE) for token in table)
        )

    def pieces(self, generated: Generated) -> list[str]:
        """The row's text pieces: its tokens, special ones dropped."""
        return [
            self.tokens[t] if t < len(self.tokens) else "" for t in generated.tokens if t not in self.special
        ]

    def text(self, pieces: Sequence[str]) -> str:
        """The pieces joined into text (byte-level BPE decoded, SentencePiece spaces restored)."""
        joined = "".join(pieces)
        if self.byte_level:
            decoder = _cached_byte_decoder()
            return bytes(decoder.get(c, ord("?")) for c in joined).decode("utf-8", errors="replace").strip()
        return joined.replace(SENTENCEPIECE_SPACE, " ").strip()


@cache
def _cached_byte_decoder() -> dict[str, int]:
    return _byte_decoder()


def text_of(vocabulary: Vocabulary, generated: Generated) -> str:
    """A row's text."""
    return vocabulary.text(vocabulary.pieces(generated))


def row_score(generated: Generated) -> float:
    """A row's confidence: the mean probability of its generated tokens (its end included,
    so a row that never ended, or ended unsure, counts that), 0 for none."""
    return float(np.mean(generated.probs)) if generated.probs else 0.0


def as_decoded(text: str, score: float) -> Decoded:
    """A recognised line in the CTC recognisers' terms: every character carries the line's
    score (a decoder's tokens need not be characters), and no steps (no column positions)."""
    return Decoded(tuple(text), (score,) * len(text))
