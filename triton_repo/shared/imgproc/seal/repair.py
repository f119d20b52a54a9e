"""Repairing a rim reading with what is known about seals, after the recognisers have read it.

In order (`repair_rim`): unsure characters, digits and loose punctuation at the rim's ends
are cut (`trim_rim_ends`: stray red marks or the bottom-arc code read along, not rim text),
and punctuation between two Chinese characters is dropped (`without_inner_marks`: a rule or a
stroke across the ring);
its characters are chosen among their alternatives to form dictionary words (`correct`, see
`imgproc.text.lexicon`); a rim read from the wrong start, with its legal form in the middle
(有限公司河南森源重工), is turned back to end with it (`started_after_legal_form`); a legal
form a company name must end with (有限公司, 有限责任公司, 股份有限公司) misread by one
character at its end is restored; and a standard text that a whole class of seals carries
(every invoice supervision seal reads 全国统一发票监制章) is restored when the reading is
close to it.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass, replace

from imgproc.text import Decoded
from imgproc.text.edit import levenshtein
from imgproc.text.lexicon import is_chinese
from imgproc.text.recognition import merged_alternatives

from .codes import passes_checks
from .shapes import Shape

# Rewrites a rim reading using its characters' alternatives (`imgproc.text.lexicon.correct`).
Correct = Callable[[Decoded], Decoded]
Line = tuple[str, float]

CODE_PATTERN = re.compile(r"[0-9A-Z]{8,}")  # a tax ID or a bottom-arc seal code
CODE_EDGE_MARKS = "~-_.,:;'\"`“”‘’·、，。：；～"  # what is cut from a code's ends
CODE_STRAY_CHARS = 2  # a piece this short set off by a space at a code's end is not the code's
# The legal forms a Chinese company name must end with (Company Law): a rim that ends one
# character away from one of them, and in none exactly, was misread there.
LEGAL_FORMS = ("股份有限公司", "有限责任公司", "有限公司")
# What may follow a legal form on a rim: a branch or office of the company (XX有限公司上海分公司)
# or a department's name, which end in one of these. Anything else after a legal form is the
# start of the name, read after its end (the rim was opened at the wrong place).
AFTER_LEGAL_FORM = tuple("公司 厂 店 部 处 中心 所 站 室 行 社 院 馆 队 组 会 章".split())
MIN_CORE_CHARS = 6  # a line of fewer characters has too short a middle to measure a pitch on
# What a rim's name ends in: its legal form, a branch or department, or the kind of body it
# names (a bureau, a university). Unsure characters after one are not the name's.
RIM_ENDINGS = (*LEGAL_FORMS, *AFTER_LEGAL_FORM, "局", "大学")
# Fewer characters read after the form are not a name's start (a stray mark: 有限公司一).
MIN_WRAPPED = 2
LEGAL_FORM_CORE = "有限"  # what a cut-short legal form must still show to be completed
# Texts that every seal of a class carries word for word: the rim of the invoice supervision
# seal (监制章) printed on every Chinese invoice since 1993, and its lower line. A reading that
# holds at least this share of one's characters in order, and is not much longer, is that
# text: the title of the invoice is printed over the seal and hides some of them.
STANDARD_RIMS = ("全国统一发票监制章",)
STANDARD_SHARED = 0.55
STANDARD_LONGER = 1.5
# Inner lines: the supervision seal's, and the purpose line of every invoice seal. Short
# lines must share more: 合同专用章 shares 专用章 with 发票专用章 and is another purpose.
STANDARD_LINES = ("国家税务总局监制", "国家税务总局", "发票专用章")
STANDARD_LINE_SHARED = 0.75
# The purposes a company's special seals (专用章) are made for, as registered with the police:
# an inner line one edit from exactly one of them is that purpose (采可专用章, 行政专用), while a
# line as close to two (验报告专用章: 检验 or 试验) or to none stays as read.
PURPOSE_LINES = tuple(
    f"{purpose}专用章"
    for purpose in (
        "发票 合同 财务 业务 人事 行政 采购 销售 质检 技术 工程 报关 检验 检测 资料 审计 物资 "
        "结算 收款 付款 招标 投标 仓库 党务 工会 检验报告 试验报告 检测报告"
    ).split()
)
MIN_PURPOSE_CHARS = 4  # a shorter line is too little to tell a purpose by one edit
# ...and a line one shorter still, or one more edits off, by the characters it shares with one
# purpose alone: at least this share of the purpose's, and all but one of its own.
PURPOSE_SHARED = 0.6
# The lines inside that only the supervision seal carries: an oval seal with one of them is
# a 监制章, whose rim is then its standard text however much of it the title print hid.
SUPERVISION_LINES = frozenset({"国家税务总局监制", "国家税务总局"})
# What is read in and around a supervision seal even where the invoice's title, printed over
# it, hides its rim: pieces of the title (增值税专用发票, 增值税普通发票: 增值, read where 税
# under the seal is not, and as its 值 often reads 直, the pieces after it), of the copy's
# name printed beside it (发票联, 抵扣联, 记账联) and of the tax bureau's line. A company's
# invoice seal (发票专用章, stamped by 销售方（章）) holds none of them; 税 alone is not one:
# the table's 税额 and 税率. The title is read on past the seal (`RepairParams.cue_reach`).
SUPERVISION_CUES = (
    "增值", "值税", "税专用", "税普通", "专用发", "用发票", "普通发", "通发票",
    "发票联", "抵扣联", "记账联",
    "税务", "监制",
)  # fmt: skip
# Punctuation that never ends a rim: dashes, dots, commas, quotation marks (brackets, Ps/Pe,
# may: "(北京)").
LOOSE_PUNCTUATION = frozenset({"Pc", "Pd", "Po", "Pi", "Pf"})
NAME_MARKS = frozenset("·・")  # the one mark a name holds inside: between a foreign name's parts


@dataclass(frozen=True)
class RepairParams:
    """What is trimmed, and how much a dictionary word weighs."""

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
    # (the middle half's, `core_pitch`) from the rest is not rim text unless each of them was
    # read with at least `stray_keep`: the rim's ends are where the strip runs on past it, onto
    # the turned characters of the purpose line or the print in the gap (息南京市..., ...加油站事由).
    stray_gap: float = 2.0
    stray_max_gap: float = 4.0
    stray_chars: int = 2
    stray_keep: float = 0.9
    min_line_score: float = (
        0.5  # inner lines and codes below this confidence are dropped (PP-OCR's text_score)
    )
    # A tax ID that fails its check characters is put right by changing at most this many of
    # its characters to look-alikes the recogniser gave at least `code_floor` (`codes`).
    code_changes: int = 2
    code_floor: float = 0.02
    # At most `tail_chars` characters after a rim ending (`RIM_ENDINGS`), each read with less
    # than `tail_prob`, are cut once the word list has chosen the characters: the strip runs
    # on past the rim's end into print in the gap (加油站事由 at 0.49 and 0.50), and the word
    # list may complete a word there with a character offered past the end (大学业, 业 at 0.2).
    tail_chars: int = 2
    tail_prob: float = 0.6
    # `correct` adds this (a log probability) per character that continues a dictionary word.
    # Dev seeds 7000 and 8000 (225 generated seals), exact rims: 191 without; with weight
    # 2/3/4, 199/201/202; the seals-dev photographs read as without up to 3, at 4 one worse.
    lexicon_weight: float = 3.0
    # An oval whose rim went unread is read with this many of its crop's widths of the page at
    # each side, for the invoice title its supervision seal is stamped across (`SUPERVISION_CUES`).
    cue_reach: float = 1.0


DEFAULT_REPAIR = RepairParams()


def code_text(text: str) -> str:
    """A line as a code would read: no spaces, no marks at its ends (a ring's edge or a stray
    dot read as ~, " or . beside the digits), and no piece of at most `CODE_STRAY_CHARS` set
    off by a space at either end where the rest reads as a code and the whole passes no
    check (the foot of the rim's last character beside a bottom-arc code: 4101021694809 Y)."""
    pieces = [piece for piece in text.split() if piece.strip(CODE_EDGE_MARKS)]
    whole = "".join(pieces).strip(CODE_EDGE_MARKS)
    if len(pieces) < 2 or passes_checks(whole):
        return whole
    for rest, end in ((pieces[:-1], pieces[-1]), (pieces[1:], pieces[0])):
        core = "".join(rest).strip(CODE_EDGE_MARKS)
        if len(end.strip(CODE_EDGE_MARKS)) <= CODE_STRAY_CHARS and CODE_PATTERN.fullmatch(core):
            return core
    return whole


def is_code(line: Line, min_score: float = DEFAULT_REPAIR.min_line_score) -> bool:
    """A number line such as a tax ID or a bottom-arc seal code."""
    text, score = line
    return score >= min_score and CODE_PATTERN.fullmatch(code_text(text)) is not None


def _in_pitch(line: Decoded, i: int, neighbour: int, pitch: float, params: RepairParams) -> bool:
    """Whether end character `i` is rim text by its place: Chinese, not too unsure, and one
    pitch from its `neighbour` (see `RepairParams.keep_pitch`)."""
    return (
        pitch > 0
        and 0 <= neighbour < len(line.chars)
        and is_chinese(line.chars[i])
        and line.probs[i] >= params.keep_floor
        and abs(line.steps[neighbour] - line.steps[i]) <= params.keep_pitch * pitch
    )


def trim_unsure_ends(line: Decoded, params: RepairParams = DEFAULT_REPAIR) -> Decoded:
    """`line` without the characters under `params.min_edge_prob` at either end, but those in
    pitch with the rest (`_in_pitch`); the middle is kept. The trimmed character next to what
    is kept is offered as an insertion there (`_offered_at_ends`): under print an end character
    is often read unsure, and where it completes a word the correction puts it back (郑 of 郑州)."""
    start, stop = 0, len(line.probs)
    pitch = line.pitch()

    def unsure(i: int, neighbour: int) -> bool:
        return line.probs[i] < params.min_edge_prob and not _in_pitch(line, i, neighbour, pitch, params)

    while start < stop and unsure(start, start + 1):
        start += 1
    while stop > start and unsure(stop - 1, stop - 2):
        stop -= 1
    return _offered_at_ends(line, start, stop)


def _offered_at_ends(line: Decoded, start: int, stop: int) -> Decoded:
    """Characters `start` to `stop` of `line`, each unsure end character trimmed next to them
    offered as an insertion there, for the word list to put back where it completes a word."""
    kept = line.part(start, stop)
    if not kept.chars or (start == 0 and stop == len(line.chars)):
        return kept
    gaps, options = list(kept.gaps()), line.options()
    if start > 0:
        gaps[0] = merged_alternatives(gaps[0], options[start - 1])
    if stop < len(line.chars):
        gaps[-1] = merged_alternatives(gaps[-1], options[stop])
    return replace(kept, insertions=tuple(gaps))


def _is_mark(char: str) -> bool:
    """Loose punctuation (`LOOSE_PUNCTUATION`): a dash, dot, comma or quotation mark."""
    return unicodedata.category(char) in LOOSE_PUNCTUATION


def core_pitch(line: Decoded) -> float:
    """The distance in steps between neighbouring characters over the middle half of the line
    (marks left out), finer than the median of whole steps; 0 for too few characters."""
    steps = [step for char, step in zip(line.chars, line.steps, strict=False) if not _is_mark(char)]
    low, high = len(steps) // 4, (3 * len(steps)) // 4
    if len(steps) < MIN_CORE_CHARS or high <= low:
        return 0.0
    return (steps[high] - steps[low]) / (high - low)


def _stray_tail(line: Decoded, pitch: float, params: RepairParams) -> int:
    """How many characters at the end of `line` are a stray group (see `RepairParams.stray_gap`)."""
    kept = [i for i, char in enumerate(line.chars) if not _is_mark(char)]
    for count in range(min(params.stray_chars, len(kept) - 1), 0, -1):
        first = kept[-count]
        gap = (line.steps[first] - line.steps[first - 1]) / pitch  # a mark read in it breaks it
        unsure = min(line.probs[i] for i in kept[-count:]) < params.stray_keep
        if unsure and params.stray_gap < gap <= params.stray_max_gap:
            return len(line.chars) - first
    return 0


def _reversed(line: Decoded) -> Decoded:
    """`line` back to front, steps mirrored, so that its start can be judged as an end."""
    last = line.steps[-1] if line.steps else 0
    return Decoded(line.chars[::-1], line.probs[::-1], tuple(last - s for s in line.steps[::-1]), line.length)


def trim_stray_ends(line: Decoded, params: RepairParams = DEFAULT_REPAIR) -> Decoded:
    """`line` without a stray group of characters at either end (`RepairParams.stray_gap`)."""
    pitch = core_pitch(line)  # 0 for a line without steps
    if pitch <= 0:
        return line
    start = _stray_tail(_reversed(line), pitch, params)
    return line.part(start, len(line.chars) - _stray_tail(line, pitch, params))


def _not_rim_start(char: str) -> bool:
    """A code digit or loose punctuation: what a Chinese rim text never begins with."""
    return (char.isascii() and char.isdigit()) or _is_mark(char)


def _not_rim_end(char: str) -> bool:
    """...nor ends with, and neither with a Latin letter (a name may begin with one: TCL)."""
    return _not_rim_start(char) or (char.isascii() and char.isalpha())


def trim_code_ends(line: Decoded) -> Decoded:
    """A Chinese `line` without digits and loose punctuation at either end, nor Latin letters
    at its end.

    Digits beside the rim text are the bottom-arc code, read along when the gap between them
    is narrow (a letter among them is a misread digit); a rim with no Chinese at all (a Latin
    or number seal) is left as it is.
    """
    if not any(is_chinese(char) for char in line.chars):
        return line
    start, stop = 0, len(line.chars)
    while start < stop and _not_rim_start(line.chars[start]):
        start += 1
    while stop > start and _not_rim_end(line.chars[stop - 1]):
        stop -= 1
    return line.part(start, stop)


def _is_inner_mark(chars: tuple[str, ...], i: int) -> bool:
    return (
        _is_mark(chars[i])
        and chars[i] not in NAME_MARKS
        and is_chinese(chars[i - 1])
        and is_chinese(chars[i + 1])
    )


def without_inner_marks(line: Decoded) -> Decoded:
    """`line` without loose punctuation between two Chinese characters (武/汉): a table rule or
    a pen stroke across the ring read as a mark; a name holds none there (but `NAME_MARKS`).
    What other readings saw around a dropped mark joins one gap."""
    dropped = {i for i in range(1, len(line.chars) - 1) if _is_inner_mark(line.chars, i)}
    if not dropped:
        return line
    kept = [i for i in range(len(line.chars)) if i not in dropped]
    gaps = line.gaps()
    merged = [list(gaps[0])]
    for i in range(len(line.chars)):
        if i in dropped:
            merged[-1] += gaps[i + 1]
        else:
            merged.append(list(gaps[i + 1]))
    return Decoded(
        tuple(line.chars[i] for i in kept),
        tuple(line.probs[i] for i in kept),
        tuple(line.steps[i] for i in kept) if line.steps else (),
        line.length,
        tuple(line.alternatives[i] for i in kept) if line.alternatives else (),
        tuple(tuple(gap) for gap in merged) if line.insertions else (),
    )


def trim_rim_ends(line: Decoded, params: RepairParams = DEFAULT_REPAIR) -> Decoded:
    """The rim without what is not rim text at its ends: a stray group once, then unsure
    characters and code digits, trimmed in turn until neither finds more (an unsure mark may
    hide a digit, and back)."""
    line = trim_stray_ends(line, params)
    while True:
        trimmed = trim_code_ends(trim_unsure_ends(line, params))
        if trimmed == line:
            return line
        line = trimmed


def _misread_ending(text: str, form: str) -> int | None:
    """How many characters at the end of `text` are `form` misread by one edit, or None.

    A dropped character is tried first, then a wrong one, then an extra one: in "设备限公司"
    the 有 was dropped, and 备 is not a misread 有.
    """
    for length in (len(form) - 1, len(form), len(form) + 1):
        if 0 < length <= len(text) and levenshtein(text[-length:], form) == 1:
            return length
    return None


def fix_legal_form(text: str) -> str:
    """`text` with a legal form misread by one edit at its end restored (longest form first);
    unchanged when it already ends in one, or in nothing close.

    Longest first also when a shorter form ends it exactly: "股信有限公司" ends in 有限公司,
    and is 股份有限公司 with 份 misread.
    """
    for form in LEGAL_FORMS:
        if text.endswith(form):
            return text
        if (length := _misread_ending(text, form)) is not None:
            return text[: len(text) - length] + form
    return completed_legal_form(text)


def completed_legal_form(text: str) -> str:
    """`text` with a legal form cut short at its end completed: a rim that ends in 有限,
    有限责任 or 股份有限 lost the rest where print or the gap covered it (no name ends
    there); the longest start of a form wins, then the shortest form (有限 -> 有限公司)."""
    cut = [
        (k, -len(form), form[k:])
        for form in LEGAL_FORMS
        for k in range(len(form) - 1, 1, -1)
        if LEGAL_FORM_CORE in form[:k] and text.endswith(form[:k]) and len(text) > k
    ]
    return text + max(cut)[2] if cut else text


def started_after_legal_form(text: str) -> str:
    """`text` turned to end with its legal form where it was read from the wrong start: a
    Chinese rim that ends in no legal form, branch or department (`AFTER_LEGAL_FORM`) but
    holds one legal form in the middle, or split across its two ends (限公司河南森源重工有),
    and at least `MIN_WRAPPED` characters after it; unchanged otherwise."""
    if not text or text.endswith(AFTER_LEGAL_FORM) or not all(is_chinese(char) for char in text):
        return text
    for form in LEGAL_FORMS:
        at = (text + text).find(form)
        if 0 <= at < len(text):
            cut = (at + len(form)) % len(text)
            turned = text[cut:] + text[:cut]
            once = not any(other in turned[: -len(form)] for other in LEGAL_FORMS)
            # The characters read after the form: to the text's end, or (a form split across
            # the ends) from the form's end at the start up to where it begins.
            end = at + len(form)
            wrapped = len(text) - end if end <= len(text) else at - (end - len(text))
            return turned if once and wrapped >= MIN_WRAPPED else text
    return text


def shared_in_order(text: str, other: str) -> int:
    """How many characters the two strings share in order (longest common subsequence)."""
    row = [0] * (len(other) + 1)
    for char in text:
        previous = 0
        for j, mine in enumerate(other):
            previous, row[j + 1] = row[j + 1], previous + 1 if char == mine else max(row[j + 1], row[j])
    return row[-1]


def standard_text(
    text: str, standards: tuple[str, ...] = STANDARD_RIMS, share: float = STANDARD_SHARED
) -> str:
    """The standard text `text` is a partial misreading of (it holds `share` of its characters
    in order), the one sharing most, or `text` itself."""
    if text in standards or not text:
        return text
    close = [s for s in standards if len(text) <= STANDARD_LONGER * len(s)]
    best = max(close, key=lambda s: shared_in_order(text, s) / len(s), default=None)
    if best is not None and shared_in_order(text, best) >= share * len(best):
        return best
    return text


def purpose_line(text: str, purposes: tuple[str, ...] = PURPOSE_LINES) -> str:
    """The one purpose (`PURPOSE_LINES`) that `text` is a one-edit misreading of, else the one
    that holds all but at most one of its characters in order and most of its own among them
    (`PURPOSE_SHARED`: 发票专方, 财务章, 采购专 of a line split in two), or `text`."""
    if text in purposes or len(text) < MIN_PURPOSE_CHARS - 1:
        return text
    close = [purpose for purpose in purposes if levenshtein(text, purpose) == 1]
    if len(text) >= MIN_PURPOSE_CHARS and close:
        return close[0] if len(close) == 1 else text
    shared = {purpose: shared_in_order(text, purpose) for purpose in purposes}
    most = max(shared.values())
    best = [purpose for purpose, count in shared.items() if count == most]
    held = most >= len(text) - 1 and most >= PURPOSE_SHARED * len(best[0])
    return best[0] if len(best) == 1 and held else text


def without_unsure_tail(line: Decoded, params: RepairParams = DEFAULT_REPAIR) -> Decoded:
    """`line` without the unsure characters after its name's ending (`RepairParams.tail_chars`),
    the most that `tail_chars` allows first."""
    for count in range(min(params.tail_chars, len(line.chars) - 1), 0, -1):
        unsure = all(prob < params.tail_prob for prob in line.probs[-count:])
        if unsure and "".join(line.chars[:-count]).endswith(RIM_ENDINGS):
            return line.part(0, len(line.chars) - count)
    return line


def _as_read(line: Decoded) -> Decoded:
    return line


def repair_rim(line: Decoded, correct: Correct = _as_read, params: RepairParams = DEFAULT_REPAIR) -> Decoded:
    """The rim reading with its ends trimmed, its characters corrected to dictionary words,
    and a misread legal form or standard text restored (the text changes, the rest stays).

    Trimming judges what is rim text by the recogniser's own confidence, the correction only
    which characters it is.
    """
    corrected = without_unsure_tail(correct(without_inner_marks(trim_rim_ends(line, params))), params)
    text = standard_text(fix_legal_form(started_after_legal_form(corrected.text)))
    if text == corrected.text:
        return corrected
    return Decoded(tuple(text), (corrected.score,) * len(text), length=corrected.length)


def may_be_supervision(shape: Shape, rim: str) -> bool:
    """Whether a seal could be an invoice supervision seal whose rim went unread: an oval whose
    rim reads as no name (no 公司, and few Chinese characters: the invoice's title hides most
    of it, and what shows through reads as marks and letters: 和pN,  W影人)."""
    chinese = sum(is_chinese(char) for char in rim)
    return shape.has_axes and "公司" not in rim and chinese < len(STANDARD_RIMS[0]) - 1


def supervision_rim(shape: Shape, rim: str, inner: list[Line], around: list[Line] | None = None) -> str:
    """The rim of an invoice supervision seal is 全国统一发票监制章: an oval with a 国家税务总局
    line inside or read as its rim (the lower line, where the title hides the rim above it),
    or one whose rim went unread (`may_be_supervision`) with the invoice's title or the tax
    bureau's line read in and around it (`around`: `SUPERVISION_CUES`), and no purpose line
    inside (a company's 发票专用章 near the title). Any other rim stays as read."""
    if not shape.has_axes:
        return rim
    lower = standard_text(rim, STANDARD_LINES, STANDARD_LINE_SHARED)  # as `sorted_lines` does inner ones
    if lower in SUPERVISION_LINES or any(text in SUPERVISION_LINES for text, _ in inner):
        return STANDARD_RIMS[0]
    cued = any(cue in text for text, _ in around or [] for cue in SUPERVISION_CUES)
    purpose = any(text in PURPOSE_LINES for text, _ in inner)
    return STANDARD_RIMS[0] if cued and not purpose and may_be_supervision(shape, rim) else rim


def sorted_lines(lines: list[Line], params: RepairParams = DEFAULT_REPAIR) -> tuple[list[Line], list[str]]:
    """Sure lines split into inner lines (standard texts restored) and codes (spaces removed)."""
    kept = [(text, score) for text, score in lines if text.strip() and score >= params.min_line_score]
    codes = [code_text(text) for text, score in kept if is_code((text, score), params.min_line_score)]
    inner = [
        (purpose_line(standard_text(text, STANDARD_LINES, STANDARD_LINE_SHARED)), score)
        for text, score in kept
        if not is_code((text, score))
    ]
    return inner, codes
