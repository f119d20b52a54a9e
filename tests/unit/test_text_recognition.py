"""Direction classifier and recogniser tensors, CTC decoding, and the character table."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from imgproc.text.charset import BLANK_TOKEN, charset_from_metadata, load_charset
from imgproc.text.recognition import (
    Decoded,
    apply_direction,
    aspect_batches,
    cls_preprocess,
    confident,
    confident_lines,
    ctc_decode,
    ctc_decode_chars,
    rec_preprocess,
    rec_width,
)

REC_MODEL = Path(__file__).resolve().parents[2] / "triton_repo/models/text_recognition/1/model.onnx"
REC_V5_MODEL = REC_MODEL.parents[2] / "text_recognition_v5/1/model.onnx"
REC_V6_MODEL = REC_MODEL.parents[2] / "text_recognition_v6/1/model.onnx"
CHARSET = [BLANK_TOKEN, "a", "b", "c", " "]


def _crop(height: int, width: int, value: int = 255) -> np.ndarray:
    return np.full((height, width, 3), value, np.uint8)


def _probs(path: list[int], confidence: float = 0.9) -> np.ndarray:
    """One sequence whose argmax follows `path`, with `confidence` on the winning class."""
    probs = np.full((len(path), len(CHARSET)), (1 - confidence) / (len(CHARSET) - 1), np.float32)
    probs[np.arange(len(path)), path] = confidence
    return probs


def test_ctc_collapses_repeats_and_drops_blanks() -> None:
    probs = _probs([1, 1, 0, 1, 2, 2, 0, 4, 3])
    probs[3, 1] = 0.7  # the second "a" is less sure: the score is the mean over kept steps
    [(text, score)] = ctc_decode(probs[None], CHARSET)
    assert text == "aab c"
    assert score == pytest.approx(np.mean([0.9, 0.7, 0.9, 0.9, 0.9]), abs=1e-6)


def test_ctc_decode_chars_keeps_each_characters_probability() -> None:
    probs = _probs([1, 1, 0, 2, 3])
    probs[3, 2] = 0.6
    [line] = ctc_decode_chars(probs[None], CHARSET)
    assert line.chars == ("a", "b", "c")
    assert line.probs == pytest.approx((0.9, 0.6, 0.9))
    assert (line.text, line.score) == ctc_decode(probs[None], CHARSET)[0]


def test_ctc_decode_chars_offers_each_steps_likeliest_characters_without_the_blank() -> None:
    probs = _probs([0, 1, 0, 2])
    probs[1] = [0.3, 0.4, 0.05, 0.2, 0.05]  # "a" kept; the blank and "c" came close
    [line] = ctc_decode_chars(probs[None], CHARSET, alternatives=3)
    assert line.text == "ab"
    assert [c for c, _ in line.alternatives[0]] == ["a", "c"]  # top 3 = a, blank, c
    assert line.alternatives[0][1][1] == pytest.approx(0.2)
    assert line.alternatives[1][0] == ("b", pytest.approx(0.9))
    assert ctc_decode_chars(probs[None], CHARSET)[0].alternatives == ()
    assert line.part(1, 2).alternatives == line.alternatives[1:]


def test_ctc_decode_chars_says_where_each_character_was_emitted() -> None:
    [line] = ctc_decode_chars(_probs([0, 1, 1, 0, 0, 2, 0, 1, 0])[None], CHARSET)
    assert (line.text, line.steps, line.length) == ("aba", (1, 5, 7), 9)
    assert line.part(1, 3) == type(line)(("b", "a"), line.probs[1:], (5, 7), 9)


def test_ctc_batch_and_all_blank() -> None:
    results = ctc_decode(np.stack([_probs([0, 0, 0]), _probs([3, 0, 3])]), CHARSET)
    assert results[0] == ("", 0.0)
    assert results[1][0] == "cc"


def test_ctc_rejects_a_table_of_the_wrong_size() -> None:
    with pytest.raises(ValueError, match="probabilities"):
        ctc_decode(np.zeros((1, 4, 7), np.float32), CHARSET)


def test_rec_width_follows_the_widest_crop_with_a_floor() -> None:
    assert rec_width([_crop(32, 64)]) == 320
    assert rec_width([_crop(32, 64), _crop(32, 640)]) == 960


def test_rec_preprocess_shapes_and_zero_padding() -> None:
    batch = rec_preprocess([_crop(32, 64), _crop(32, 640)])
    assert batch.shape == (2, 3, 48, 960) and batch.dtype == np.float32
    assert np.all(batch[0, :, :, :96] == 1.0)  # white, resized to 48 x 96
    assert np.all(batch[0, :, :, 96:] == 0.0)  # padding
    assert np.all(batch[1] == 1.0)


def test_rec_preprocess_scales_pixels_to_minus_one_one() -> None:
    batch = rec_preprocess([_crop(48, 48, 0)])
    assert batch[0, :, :, :48].max() == -1.0


def test_cls_preprocess_is_fixed_size() -> None:
    batch = cls_preprocess([_crop(20, 30), _crop(20, 2000)])
    assert batch.shape == (2, 3, 48, 192)
    assert np.all(batch[0, :, :, 72:] == 0.0)  # 48 * 1.5 = 72 wide, then padding
    assert np.all(batch[1] == 1.0)  # capped at 192: no padding


def test_apply_direction_flips_only_confident_upside_down_crops() -> None:
    crop = np.arange(2 * 3 * 3, dtype=np.uint8).reshape(2, 3, 3)
    scores = np.array([[0.05, 0.95], [0.2, 0.8], [0.99, 0.01]], np.float32)
    flipped, kept, upright = apply_direction([crop, crop, crop], scores)
    assert np.array_equal(flipped, crop[::-1, ::-1])
    assert np.array_equal(kept, crop) and np.array_equal(upright, crop)
    with pytest.raises(ValueError, match="direction scores"):
        apply_direction([crop], scores)


def test_aspect_batches_group_by_aspect_ratio() -> None:
    crops = [_crop(10, w) for w in (50, 10, 40, 20, 30)]
    groups = aspect_batches(crops, batch_size=2)
    assert [g.tolist() for g in groups] == [[1, 3], [4, 2], [0]]


def test_confident_keeps_scores_at_or_above_the_threshold() -> None:
    assert confident(np.array([0.49, 0.5, 0.9])).tolist() == [False, True, True]


def test_confident_lines_drop_low_scores_with_their_boxes() -> None:
    lines = [
        Decoded(("a",), (0.9,)),
        Decoded(("b",), (0.2,)),
        Decoded((), ()),
        Decoded(("c", "d"), (0.6, 0.5)),
    ]
    boxes = np.arange(4 * 8, dtype=np.float64).reshape(4, 4, 2)
    texts, scores, kept = confident_lines(lines, boxes)
    assert texts.tolist() == [b"a", b"cd"]
    assert scores.dtype == np.float32 and scores.tolist() == pytest.approx([0.9, 0.55])
    assert kept.dtype == np.float32 and kept.tolist() == boxes[[0, 3]].tolist()


def test_confident_lines_of_an_empty_page_keep_their_shapes() -> None:
    texts, scores, kept = confident_lines([], np.zeros((0, 4, 2), np.float32))
    assert texts.shape == (0,) and scores.shape == (0,) and kept.shape == (0, 4, 2)


def test_charset_adds_blank_and_space() -> None:
    assert charset_from_metadata("x\ny\nz") == [BLANK_TOKEN, "x", "y", "z", " "]


@pytest.mark.skipif(not REC_MODEL.is_file(), reason="PP-OCR models not provisioned")
def test_load_charset_matches_the_recogniser_output() -> None:
    charset = load_charset(REC_MODEL)
    assert len(charset) == 6625
    assert charset[0] == BLANK_TOKEN and charset[-1] == " "
    assert "中" in charset and "A" in charset


@pytest.mark.parametrize(("model", "classes"), [(REC_V5_MODEL, 18385), (REC_V6_MODEL, 18710)])
def test_load_charset_reads_the_file_beside_a_model_without_metadata(model: Path, classes: int) -> None:
    if not model.is_file():
        pytest.skip("PP-OCR models not provisioned")
    charset = load_charset(model)  # PP-OCRv5 and v6 ship their dictionaries as files
    assert len(charset) == classes
    assert charset[0] == BLANK_TOKEN and charset[-1] == " "
    assert "中" in charset and "A" in charset
