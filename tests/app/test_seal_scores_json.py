"""A seal's codes and their scores regrouped from the seal model's flat tensors, and the
scores' descriptions read from what the trust evaluation wrote (gateway.routers.seal): pure."""

from __future__ import annotations

import numpy as np
import pytest

from gateway.routers.seal import SCORE_MEANINGS, Seal, SealLine, seals_json


def test_each_seal_carries_its_codes_scores_in_the_order_of_its_codes() -> None:
    out = {
        "BOXES": np.zeros((2, 4), np.float32),
        "SHAPES": np.array([b"round", b"oval"], np.object_),
        "RIM_TEXTS": np.array([b"a", b"b"], np.object_),
        "RIM_SCORES": np.ones(2, np.float32),
        "SEAL_SCORES": np.ones(2, np.float32),
        "MATCH_TEXTS": np.array([b"", b""], np.object_),
        "MATCH_SCORES": np.zeros(2, np.float32),
        "INNER_TEXTS": np.array([], np.object_),
        "INNER_SCORES": np.zeros(0, np.float32),
        "INNER_SEALS": np.zeros(0, np.int32),
        "CODES": np.array([b"5107030057772", b"91310000MA1FL12372", b"4101021694809"], np.object_),
        "CODE_SCORES": np.array([0.9, 0.25, 0.5], np.float32),
        "CODE_SEALS": np.array([1, 0, 1], np.int32),
    }
    seals = seals_json(out)
    assert [seal["codes"] for seal in seals] == [["91310000MA1FL12372"], ["5107030057772", "4101021694809"]]
    assert [seal["code_scores"] for seal in seals] == [[0.25], [pytest.approx(0.9), 0.5]]


@pytest.mark.parametrize(
    ("field", "score"),
    [
        (Seal.model_fields["rim_score"], "rim"),
        (Seal.model_fields["rim_score"], "main_text"),
        (Seal.model_fields["score"], "seal"),
        (Seal.model_fields["code_scores"], "code"),
        (SealLine.model_fields["score"], "inner_line"),
    ],
)
def test_each_score_s_description_says_what_0_9_has_meant(field: object, score: str) -> None:
    said = SCORE_MEANINGS[score]
    figure = f"{said['good']} of {said['count']}" if said["count"] else f"none of {said['total']}"
    assert figure in str(getattr(field, "description", ""))


def test_the_seal_score_s_description_says_under_what_score_a_region_is_left_out() -> None:
    said = SCORE_MEANINGS["seal"]
    left_out = f"a region under {said['least']}, or where nothing was read under {said['textless']}"
    assert left_out in str(Seal.model_fields["score"].description)
