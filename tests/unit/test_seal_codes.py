"""Check characters of seal codes and codes put right with them (pure code)."""

from __future__ import annotations

import numpy as np
import pytest
from imgproc.seal.codes import (
    CREDIT_ALPHABET,
    ORG_CHARS,
    checked_code,
    code_options,
    credit_check,
    held_code,
    org_check,
    passes_checks,
)
from imgproc.text import Decoded

RNG_SEED = 5
ORG_WEIGHTS = (3, 7, 9, 10, 5, 8, 4, 2)  # GB 11714-1997
Options = tuple[tuple[tuple[str, float], ...], ...]


def _org_sum(code: str) -> int:
    """An organisation code's weighted sum with its check character counted (X for 10)."""
    body = sum(ORG_CHARS.index(c) * w for c, w in zip(code[:8], ORG_WEIGHTS, strict=True))
    return body + (10 if code[8] == "X" else int(code[8]))


def _credit_code(rng: np.random.Generator) -> str:
    """A valid credit code built from the standards' sums, written independently of the module:
    the organisation code's weighted sum with its check is 0 mod 11, the whole code's 0 mod 31."""
    region = "".join(str(int(d)) for d in rng.integers(0, 10, 6))
    org = "".join(CREDIT_ALPHABET[int(i)] for i in rng.integers(0, 10, 8))
    org += next(c for c in "0123456789X" if _org_sum(org + c) % 11 == 0)
    head = "91" + region + org
    total = sum(CREDIT_ALPHABET.index(c) * 3**i for i, c in enumerate(head))
    return head + next(c for c in CREDIT_ALPHABET if (total + CREDIT_ALPHABET.index(c)) % 31 == 0)


def _options(code: str, extra: dict[int, tuple[str, float]] | None = None) -> Options:
    """Each character sure of itself, with the look-alikes `extra` adds at some positions."""
    extra = extra or {}
    return tuple(((c, 0.9), *((extra[i],) if i in extra else ())) for i, c in enumerate(code))


def test_check_characters_make_the_standards_sums_whole() -> None:
    rng = np.random.default_rng(RNG_SEED)
    for _ in range(50):
        code = _credit_code(rng)
        assert credit_check(code[:17]) == code[17]
        assert org_check(code[8:16]) == code[16]
        assert passes_checks(code)
    for _ in range(50):
        body = "".join(ORG_CHARS[int(i)] for i in rng.integers(0, 36, 8))
        assert _org_sum(body + org_check(body)) % 11 == 0


def test_a_code_that_passes_its_checks_stays_as_read() -> None:
    code = _credit_code(np.random.default_rng(RNG_SEED))
    assert checked_code(code, _options(code, {3: ("7", 0.5)}), 0.05, 2) == code


def test_one_wrong_character_is_put_right_from_its_look_alikes() -> None:
    code = _credit_code(np.random.default_rng(RNG_SEED))
    wrong = code[:4] + ("8" if code[4] != "8" else "3") + code[5:]
    assert checked_code(wrong, _options(wrong, {4: (code[4], 0.2)}), 0.05, 1) == code
    # Without the right character among its look-alikes, or below the floor, it stays as read.
    assert checked_code(wrong, _options(wrong), 0.05, 2) == wrong
    assert checked_code(wrong, _options(wrong, {4: (code[4], 0.01)}), 0.05, 2) == wrong


def test_two_wrong_characters_need_two_changes() -> None:
    code = _credit_code(np.random.default_rng(RNG_SEED + 1))
    chars = list(code)
    chars[0], chars[10] = "3", ("8" if code[10] != "8" else "6")
    wrong = "".join(chars)
    options = _options(wrong, {0: (code[0], 0.3), 10: (code[10], 0.3)})
    assert checked_code(wrong, options, 0.05, 1) == wrong
    assert checked_code(wrong, options, 0.05, 2) == code


def test_a_change_the_checks_do_not_single_out_is_not_made() -> None:
    code = _credit_code(np.random.default_rng(RNG_SEED))
    wrong = code[:4] + ("8" if code[4] != "8" else "3") + code[5:]
    # The credit check alone decides a change at position 4; a second look-alike at another
    # place outside the organisation code that also passes would make two: none is trusted.
    rival = next(
        (i, c)
        for i in (2, 3, 5, 6, 7)
        for c in "0123456789"
        if c != wrong[i] and passes_checks(wrong[:i] + c + wrong[i + 1 :])
    )
    options = _options(wrong, {4: (code[4], 0.2), rival[0]: (rival[1], 0.3)})
    assert checked_code(wrong, options, 0.05, 2) == wrong


def test_letters_a_credit_code_leaves_out_read_as_digits() -> None:
    code = _credit_code(np.random.default_rng(RNG_SEED))
    assert "0" in code[2:8] or "1" in code[2:8]
    looks = code[:2] + code[2:8].replace("0", "O").replace("1", "I") + code[8:]
    assert checked_code(looks, _options(looks), 0.05, 2) == code


@pytest.mark.parametrize("code", ["1102290036915", "ABC12345"])
def test_codes_without_checks_are_left_as_read(code: str) -> None:
    assert checked_code(code, _options(code, {0: ("7", 0.5)}), 0.05, 2) == code


def test_an_old_tax_id_is_checked_by_its_organisation_code() -> None:
    org = "7758027"
    body = org + "1"
    old = "510798" + body + org_check(body)
    assert passes_checks(old)
    wrong = old[:9] + ("3" if old[9] != "3" else "4") + old[10:]
    assert checked_code(wrong, _options(wrong, {9: (old[9], 0.2)}), 0.05, 1) == old


def test_look_alikes_line_up_with_the_code_past_spaces_and_end_marks() -> None:
    line = Decoded(
        tuple("~12 34"),
        (0.5, 0.9, 0.9, 0.8, 0.9, 0.9),
        alternatives=tuple(((c, 0.5), ("x", 0.1)) for c in "~12 34"),
    )
    options = code_options(line, "1234")
    assert options is not None and [o[0][0] for o in options] == list("1234")
    assert code_options(line, "999") is None


CREDIT = _credit_code(np.random.default_rng(RNG_SEED))


@pytest.mark.parametrize(
    ("read", "code"),
    [
        ("4301110162012", "4301110162012"),  # the 13-digit seal code
        (CREDIT, CREDIT),  # a credit code that passes its checks
        ("510798775802711", "510798775802711"),  # a tax number: region and organisation code
        ("32011119880908361X01", "32011119880908361X01"),  # region, ID number and more
        ("K4301110162012L", "4301110162012"),  # stray letters read beside a seal code
        (f"A{CREDIT}7", CREDIT),
        ("09D102339", None),  # a date printed over a licence's seal
        ("51070300577", None),  # a code cut short
        ("43011101620125", None),  # 14 digits: which 13 are the code is unknown
        (CREDIT[:-1] + ("1" if CREDIT[-1] != "1" else "2"), None),  # fails its check
        ("ABC430111016", None),
    ],
)
def test_a_number_line_is_a_seals_code_trimmed_to_the_one_it_holds_or_none(
    read: str, code: str | None
) -> None:
    assert held_code(read) == code
