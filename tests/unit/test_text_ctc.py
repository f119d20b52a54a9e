"""CTC over per-frame probabilities (imgproc.text.ctc): a text's likelihood and where it reads,
checked against brute force on small made-up frames."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from imgproc.text.ctc import (
    FLOOR,
    char_probs,
    excess,
    spot,
    spot_parts,
    spot_rotations,
    spots,
    text_logprob,
    top_frames,
)

CHARSET = ("blank", "安", "六", "徽", "江")
INDEX = {char: i for i, char in enumerate(CHARSET)}


def softmax_rows(rows: list[list[float]]) -> np.ndarray:
    probs = np.array(rows, np.float64)
    return probs / probs.sum(axis=1, keepdims=True)


def collapse(path: tuple[int, ...]) -> str:
    out, previous = [], -1
    for index in path:
        if index != 0 and index != previous:
            out.append(CHARSET[index])
        previous = index
    return "".join(out)


def brute_force(probs: np.ndarray, text: str) -> float:
    """The probability of `text` summed over every path (small frames only)."""
    total = 0.0
    for path in itertools.product(range(probs.shape[1]), repeat=probs.shape[0]):
        if collapse(path) == text:
            total += math.prod(probs[t, c] for t, c in enumerate(path))
    return total


PROBS = softmax_rows(
    [
        [5, 1, 3, 0.1, 0.1],
        [1, 2, 4, 0.1, 0.1],
        [6, 0.1, 0.1, 0.1, 0.1],
        [1, 0.1, 0.1, 4, 0.1],
        [3, 0.1, 0.1, 2, 2],
    ]
)


@pytest.mark.parametrize("text", ["六徽", "安徽", "六", "徽徽", "六徽江", ""])
def test_the_forward_algorithm_sums_every_path_of_the_text(text: str) -> None:
    frames = top_frames(PROBS, CHARSET, INDEX, keep=4)
    expected = brute_force(PROBS, text)
    assert math.exp(text_logprob(frames, text)) == pytest.approx(expected, rel=1e-6, abs=1e-12)


def test_a_character_outside_the_kept_classes_is_taken_at_the_floor() -> None:
    frames = top_frames(PROBS, CHARSET, INDEX, keep=1)
    probs = char_probs(frames, "徽江")
    assert probs[3, 0] == pytest.approx(PROBS[3, 3])  # kept: the frame's likeliest
    assert probs[0, 1] == FLOOR  # not kept there
    assert (char_probs(frames, "上")[:, 0] == FLOOR).all()  # not in the charset at all


def test_the_character_table_is_the_kept_probability_of_each_form_at_each_frame() -> None:
    """Against the plain definition, on random frames, with characters that are forms of one
    another and repeated (a class then fills several columns)."""
    rng = np.random.default_rng(5)
    charset = ["blank", *"甲乙丙丁戊己庚辛"]
    index = {char: i for i, char in enumerate(charset)}
    probs = rng.dirichlet(np.full(len(charset), 0.3), size=40).astype(np.float32)
    frames = top_frames(probs, charset, index, keep=3)
    variants = {"甲": ("甲", "乙"), "乙": ("乙", "甲")}

    def forms(char: str) -> tuple[str, ...]:
        return variants.get(char, (char,))

    text = "甲乙丙甲己上辛"  # 上 is not in the charset
    expected = np.full((frames.length, len(text)), FLOOR)
    for t in range(frames.length):
        for column, char in enumerate(text):
            for k in range(frames.classes.shape[1]):
                if frames.probs[t, k] > 0 and charset[frames.classes[t, k]] in forms(char):
                    expected[t, column] = max(expected[t, column], frames.probs[t, k])
    assert char_probs(frames, text, forms) == pytest.approx(expected)


def test_a_text_read_as_the_frames_best_spots_at_zero_and_a_changed_one_below() -> None:
    frames = top_frames(PROBS, CHARSET, INDEX, keep=4)
    assert spot(frames, "六徽") == pytest.approx(0.0)  # the greedy reading itself
    assert spot(frames, "徽") == pytest.approx(0.0)  # any part of it: the rest is free
    read_as_six = spot(frames, "安徽")  # 安 is the frame's second choice
    assert math.log(PROBS[1, 1] / PROBS[1, 2]) - 1e-9 <= read_as_six < 0.0
    assert spot(frames, "江徽") < read_as_six  # a character the frame barely saw costs more


def test_a_character_is_spotted_in_any_of_its_forms() -> None:
    frames = top_frames(PROBS, CHARSET, INDEX, keep=4)

    def forms(char: str) -> tuple[str, ...]:
        return ("安", "六") if char == "安" else (char,)  # as if 六 were a form of 安

    assert spot(frames, "安徽", forms) == pytest.approx(0.0)


def test_many_texts_in_many_frames_are_spotted_as_each_alone() -> None:
    one = top_frames(PROBS, CHARSET, INDEX, keep=4)
    other = top_frames(PROBS[::-1].copy(), CHARSET, INDEX, keep=2)
    texts = ["六徽", "安徽", "徽江", "江六"]
    together = spots([one, other], texts)
    assert together.tolist() == [[spot(f, text) for text in texts] for f in (one, other)]


def test_every_rotation_of_a_ring_text_is_spotted_as_that_text() -> None:
    frames = top_frames(PROBS, CHARSET, INDEX, keep=4)
    turned = spot_rotations([frames], "徽六")
    assert turned.tolist() == [[spot(frames, "徽六"), spot(frames, "六徽")]]
    assert turned[0, 1] == pytest.approx(0.0)  # read from its second character: the reading


def test_a_spots_parts_are_what_each_character_costs_on_its_best_path() -> None:
    """Each character's cost on the best spot (its frames and the blanks before it) sums to the
    spot, and the character the frames saw least costs the most."""
    frames = top_frames(PROBS, CHARSET, INDEX, keep=4)
    for text in ("六徽", "安徽", "江徽", "徽"):
        total, parts = spot_parts([excess(frames, text)], text)
        assert total[0] == pytest.approx(spot(frames, text))
        assert parts[0].sum() == pytest.approx(total[0])
    _, parts = spot_parts([excess(frames, "江徽")], "江徽")
    assert parts[0, 0] < parts[0, 1] == pytest.approx(0.0)  # 江, barely seen, pays it all
