"""What a Chinese organisation's name ends in: its legal form, a branch, the kind of body.

A company name must end in a legal form (Company Law: 有限公司, 有限责任公司, 股份有限公司): a
rim that ends one character away from one, and in none exactly, was misread there
(`fix_legal_form`); one that ends in the start of a form lost the rest (`completed_legal_form`);
one with its form in the middle was read from the wrong start (`started_after_legal_form`:
有限公司河南森源重工). Unsure characters after a name's ending are not the name's
(`without_unsure_tail`).
"""

from __future__ import annotations

from imgproc.text import Decoded
from imgproc.text.edit import levenshtein
from imgproc.text.lexicon import is_chinese

from ..words import AFTER_LEGAL_FORM, LEGAL_FORMS, RIM_ENDINGS
from .params import DEFAULT_REPAIR, RepairParams

LEGAL_FORM_CORE = "有限"  # what a cut-short legal form must still show to be completed


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


def started_after_legal_form(text: str, min_wrapped: int = DEFAULT_REPAIR.min_wrapped) -> str:
    """`text` turned to end with its legal form where it was read from the wrong start: a
    Chinese rim that ends in no legal form, branch or department (`AFTER_LEGAL_FORM`) but
    holds one legal form in the middle, or split across its two ends (限公司河南森源重工有),
    and at least `min_wrapped` characters after it; unchanged otherwise."""
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
            return turned if once and wrapped >= min_wrapped else text
    return text


def without_unsure_tail(line: Decoded, params: RepairParams = DEFAULT_REPAIR) -> Decoded:
    """`line` without the unsure characters after its name's ending (`RepairParams.tail_chars`),
    the most that `tail_chars` allows first."""
    for count in range(min(params.tail_chars, len(line.chars) - 1), 0, -1):
        unsure = all(prob < params.tail_prob for prob in line.probs[-count:])
        if unsure and "".join(line.chars[:-count]).endswith(RIM_ENDINGS):
            return line.part(0, len(line.chars) - count)
    return line
