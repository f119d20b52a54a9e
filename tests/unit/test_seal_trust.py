"""The trust stage (imgproc.seal.trust): a rim's evidence and calibrated score, and expected
names checked against a seal's frames, on made-up frames; the bound that spares a long list of
names their Viterbi changes no verdict."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from imgproc.seal.records import (
    Line,
    Readings,
    RimEvidence,
    RimSource,
    SealEvidence,
    SealReading,
    SealRegion,
    Shape,
)
from imgproc.seal.trust import DEFAULT_TRUST, page_reading, trusted
from imgproc.seal.trust.evidence import (
    bound,
    char_table,
    rim_evidence,
    rim_score,
    score_inputs,
    support,
    worst_weighted,
)
from imgproc.seal.trust.verify import name_score
from imgproc.seal.words import NO_WORDS, Words
from imgproc.text import Decoded
from imgproc.text.ctc import FLOOR, top_frames
from imgproc.text.lexicon import Lexicon

CHARSET = ("blank", *"上海星辰科技有限公司北京", "（", "(")
INDEX = {char: i for i, char in enumerate(CHARSET)}
REGION = SealRegion(Shape.ROUND, (50.0, 50.0), (40.0, 40.0), 0.0, (10, 10, 90, 90), False, 1.0)


def frames_reading(
    text: str, sure: float = 0.95, unsure: dict[int, tuple[str, float]] | None = None, blank: float = 1e-6
) -> RimSource:
    """Frames that read `text`, a character every two frames, blanks between; `unsure` puts
    another character at a position with its probability (the true one keeps the rest); `blank`:
    the blank's probability at a character's frame."""
    rows = []
    for i, char in enumerate(text):
        row = np.full(len(CHARSET), 1e-6)
        row[0] = blank
        if unsure and i in unsure:
            other, prob = unsure[i]
            row[INDEX[other]], row[INDEX[char]] = prob, 1.0 - prob
        else:
            row[INDEX[char]] = sure
        rows += [row, np.eye(len(CHARSET))[0] * 0.99 + 1e-6]
    probs = np.array(rows)
    probs /= probs.sum(axis=1, keepdims=True)
    return RimSource(top_frames(probs, CHARSET, INDEX, keep=4), 0, 1.0, "fake")


def seal(text: str, sources: tuple[RimSource, ...], score: float = 0.9) -> SealEvidence:
    return SealEvidence(SealReading(REGION, text, score), sources)


def test_a_rim_its_frames_read_has_full_support_and_every_source_agrees() -> None:
    sources = (frames_reading("上海星辰科技有限公司"), frames_reading("上海星辰科技有限公司"))
    evidence = rim_evidence("上海星辰科技有限公司", 0.95, sources, 0, NO_WORDS)
    assert evidence.support == pytest.approx(0.0, abs=1e-9) and evidence.agreement == 1.0
    changed = rim_evidence("上海星辰北京有限公司", 0.95, sources, 0, NO_WORDS)
    assert changed.support < -20 and changed.agreement == 0.0
    assert rim_score(changed) < rim_score(evidence)


def test_a_rims_evidence_says_how_it_ends_whether_it_is_standard_and_how_much_words_cover() -> None:
    words = Words(lexicon=Lexicon.of(["上海", "星辰", "科技", "有限公司", "全国", "统一", "发票"]))
    sources = (frames_reading("上海星辰科技有限公司"), frames_reading("星辰科技"))
    whole = rim_evidence("上海星辰科技有限公司", 0.95, sources, 0, words)
    inside = rim_evidence("星辰科技", 0.95, sources, 0, words)
    misread = rim_evidence("上海星辰北京有限公司", 0.95, sources, 0, words)
    standard = rim_evidence("全国统一发票监制章", 0.95, (), 0, words)  # restored: no frames read it
    assert (whole.named, whole.standard, whole.worded) == (True, False, 1.0)
    assert (inside.named, inside.standard, inside.worded) == (False, False, 1.0)
    assert (misread.named, misread.worded) == (True, 0.8)  # 北京 is no word of this list
    assert (standard.named, standard.standard, standard.worded) == (True, True, 6 / 9)
    assert score_inputs(whole)[2:] == (1.0, 0.0, 1.0, pytest.approx(0.0, abs=1e-9))
    # A support below a character no recogniser saw says no more (an empty text's is -inf).
    assert score_inputs(misread)[5] == score_inputs(standard)[5] == pytest.approx(np.log(FLOOR))


def test_served_rim_scores_rise_with_each_sign_of_a_right_reading() -> None:
    plain = RimEvidence(-3.0, 0.5, 0.9, 6, worded=0.5)
    signs = (
        {"agreement": 1.0},
        {"length": 10},
        {"named": True},
        {"standard": True},
        {"worded": 1.0},
        {"support": 0.0},
    )
    for sign in signs:
        assert rim_score(replace(plain, **sign)) > rim_score(plain), sign


def test_a_misread_character_still_supports_the_true_name_and_a_changed_one_not() -> None:
    """科 read as 北 (0.7 against 0.3): the reading is wrong, the true name is still found."""
    source = frames_reading("上海星辰科技有限公司", unsure={4: ("北", 0.7)})
    misread = seal("上海星辰北技有限公司", (source,))
    assert name_score("上海星辰科技有限公司", misread, NO_WORDS) >= DEFAULT_TRUST.found_score
    assert name_score("上海星辰京技有限公司", misread, NO_WORDS) < DEFAULT_TRUST.found_score
    assert name_score("北京星辰科技有限公司", misread, NO_WORDS) < DEFAULT_TRUST.found_score


def test_a_name_read_faintly_at_several_characters_beats_one_with_a_character_changed() -> None:
    """Six characters of a true name read as others at 0.9 against 0.1 (faint ink) cost it
    more support (6 x 2.2) than one character no recogniser saw costs a changed name (11.5);
    counting each name's costliest character twice (`name_worst`) puts the true one first."""
    misread = {i: ("北", 0.9) for i in (0, 2, 4, 6, 8)} | {9: ("京", 0.9)}
    faint = seal("北海北辰北技北限北京", (frames_reading("上海星辰科技有限公司", unsure=misread),))
    sure = seal("上海星辰科技有限公司", (frames_reading("上海星辰科技有限公司"),))

    def scores(worst: float) -> tuple[float, float]:
        params = replace(DEFAULT_TRUST, name_worst=worst, name_support=-12.0 * worst)
        return name_score("上海星辰科技有限公司", faint, NO_WORDS, params), name_score(
            "上海星辰科技有限公北", sure, NO_WORDS, params
        )

    true, changed = scores(1.0)
    assert true < changed  # by its support alone the changed name is the likelier
    true, changed = scores(2.0)
    assert true > changed


def test_a_name_with_a_character_of_the_frames_left_out_is_not_found() -> None:
    """Each character read at 0.9 with the blank at 0.1 (a recogniser's peaks leak to the
    blank): a name without 星 could read the blank over it for log(0.9 / 0.1) = 2.2 alone."""
    source = frames_reading("上海星辰科技有限公司", sure=0.9, blank=0.1)
    sealed = seal("上海星辰科技有限公司", (source,))
    assert name_score("上海星辰科技有限公司", sealed, NO_WORDS) > 0.99
    for dropped in ("上海辰科技有限公司", "上海星辰科技有公司"):
        assert name_score(dropped, sealed, NO_WORDS) < DEFAULT_TRUST.found_score


def test_a_name_read_from_another_start_on_the_ring_is_found() -> None:
    source = frames_reading("有限公司上海星辰科技")
    assert name_score("上海星辰科技有限公司", seal("有限公司上海星辰科技", (source,)), NO_WORDS) > 0.99


def test_a_rim_that_reads_the_name_scores_it_even_without_frames_for_it() -> None:
    """A standard text restored under print: no frame saw it, but the answer is the name."""
    restored = seal("全国统一发票监制章", (frames_reading("上海"),), score=0.8)
    assert name_score("全国统一发票监制章", restored, NO_WORDS) == pytest.approx(0.8)


def test_both_sides_are_normalized_brackets_and_spaces() -> None:
    """The frames read a full-width bracket; the caller wrote a half-width one and a space."""
    source = frames_reading("上海（北京")
    name = NO_WORDS.normalized("上海(北 京")
    assert name == "上海(北京"
    assert name_score(name, seal("上海（北京", (source,)), NO_WORDS) > 0.99


def test_each_name_gets_the_seal_that_says_it_and_each_seal_its_best_name() -> None:
    seals = [
        seal("北京星辰科技有限公司", (frames_reading("北京星辰科技有限公司"),)),
        seal("上海星辰科技有限公司", (frames_reading("上海星辰科技有限公司"),)),
    ]
    page = page_reading(seals, ["上海星辰科技有限公司", "上海辰星公司"], NO_WORDS)
    first, second = page.expected
    assert (first.found, first.seal) == (True, 1) and first.score > 0.99
    assert (second.found, second.seal) == (False, None)
    assert [s.match.text if s.match else None for s in page.seals] == [None, "上海星辰科技有限公司"]
    assert page_reading(seals, [], NO_WORDS).seals[0].match is None


def test_a_seal_that_carries_none_of_the_names_matches_none() -> None:
    """A university's seal is no match for a society's name, however low its score."""
    university = seal("北京星辰科技有限公司", (frames_reading("北京星辰科技有限公司"),))
    (reading,) = page_reading([university], ["上海辰星公司"], NO_WORDS).seals
    assert reading.match is None


def test_a_rect_seal_keeps_its_reading_score() -> None:
    rect = SealReading(
        SealRegion(Shape.RECT, (5.0, 5.0), (4.0, 2.0), 0.0, (1, 3, 9, 7), False, 1.0), "收讫", 0.77
    )
    lines: tuple[Line, ...] = ()
    assert trusted(rect, Readings(None, found=lines), NO_WORDS).reading.rim_score == 0.77
    assert trusted(rect, Readings(Decoded((), ())), NO_WORDS).reading.rim_score == 0.77


def random_source(rng: np.random.Generator, frames: int) -> RimSource:
    probs = rng.dirichlet(np.full(len(CHARSET), 0.2), size=frames)
    return RimSource(top_frames(probs, CHARSET, INDEX, keep=3), 0, 1.0, "fake")


def random_name(rng: np.random.Generator) -> str:
    return "".join(rng.choice(list(CHARSET[1:13]), size=int(rng.integers(2, 9))))


@pytest.mark.parametrize("seed", range(6))
def test_the_bound_is_never_below_the_support_it_stands_for(seed: int) -> None:
    rng = np.random.default_rng(seed)
    sources = [random_source(rng, int(rng.integers(8, 30))) for _ in range(3)]
    names = [random_name(rng) for _ in range(12)]
    table = char_table(sources, names, NO_WORDS.forms)
    for name in names:
        assert bound(table, name) >= support(name, sources, NO_WORDS.forms).max() - 1e-9
        assert bound(table, name) >= worst_weighted(table, name, 2.0).max() - 1e-9


@pytest.mark.parametrize("seed", range(4))
def test_served_verdicts_are_the_exact_ones_but_for_scores_under_5e_5(seed: int) -> None:
    """Names the bound rules out are scored by it; every verdict, seal and match stays."""
    rng = np.random.default_rng(seed)
    texts = [random_name(rng) for _ in range(3)]
    seals = [seal(text, (frames_reading(text), frames_reading(text[::-1]))) for text in texts]
    names = [*texts[:2], *(random_name(rng) for _ in range(10))]
    page = page_reading(seals, names, NO_WORDS)
    for name, verdict in zip(names, page.expected, strict=True):
        exact = [name_score(name, s, NO_WORDS) for s in seals]
        assert verdict.found == (max(exact) >= DEFAULT_TRUST.found_score)
        assert verdict.score == pytest.approx(max(exact), abs=5e-5)
        assert verdict.seal == (int(np.argmax(exact)) if verdict.found else None)
    for j, reading in enumerate(page.seals):
        best = max((name_score(name, seals[j], NO_WORDS), name) for name in names)
        carried = best if best[0] >= DEFAULT_TRUST.found_score else None
        assert (reading.match and (reading.match.score, reading.match.text)) == carried
