"""The codes on Chinese seals: what each is, their check characters, and a code read with a
character or two wrong put right with them.

A seal's codes are a 13-digit seal code (along a registered seal's bottom arc), a unified
social credit code that passes its checks, or a tax number of 15 to 20 characters (the old
tax ID below; an ID number and a sequence for a person's business: 32011119880908361X01), which
starts with its 6-digit region. A number line that is none of them (a date printed over the
seal, a code cut short) is trimmed to one it holds that proves itself (a credit code passing
its checks, 13 digits standing alone: stray letters read beside a seal code) or is no code.

- A unified social credit code (GB 32100-2015) is 18 characters of a 31-character alphabet
  (the digits and the capitals but I, O, S, V and Z). Its 18th makes the sum of all 18,
  weighted by powers of 3, a multiple of 31; its 9th to 17th are an organisation code.
- An organisation code (GB 11714-1997) is 8 digits or capitals and a check character (11 less
  the sum weighted by 3, 7, 9, 10, 5, 8, 4, 2, mod 11; X for 10 and 0 for 11).
- An old tax ID is 15 characters: a 6-digit region and an organisation code.

A code that fails its checks was read wrong. Each of its characters' look-alikes (what the
recogniser gave some probability at that step) is tried in its place, one character at a
time, then two, and a change is kept where it is the only one of that size that passes
every check (where several pass, the checks cannot tell which is right: a turned tax ID
whose two wrong characters had four such pairs). A code that passes as read stays; so does
one no change within reach makes pass (then `held_code` finds a credit code none, an old tax
ID a tax number), and any code that has no check (the 13-digit seal code along a seal's
bottom), since nothing tells it is wrong.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence

from imgproc.text import Decoded
from imgproc.text.recognition import Alternative

from .records import Line

CREDIT_ALPHABET = "0123456789ABCDEFGHJKLMNPQRTUWXY"  # GB 32100-2015: no I, O, S, V or Z
CREDIT_LENGTH, OLD_TAX_ID_LENGTH, ORG_LENGTH, REGION_LENGTH = 18, 15, 9, 6
CREDIT_WEIGHTS = tuple(pow(3, i, 31) for i in range(CREDIT_LENGTH - 1))
ORG_WEIGHTS = (3, 7, 9, 10, 5, 8, 4, 2)
ORG_CHARS = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"
# Letters a credit code leaves out, as the digits they are read for (O for 0, I for 1...).
DIGIT_LOOKS = str.maketrans("OIZS", "0125")

Change = tuple[int, str, float]  # position, character put there, its probability
CODE_PATTERN = re.compile(
    r"[0-9A-Z]{8,}"
)  # a tax ID or a bottom-arc seal code: 8 digits or capitals at least
CODE_EDGE_MARKS = (
    "~-_.,:;'\"`“”‘’·、，。：；～"  # what is cut from a code's ends (a ring's edge, a stray dot)
)
SEAL_CODE = re.compile(r"\d{13}")  # a registered seal's code
LONE_SEAL_CODE = re.compile(r"(?<!\d)\d{13}(?!\d)")  # ...not 13 of a longer run of digits
TAX_NUMBER = re.compile(r"\d{6}[0-9A-Z]{9,14}")  # the region, then 9 to 14 characters
# A piece this short set off by a space at a code's end is not the code's: the foot of the
# rim's last character beside a bottom-arc code (4101021694809 Y); a code's own groups are longer.
CODE_STRAY_CHARS = 2


def org_check(body: str) -> str:
    """The check character of an organisation code's 8 characters."""
    total = sum(ORG_CHARS.index(char) * weight for char, weight in zip(body, ORG_WEIGHTS, strict=True))
    check = 11 - total % 11
    return "X" if check == 10 else "0" if check == 11 else str(check)


def credit_check(body: str) -> str:
    """The check character of a unified social credit code's first 17 characters."""
    total = sum(CREDIT_ALPHABET.index(c) * w for c, w in zip(body, CREDIT_WEIGHTS, strict=True))
    return CREDIT_ALPHABET[-total % 31]


def _valid_org(code: str) -> bool:
    return all(char in ORG_CHARS for char in code[:-1]) and org_check(code[:-1]) == code[-1]


def has_checks(code: str) -> bool:
    """Whether `code` is of a kind with check characters: a credit code or an old tax ID."""
    if len(code) == CREDIT_LENGTH:
        return all(char in CREDIT_ALPHABET for char in code.translate(DIGIT_LOOKS))
    return len(code) == OLD_TAX_ID_LENGTH and code[:REGION_LENGTH].isdigit()


def passes_checks(code: str) -> bool:
    """Whether a credit code or an old tax ID has the check characters it should."""
    if len(code) == CREDIT_LENGTH:
        body = code[: CREDIT_LENGTH - 1]
        return (
            all(char in CREDIT_ALPHABET for char in code)
            and credit_check(body) == code[-1]
            and _valid_org(code[CREDIT_LENGTH - 1 - ORG_LENGTH : CREDIT_LENGTH - 1])
        )
    old = len(code) == OLD_TAX_ID_LENGTH and code[:REGION_LENGTH].isdigit()
    return old and _valid_org(code[REGION_LENGTH:])


def _changes(options: Sequence[tuple[Alternative, ...]], code: str, min_prob: float) -> list[Change]:
    """Each character's look-alikes at least `min_prob` probable, as changes to `code`."""
    return [
        (i, char, prob)
        for i, alternatives in enumerate(options)
        for char, prob in alternatives
        if prob >= min_prob and len(char) == 1 and char != code[i] and char in ORG_CHARS
    ]


def _applied(code: str, changes: Sequence[Change]) -> str:
    chars = list(code)
    for i, char, _ in changes:
        chars[i] = char
    return "".join(chars)


def checked_code(
    code: str, options: Sequence[tuple[Alternative, ...]], min_prob: float, max_changes: int
) -> str:
    """`code` (one look-alike tuple per character in `options`) put right by its check
    characters where it fails them and one change alone, of the fewest characters (at most
    `max_changes`) to look-alikes at least `min_prob` probable, makes it pass; otherwise as
    read. The letters a credit code leaves out are first read as the digits they look like."""
    if not has_checks(code):
        return code
    if len(code) == CREDIT_LENGTH:
        code = code.translate(DIGIT_LOOKS)
    if passes_checks(code):
        return code
    changes = _changes(options, code, min_prob)
    for count in range(1, max_changes + 1):
        tried = (
            _applied(code, chosen)
            for chosen in itertools.combinations(changes, count)
            if len({i for i, _, _ in chosen}) == count
        )
        passing = {candidate for candidate in tried if passes_checks(candidate)}
        if passing:
            # Two checks pass about one change in 340 by chance, and a code's look-alikes
            # offer dozens of pairs: only a change they single out is trusted.
            return passing.pop() if len(passing) == 1 else code
    return code


def code_options(line: Decoded, code: str) -> tuple[tuple[Alternative, ...], ...] | None:
    """The look-alikes of each character of `code`, the code read in `line` (its text without
    spaces and end marks); None where they cannot be lined up."""
    kept = [(char, options) for char, options in zip(line.chars, line.options(), strict=True) if char != " "]
    text = "".join(char for char, _ in kept)
    start = text.find(code)
    if start < 0:
        return None
    return tuple(options for _, options in kept[start : start + len(code)])


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


def is_code(line: Line, min_score: float) -> bool:
    """A number line such as a tax ID or a bottom-arc seal code, read at least `min_score` surely."""
    text, score = line
    return score >= min_score and CODE_PATTERN.fullmatch(code_text(text)) is not None


def is_seal_code(code: str) -> bool:
    """Whether `code` is one of a seal's codes: a 13-digit seal code, a credit code that passes
    its checks, or a tax number (any other length from 15 to 20, its region first)."""
    if len(code) == CREDIT_LENGTH:
        return passes_checks(code)
    return SEAL_CODE.fullmatch(code) is not None or TAX_NUMBER.fullmatch(code) is not None


def held_code(code: str) -> str | None:
    """`code` (a number line's `code_text`) where it is a seal's code; else the credit code
    passing its checks, or else the 13 digits standing alone, within it; else None."""
    if is_seal_code(code):
        return code
    windows = (code[i : i + CREDIT_LENGTH] for i in range(len(code) - CREDIT_LENGTH + 1))
    credit = next((window for window in windows if passes_checks(window)), None)
    lone = LONE_SEAL_CODE.search(code)
    return credit or (lone.group() if lone else None)
