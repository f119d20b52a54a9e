"""Characters chosen under a character n-gram prior (imgproc.text.prior)."""

from __future__ import annotations

from imgproc.text.ngram import train_ngram
from imgproc.text.prior import with_prior
from imgproc.text.recognition import Decoded

NAMES = [("深圳市星辰科技有限公司", 5.0), ("深圳市光明贸易有限公司", 5.0), ("深州市人民政府", 1.0)]


def line(*slots: tuple[tuple[str, float], ...]) -> Decoded:
    return Decoded(
        tuple(options[0][0] for options in slots),
        tuple(options[0][1] for options in slots),
        tuple(range(0, 2 * len(slots), 2)),
        2 * len(slots),
        tuple(slots),
    )


def test_a_misread_character_the_prior_knows_better_is_put_right() -> None:
    model = train_ngram(NAMES)
    read = line((("深", 0.9),), (("州", 0.6), ("圳", 0.35)), (("市", 0.9),), (("星", 0.9),))
    assert with_prior(read, model, 1.0).text == "深圳市星"
    assert with_prior(read, model, 0.0).text == "深州市星"  # no prior: the reading


def test_a_character_no_alternative_offers_is_never_made_up() -> None:
    model = train_ngram(NAMES)
    read = line((("深", 0.9),), (("州", 0.9),), (("市", 0.9),))
    assert with_prior(read, model, 5.0).text == "深州市"  # 圳 was not among the alternatives


def test_an_insertion_is_taken_where_the_prior_wants_it() -> None:
    model = train_ngram(NAMES)
    read = Decoded(
        ("圳", "市"), (0.9, 0.9), (2, 4), 6, ((("圳", 0.9),), (("市", 0.9),)), ((("深", 0.3),), (), ())
    )
    assert with_prior(read, model, 1.0).text == "深圳市"
    unknown = Decoded(
        ("圳", "市"), (0.9, 0.9), (2, 4), 6, ((("圳", 0.9),), (("市", 0.9),)), ((("龙", 0.01),), (), ())
    )
    assert with_prior(unknown, model, 1.0).text == "圳市"
