"""The thresholds of repairing a seal's readings (`repair`): what is cut at a rim's ends, how
much a dictionary word weighs, and how close a reading must be to a standard text.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class RepairParams:
    """What is trimmed, how much a dictionary word weighs, and what counts as close."""

    min_edge_prob: float = 0.5  # a rim character read with less is not kept at either end...
    # ...unless it is a Chinese character read with at least `keep_floor`, one pitch (at most
    # `keep_pitch` times the line's median) from its neighbour: the rim's first character,
    # next to the gap, is often the least sure (西 of 西安市 at 0.48), while a stray mark
    # does not keep the engraving's pitch. Tuning seeds 3000/7000/8000 and 7000 photos: 1 more
    # exact rim on three of the four (0 fewer), the seals-dev tuning part unchanged; 1.3 and
    # 1.6, floors 0.15 and 0.3 alike.
    keep_pitch: float = 1.3
    keep_floor: float = 0.3
    # An end group of at most `stray_chars` characters that lies more than `stray_gap` pitches
    # (the middle half's, `core_pitch`) from the rest, and at most `stray_max_gap` (further is
    # the rim's other end, across the gap), is not rim text unless each of them was read with
    # at least `stray_keep`: the rim's ends are where the strip runs on past it, onto the
    # turned characters of the purpose line or the print in the gap (息南京市..., ...加油站事由).
    stray_gap: float = 2.0
    stray_max_gap: float = 4.0
    stray_chars: int = 2
    stray_keep: float = 0.9
    # The pitch is measured over the middle half of a line of at least this many characters
    # (marks left out): a shorter line has too short a middle to measure it on.
    min_core_chars: int = 6
    # Inner lines and codes read with less confidence than this are dropped (PP-OCR's text_score).
    min_line_score: float = 0.5
    # A tax ID that fails its check characters is put right by changing at most this many of
    # its characters to look-alikes the recogniser gave at least `code_floor` (`codes`).
    code_changes: int = 2
    code_floor: float = 0.02
    # At most `tail_chars` characters after a rim ending (`words.RIM_ENDINGS`), each read with
    # less than `tail_prob`, are cut once the word list has chosen the characters: the strip runs
    # on past the rim's end into print in the gap (加油站事由 at 0.49 and 0.50), and the word
    # list may complete a word there with a character offered past the end (大学业, 业 at 0.2).
    tail_chars: int = 2
    tail_prob: float = 0.6
    # `correct` adds this (a log probability) per character that continues a dictionary word.
    # Dev seeds 7000 and 8000 (225 generated seals), exact rims: 191 without; with weight
    # 2/3/4, 199/201/202; the seals-dev photographs read as without up to 3, at 4 one worse.
    lexicon_weight: float = 3.0
    # A rim read from the wrong start is turned to end with its legal form only where at least
    # this many characters follow the form (fewer are a stray mark: 有限公司一).
    min_wrapped: int = 2
    # A reading that holds at least `standard_shared` of a standard rim's characters in order
    # (`words.STANDARD_RIMS`), and is at most `standard_longer` times its length, is that
    # text: the invoice's title is printed over the supervision seal and hides some of them.
    standard_shared: float = 0.55
    standard_longer: float = 1.5
    # Inner lines must share more (`standard.STANDARD_LINES`): 合同专用章 shares 专用章 with
    # 发票专用章 and is another purpose.
    line_shared: float = 0.75
    # An inner line one edit from exactly one purpose (`standard.PURPOSE_LINES`) is that purpose
    # where it has at least `min_purpose_chars` characters (a shorter one is too little to tell
    # by one edit); a line one shorter still, or more edits off, where it holds all but one of
    # its own characters in order and at least `purpose_shared` of the purpose's.
    min_purpose_chars: int = 4
    purpose_shared: float = 0.6


DEFAULT_REPAIR = RepairParams()
