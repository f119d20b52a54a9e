"""The seal reader's read and repair stages, as the pipeline chains them, with FAKE models:
which calls they make and what they keep, no Triton."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import replace

import numpy as np
import pytest
from imgproc.seal.config import DEFAULT_CONFIG
from imgproc.seal.cut import cut_seal
from imgproc.seal.pipeline import read_page, read_strips
from imgproc.seal.read import Recognisers, read_rim
from imgproc.seal.read import read_strip_lines as read_other_lines
from imgproc.seal.records import Line, Readings, SealCrop, SealRegion, SealStrips, Shape, Strip
from imgproc.seal.repair import Correct, as_read, corrected_line, repair_rim, seal_reading
from imgproc.text import Decoded
from imgproc.text.lines import TextLine

CONFIG = replace(
    DEFAULT_CONFIG, read=replace(DEFAULT_CONFIG.read, recognisers=Recognisers("first", ("second", "third")))
)
REGION = SealRegion(Shape.ROUND, (50.0, 50.0), (40.0, 40.0), 0.0, (10, 10, 90, 90), False, 1.0)


def image(value: int, width: int = 200) -> np.ndarray:
    """A strip whose fill value names what the fake recognisers read in it."""
    return np.full((48, width), value, np.uint8)


def decoded(text: str, prob: float) -> Decoded:
    return Decoded(tuple(text), (prob,) * len(text))


class FakeModels:
    """Reads each image as `table[model][fill value]`; records every call. `read_lines` finds
    `lines` in images at least `lines_wide` columns wide."""

    def __init__(
        self,
        table: dict[str, dict[int, tuple[str, float]]],
        lines: list[Line] | None = None,
        lines_wide: int = 0,
    ):
        self.table, self.lines, self.calls = table, lines or [], []  # type: list[tuple[str, int]]
        self.lines_wide = lines_wide

    async def seal_text(self, tensor: np.ndarray) -> np.ndarray:
        raise AssertionError("no detection in these tests")

    async def recognise(
        self, model: str, images: Sequence[np.ndarray], alternatives: int, frames: int = 0
    ) -> list[Decoded]:
        self.calls.append((model, len(images)))
        return [decoded(*self.table[model][int(i[0, 0])]) for i in images]

    async def read_lines(self, image: np.ndarray) -> list[TextLine]:
        self.calls.append(("read_lines", 1))
        if image.shape[1] < self.lines_wide:
            return []
        lines = self.lines if image.flat[0] == 0 else self.lines[::-1]
        return [TextLine(text, score, (0, 0, image.shape[1], image.shape[0])) for text, score in lines]


def rim(models: FakeModels, *strips: Strip) -> Decoded | None:
    """The rim read, then repaired, as the pipeline does."""
    read = asyncio.run(read_rim(strips, models, CONFIG.read)).line
    return None if read is None else repair_rim(read, as_read, CONFIG.repair)


def read_lines(strips: SealStrips, models: FakeModels, correct: Correct = as_read) -> list[Line]:
    """The seal's lines read, then corrected, as the pipeline hands them to be sorted."""
    lines, interiors = asyncio.run(read_other_lines(strips, models, CONFIG.read))
    return [corrected_line(line, correct, CONFIG.repair) for line in lines] + interiors


def found(lines: list[Line]) -> Readings:
    """Readings of lines found in a seal's interior (taken as they were read)."""
    return Readings(None, found=tuple(lines))


def test_a_sure_rim_is_read_once_and_the_best_prior_weighted_candidate_wins() -> None:
    models = FakeModels({"first": {1: ("上海星辰科技有限公司", 0.98), 2: ("司公限有", 0.99)}})
    line = rim(models, Strip(image(1)), Strip(image(2), prior=0.9))
    assert line is not None and line.text == "上海星辰科技有限公司"
    assert models.calls == [("first", 2)]


def test_an_unsure_rim_is_reread_by_the_others_and_the_surest_reading_kept() -> None:
    table = {"first": {1: ("四川顺丰速运有眼公司", 0.7)}, "second": {1: ("四川顺丰速运有限公司", 0.9)}}
    table["third"] = {1: ("四川顺风速运有限公司", 0.8)}
    models = FakeModels(table)
    line = rim(models, Strip(image(1)))
    assert line is not None and line.text == "四川顺丰速运有限公司"
    assert sorted(models.calls) == [("first", 1), ("second", 1), ("third", 1)]


def test_a_short_sure_reading_does_not_spare_an_unsure_rim_the_other_recognisers() -> None:
    """The first recogniser kept only the three characters it was sure of on one strip: that
    is no sure reading of a rim the other strip shows fourteen characters of."""
    table = {
        "first": {1: ("有公司", 0.99), 2: ("扬州博远通轨设备国团有限公司", 0.9)},
        "second": {1: ("有限公司", 0.99), 2: ("扬州博远通讯设备集团有限公司", 0.95)},
        "third": {1: ("公司", 0.99), 2: ("扬州博远通讯设备集团有限公", 0.8)},
    }
    models = FakeModels(table)
    line = rim(models, Strip(image(1)), Strip(image(2), prior=0.9))
    assert line is not None and line.text == "扬州博远通讯设备集团有限公司"
    assert sorted(models.calls) == [("first", 2), ("second", 2), ("third", 2)]


def test_the_rim_is_repaired_after_reading() -> None:
    models = FakeModels({"first": {1: ("9深圳市德瑞欣电子有限公", 0.98)}})
    line = rim(models, Strip(image(1)))
    assert line is not None and line.text == "深圳市德瑞欣电子有限公司"  # code digit cut, legal form restored


def test_no_rim_candidates_is_no_rim() -> None:
    assert rim(FakeModels({})) is None


def test_arcs_inner_lines_and_interiors_are_read_in_one_call_each_and_codes_once_more() -> None:
    strips = SealStrips(
        arcs=((Strip(image(3)), Strip(image(4))),),
        lines=(image(5), image(6)),
        interiors=(image(0),),
        rim=(Strip(image(1)),),
    )
    table = {
        "first": {
            3: ("1234567890123", 0.9),
            4: ("1234S67890123", 0.8),
            5: ("发票专用章", 0.95),
            6: ("噪", 0.2),
        }
    }
    models = FakeModels(table, lines=[("合同专用章", 0.9)])
    lines = read_lines(strips, models)
    assert lines == [
        ("1234567890123", pytest.approx(0.9)),
        ("发票专用章", pytest.approx(0.95)),
        ("噪", pytest.approx(0.2)),
        ("合同专用章", 0.9),
    ]
    # The two code-like readings (both arc candidates) are read once more, stretched, in one call.
    assert sorted(models.calls) == [("first", 2), ("first", 4), ("read_lines", 1)]


def test_arcs_and_inner_lines_are_corrected_as_the_rim_is_with_their_confidence_kept() -> None:
    strips = SealStrips(arcs=((Strip(image(3)),),), lines=(image(5),))
    models = FakeModels({"first": {3: ("熏龙江", 0.8), 5: ("国家税务总局", 0.9)}})

    def fake_correct(line: Decoded) -> Decoded:
        return decoded("黑龙江", 0.1) if line.text == "熏龙江" else line

    lines = read_lines(strips, models, fake_correct)
    assert lines == [("黑龙江", pytest.approx(0.8)), ("国家税务总局", pytest.approx(0.9))]


def test_a_seal_reading_sorts_lines_into_inner_lines_and_codes() -> None:
    lines = [("1234567890123", 0.9), ("发票专用章", 0.95), ("噪", 0.2)]
    reading = seal_reading(
        REGION, decoded("天津君和缘商贸有限公司", 0.97), found(lines), as_read, CONFIG.repair
    )
    assert (reading.rim_text, reading.inner, reading.codes) == (
        "天津君和缘商贸有限公司",
        [("发票专用章", 0.95)],
        [("1234567890123", 0.9)],
    )


def test_only_an_oval_whose_rim_went_unread_is_read_whole_for_the_invoice_title() -> None:
    oval = replace(REGION, shape=Shape.OVAL)
    crop = SealCrop(
        oval,
        oval,
        np.zeros((100, 100, 3), np.uint8),
        np.zeros((100, 100), np.uint8),
        np.ones((100, 100), bool),
    )
    strips = SealStrips(rim=(Strip(image(1)),))
    title = [("增值税专用发票", 0.9)]
    for rim_read, calls, expected in [
        (("晋", 0.99), [("first", 1), ("read_lines", 1)], "全国统一发票监制章"),
        (("天津君和缘商贸有限公司", 0.99), [("first", 1)], "天津君和缘商贸有限公司"),
    ]:
        models = FakeModels({"first": {1: rim_read}}, lines=title)
        reading = asyncio.run(read_strips(crop, strips, models, CONFIG)).reading
        assert (reading.rim_text, sorted(models.calls)) == (expected, calls)


def test_an_oval_whose_rim_went_unread_is_read_with_the_page_beside_it_for_the_title() -> None:
    """The title runs on past a supervision seal: here it is found only in the wider view."""
    oval = SealRegion(Shape.OVAL, (150.0, 50.0), (45.0, 30.0), 0.0, (105, 20, 195, 80), False, 1.0)
    page = np.zeros((100, 300, 3), np.uint8)
    crop = cut_seal(page, oval)
    strips = SealStrips(rim=(Strip(image(1)),))
    for lines_wide, expected in [(crop.bgr.shape[1] + 1, "全国统一发票监制章"), (1000, "晋")]:
        models = FakeModels({"first": {1: ("晋", 0.99)}}, [("增值税专用发票", 0.9)], lines_wide)
        reading = asyncio.run(read_strips(crop, strips, models, CONFIG)).reading
        calls = [("first", 1), ("read_lines", 1), ("read_lines", 1)]  # the crop, and the wider view
        assert (reading.rim_text, sorted(models.calls)) == (expected, calls)


def test_a_rect_seal_reports_its_first_line_as_main_text_and_the_best_way_up() -> None:
    strips = SealStrips(interiors=(image(0), image(180)))
    models = FakeModels({}, lines=[("转账收讫", 0.97), ("嘉兴锦程物流有限公司", 0.99)])
    reading = seal_reading(REGION, None, found(read_lines(strips, models)), as_read, CONFIG.repair)
    assert (reading.rim_text, reading.inner) == ("转账收讫", [("嘉兴锦程物流有限公司", 0.99)])


def test_no_text_at_all_is_empty_not_an_error() -> None:
    reading = seal_reading(
        REGION, None, found(read_lines(SealStrips(), FakeModels({}))), as_read, CONFIG.repair
    )
    assert (reading.rim_text, reading.rim_score, reading.inner, reading.codes) == ("", 0.0, [], [])


def test_a_page_of_more_seals_than_are_read_is_refused_before_any_is_cut(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from imgproc.imaging import decode_rgb
    from imgproc.seal import pipeline
    from imgproc.seal.find import find_seals

    from tests.support.seal_pages import png, seal_grid

    page = decode_rgb(png(seal_grid(1, 3)))
    assert len(find_seals(page)) == 3
    work: list[str] = []  # cutting a seal, and checking which seals cross (every pair of them)
    monkeypatch.setattr(pipeline, "cut_seal", lambda *args: work.append("cut"))
    monkeypatch.setattr(pipeline, "crossing", lambda *args: work.append("crossing"))
    models = FakeModels({})
    with pytest.raises(pipeline.TooManySeals, match=r"^refused: 3 seals found on one page; at most 2 "):
        asyncio.run(pipeline.read_page(page, models, replace(DEFAULT_CONFIG, max_seals=2)))  # type: ignore[arg-type]
    assert (work, models.calls) == ([], [])


def test_a_page_checked_against_its_document_reads_its_lines_without_red_ink() -> None:
    page = np.full((400, 600, 3), 255, np.uint8)
    page[50:60, 50:150] = (0, 0, 0)  # black print
    page[200:210, 50:150] = (230, 30, 30)  # a red stroke, no seal
    seen: list[np.ndarray] = []
    lines = [("销售方名称：上海滴滴畅行科技有限公司", 0.99), ("电子发票（普通发票）", 0.99)]

    class Recording(FakeModels):
        async def read_lines(self, image: np.ndarray) -> list[TextLine]:
            seen.append(image)
            return await super().read_lines(image)

    reading = asyncio.run(read_page(page, Recording({}, lines), check_document=True))
    assert reading.seals == [] and reading.document is not None
    assert (reading.document.kind, reading.document.verdict) == ("invoice", "seller_unsealed")
    assert [party.text for party in reading.document.parties] == ["上海滴滴畅行科技有限公司"]
    assert len(seen) == 1 and (seen[0][55, 100] == 0).all() and (seen[0][205, 100] == 255).all()
    assert asyncio.run(read_page(page, Recording({}, lines))).document is None and len(seen) == 1
