"""The thresholds of reading a seal's strips (`read`): which recognisers read, how their
readings are chosen, and where skipped characters are read again.
"""

from __future__ import annotations

from dataclasses import dataclass

from imgproc.text.recognition import MIN_PITCH_CHARS


@dataclass(frozen=True)
class Recognisers:
    """Triton models that read strips: `first` reads everything; the others re-read an unsure
    rim (`ReadParams.sure`), and the surest reading is kept. Names of Triton models: the CTC
    recognisers (`pymodel.RECOGNITION_MODELS`) or an encoder-decoder BLS model
    (`seq2seq_recognition`, off by default: see its model card for what it adds)."""

    # PP-OCRv6 small reads every strip; PP-OCRv4 and v5 mobile, trained on other data, fail
    # on other glyphs, so a rim v6 is unsure of is read by them too.
    first: str = "text_recognition_v6"
    others: tuple[str, ...] = ("text_recognition", "text_recognition_v5")


@dataclass(frozen=True)
class ReadParams:
    """Which recognisers read, and how their readings are chosen and filled in."""

    recognisers: Recognisers = Recognisers()

    # A rim read with less confidence than this by the first recogniser is read by the others.
    # Tuning part, its perturbations and seeds 3000/7000/8000: 0.97 reads 4 rims more than 0.93
    # (3 of them real: print read along, 役 and 检 under JPEG) and none less; 0.99 as 0.97.
    sure: float = 0.97
    alternatives: int = 10  # characters each recogniser offers per character, for repair to choose among
    # A rim candidate's likeliest characters kept per frame (`Decoded.frames`): what a name is
    # scored on. The rest of a frame's thousands of classes share a few percent at most.
    frames: int = 32
    # Two rim characters further apart than this many times the line's median pitch have lost
    # one between them; lines of fewer characters than `min_pitch_chars` have no pitch.
    pitch_gap: float = 1.6
    min_pitch_chars: int = MIN_PITCH_CHARS
    # Characters closer than this many recogniser steps apart (a dense rim) are read at too
    # coarse a step for a missing pitch to show: a pitch of 2 among pitches of 1 is rounding.
    min_pitch_steps: float = 2.5
    fill_width: float = 1.2  # a skipped character is re-read from a window this many pitches wide
    max_fill: int = 3  # at most this many characters are put in at one place
    fill_prob: float = 0.5  # each of them read (or seen there by another reading) this surely
    # A character one pitch past either end of the rim is put in when read this surely from
    # the ink image (print removed) alone (`end_windows`). Tuning part, its perturbations and
    # seeds 3000/7000/8000: 0.8 puts in none; 0.4 and 0.25 alike one more right (南 of 南宁,
    # crossed by print, read at 0.47), and nothing wrong.
    end_prob: float = 0.4
    end_ink: float = 0.02  # ...from a window with at least this share of ink (darker than `ink_level`)
    ink_level: int = 128  # a strip pixel darker than this is ink (strips are stretched: paper white)
    # A character past either end is put in, too, where a window reaching that far beyond it
    # and over the rim's `anchor_chars` end characters reads them all, the new one this surely
    # (`anchored_windows`): alone, a squeezed end character reads as nothing (石 of 石家庄 as é).
    # Tuning part, its perturbations and seeds 3000/7000/8000/17000: 0.3 reads the same rims
    # exactly as 0.5, and puts a wrong 三 before one rim already read wrong.
    anchor_chars: int = 2
    anchored_reach: float = 1.6  # ...in pitches past the end character
    anchored_prob: float = 0.5  # ...and the character put in read at least this surely
    orientation_margin: float = 0.05  # how much better a rect seal's other way must read
    # A line read as a code is read again this much wider, for repeated digits CTC merged
    # (`restored_repeats`). Real tuning codes: 1.5 and 2.0 alike restore 32011119880908361X01.
    code_stretch: float = 1.5
    # ...where it was read at least this surely: repair drops a less sure line anyway
    # (`RepairParams.min_line_score`).
    code_min_score: float = 0.5
    # A rim reading shorter than this share of the median of its arc's readings is scored as
    # if it had read that many, the skipped ones with no confidence (`counted_score`): print
    # read along makes some readings longer, and a reading without it must not lose for that.
    counted_share: float = 0.75


DEFAULT_READ = ReadParams()
