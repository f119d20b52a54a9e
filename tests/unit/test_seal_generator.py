"""The synthetic seal page generator: determinism, every style, and truth that matches the ink."""

from __future__ import annotations

import re
from dataclasses import replace

import numpy as np
import pytest
from imgproc.imaging import decode_rgb
from imgproc.seal.codes import passes_checks

from evaluation.seal.dataset import generated_page
from evaluation.seal.generator import STYLE_NAMES, Page, generate_page
from evaluation.seal.generator.capture import Capture, capture
from evaluation.seal.generator.designs import invoice_spec, random_spec
from evaluation.seal.generator.document import paper
from evaluation.seal.generator.placement import Spot, stamp_seal
from evaluation.seal.generator.render import CJK_FONTS, available_fonts
from evaluation.seal.generator.styles import STYLES, choose
from evaluation.seal.generator.truth import SealTruth, seal_truth
from evaluation.seal.generator.vocab import INSTITUTIONS, tax_id

pytestmark = pytest.mark.skipif(not available_fonts(CJK_FONTS), reason="fonts-noto-cjk not installed")

SUPERVISION = "全国统一发票监制章"
TAX_ID = re.compile(r"[0-9A-Z]{15}|[0-9A-Z]{18}")
INK_LEVEL = 30  # grey levels a pixel must darken by to count as seal ink
GROWTH_PX = 3  # blur and anti-aliasing carry ink this far past the outline


def in_style(style: str, seed: int, n_seals: int = 2, **kwargs: object) -> Page:
    return generate_page(np.random.default_rng(seed), n_seals, style=style, **kwargs)  # type: ignore[arg-type]


def assert_boxes_inside(page: Page) -> None:
    for seal in page.seals:
        x0, y0, x1, y1 = seal.box
        assert 0 <= x0 < x1 <= page.width and 0 <= y0 < y1 <= page.height


def test_the_same_seed_gives_the_same_page() -> None:
    for seed in (3, 4, 5):
        first = generate_page(np.random.default_rng(seed), 2)
        again = generate_page(np.random.default_rng(seed), 2)
        assert first.image_bytes == again.image_bytes
        assert first.seals == again.seals


def test_plain_style_is_the_most_common_and_copies_are_rare() -> None:
    total = sum(style.weight for style in STYLES)
    share = {style.name: style.weight / total for style in STYLES}
    assert max(share, key=share.__getitem__) == "plain"
    assert 0.4 <= share["plain"] <= 0.5
    assert 0.03 <= share["copy"] <= 0.05


def test_the_official_style_is_drawn_only_by_name_so_that_seeds_keep_their_pages() -> None:
    rng = np.random.default_rng(3)
    assert all(choose(rng, int(rng.integers(1, 4))).name != "official" for _ in range(2000))


def test_an_official_page_is_headed_in_red_and_sealed_by_its_issuer_over_the_date() -> None:
    page = in_style("official", seed=5, n_seals=1)
    (seal,) = page.seals
    assert seal.shape == "round" and seal.inner_texts == () and seal.codes == ()
    assert seal.rim_text.endswith(INSTITUTIONS)
    x0, y0, _, _ = seal.box
    assert x0 > page.width / 2 and y0 > page.height / 2  # the signature block, bottom right
    header = decode_rgb(in_style("official", seed=5, n_seals=0).image_bytes)[: page.height // 4].astype(int)
    red = (header[..., 0] - header[..., 1] > 60) & (header[..., 0] - header[..., 2] > 40)
    assert red.mean() > 0.005  # the title and the rule


@pytest.mark.parametrize("style", STYLE_NAMES)
def test_every_style_draws_a_decodable_page_with_truth_inside_it(style: str) -> None:
    page = in_style(style, seed=11, n_seals=1)
    rgb = decode_rgb(page.image_bytes)
    assert rgb.shape[:2] == (page.height, page.width)
    assert len(page.seals) == 1
    assert_boxes_inside(page)


@pytest.mark.parametrize("style", STYLE_NAMES)
def test_a_requested_size_and_shape_are_honoured(style: str) -> None:
    page = in_style(style, seed=12, n_seals=1, size=(700, 500), shape="round")
    assert (page.width, page.height) == (700, 500)
    assert decode_rgb(page.image_bytes).shape[:2] == (500, 700)
    assert [seal.shape for seal in page.seals] == ["round"]


def test_drawn_pages_keep_every_box_inside_the_image() -> None:
    rng = np.random.default_rng(21)
    for _ in range(12):
        assert_boxes_inside(generate_page(rng, int(rng.integers(1, 4))))


def test_an_invoice_carries_a_supervision_seal_and_a_seller_seal() -> None:
    page = in_style("invoice", seed=5)
    supervision = [seal for seal in page.seals if seal.rim_text == SUPERVISION]
    sellers = [seal for seal in page.seals if seal.rim_text != SUPERVISION]
    assert len(supervision) == 1 and len(sellers) == 1
    (seal,) = supervision
    assert seal.shape == "oval" and seal.codes == ()
    middle, bottom = seal.inner_texts
    assert bottom == "国家税务总局监制" or (middle == "国家税务总局" and bottom.endswith("税务局"))
    assert " " not in middle and "\u3000" not in middle  # drawn spaced out, read without the gaps
    (seller,) = sellers
    assert seller.shape == "oval" and seller.inner_texts == ("发票专用章",)
    assert len(seller.codes) == 1 and TAX_ID.fullmatch(seller.codes[0])
    assert 10 <= len(seller.rim_text) <= 22


def test_an_invoice_seal_is_a_wide_oval_with_its_tax_id_in_the_codes() -> None:
    spec = invoice_spec(np.random.default_rng(2), px_per_mm=6.0)
    assert spec.axes[0] / spec.axes[1] == pytest.approx(1.33, abs=0.08)
    assert spec.inner_texts[1] == "发票专用章" and TAX_ID.fullmatch(spec.inner_texts[0])
    assert [line.text for line in spec.lines][:2] == list(spec.inner_texts)


def test_tax_ids_carry_the_check_characters_real_ones_do() -> None:
    rng = np.random.default_rng(6)
    ids = [tax_id(rng) for _ in range(40)]
    assert {len(code) for code in ids} == {15, 18}  # credit codes and old tax IDs
    assert all(passes_checks(code) for code in ids)


def test_a_grey_copy_has_no_colour_left() -> None:
    rgb = decode_rgb(in_style("copy", seed=3).image_bytes).astype(int)
    assert np.abs(rgb[:, :, 0] - rgb[:, :, 2]).max() <= 8  # JPEG chroma noise at most


def test_an_e_invoice_is_a_png_with_solid_seals() -> None:
    page = in_style("einvoice", seed=4)
    assert page.image_bytes.startswith(b"\x89PNG")
    assert not any(seal.faint for seal in page.seals)


def test_small_seals_come_out_about_100_to_140_px_across() -> None:
    for seed in (1, 2, 3):
        page = in_style("small", seed=seed, n_seals=1)
        (seal,) = page.seals
        assert 95 <= 2 * max(seal.axes) <= 145


def test_a_crop_is_one_seal_filling_the_image() -> None:
    page = in_style("crop", seed=6, n_seals=1)
    (seal,) = page.seals
    x0, y0, x1, y1 = seal.box
    assert (x1 - x0) * (y1 - y0) >= 0.7 * page.width * page.height


def test_a_requested_number_of_seals_fits_a_bench_page_for_some_seed() -> None:
    rng = np.random.default_rng(99)
    counts = [len(generate_page(rng, 3, size=(1400, 1000)).seals) for _ in range(3)]
    assert max(counts) == 3 and all(count <= 3 for count in counts)


def _photo_of_one_seal(seed: int) -> tuple[np.ndarray, np.ndarray, tuple[int, int, int, int]]:
    """The same photo taken of a page with one seal and of the bare page, and the seal's box."""
    spec = random_spec(np.random.default_rng(seed), "oval")
    sheet = paper(np.random.default_rng(seed), 900, 700)
    stamped = sheet.copy()
    stamp = stamp_seal(np.random.default_rng(seed), stamped, spec, [], spot=Spot(cut_probability=0.0))
    assert stamp is not None
    with_seal = capture(np.random.default_rng(seed), Capture.PHOTO, stamped, (800, 620))
    bare = capture(np.random.default_rng(seed), Capture.PHOTO, sheet, (800, 620))
    truth = seal_truth(stamp, with_seal.matrix, (900, 700), (800, 620))
    assert truth is not None
    return with_seal.image, bare.image, truth.box


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_warped_photos_box_holds_the_seals_ink(seed: int) -> None:
    with_seal, bare, box = _photo_of_one_seal(seed)
    ink = (bare.astype(int) - with_seal.astype(int)).max(axis=2) > INK_LEVEL
    x0, y0, x1, y1 = box
    inside = np.zeros_like(ink)
    inside[max(0, y0 - GROWTH_PX) : y1 + GROWTH_PX, max(0, x0 - GROWTH_PX) : x1 + GROWTH_PX] = True
    assert ink.sum() > 1000
    assert ink[~inside].sum() == 0
    ys, xs = np.nonzero(ink)
    assert xs.min() <= x0 + GROWTH_PX and xs.max() >= x1 - 1 - GROWTH_PX  # the box is no larger than the ink
    assert ys.min() <= y0 + GROWTH_PX and ys.max() >= y1 - 1 - GROWTH_PX


def test_a_rim_cut_through_its_characters_by_the_page_edge_has_no_whole_text_to_read() -> None:
    rng = np.random.default_rng(5)
    spec = random_spec(rng, "round")
    stamp = stamp_seal(rng, paper(rng, 900, 700), spec, [], spot=Spot(cut_probability=0.0))
    assert stamp is not None
    upright, scan, b = replace(stamp, angle_deg=0.0), np.eye(3), spec.axes[1]

    def truth(y: float) -> SealTruth:
        found = seal_truth(replace(upright, centre=(450.0, y)), scan, (900, 700), (900, 700))
        assert found is not None
        return found

    # The rim is centred on the seal's top: the top edge cuts through its middle characters,
    # the bottom edge only through the ring below its ends.
    whole, top, bottom = truth(350.0), truth(0.7 * b), truth(700.0 - 0.9 * b)
    assert (whole.cut, top.cut, bottom.cut) == (False, True, True)
    assert (whole.rim_whole, top.rim_whole, bottom.rim_whole) == (True, False, True)
    assert generated_page(Page(b"", 900, 700, [whole, top]), "cut").seals[1].rim_text is None


def test_the_hard_case_styles_are_drawn_only_by_name_so_that_seeds_keep_their_pages() -> None:
    rng = np.random.default_rng(4)
    hard = {"joint", "licence", "bwscan", "dense", "row"}
    assert hard <= set(STYLE_NAMES)
    assert all(choose(rng, int(rng.integers(1, 4))).name not in hard for _ in range(2000))


def _overlap(a: SealTruth, b: SealTruth) -> float:
    """How far two round seals overlap, in the smaller's diameters (negative: apart)."""
    distance = float(np.hypot(a.center[0] - b.center[0], a.center[1] - b.center[1]))
    return (max(a.axes) + max(b.axes) - distance) / (2.0 * min(max(a.axes), max(b.axes)))


def test_a_joint_notice_stamps_each_issuers_seal_over_its_neighbours() -> None:
    for seed in (1, 2, 3):
        page = in_style("joint", seed=seed, n_seals=3)
        assert len(page.seals) == 3 and len({seal.rim_text for seal in page.seals}) == 3
        assert all(seal.shape == "round" for seal in page.seals)
        for before, after in zip(page.seals, page.seals[1:], strict=False):
            assert 0.05 <= _overlap(before, after) <= 0.6


def test_a_row_of_seals_stands_side_by_side_rims_touching_or_nearly() -> None:
    for seed in (1, 2, 3):
        page = in_style("row", seed=seed, n_seals=3)
        assert len(page.seals) == 3 and len({seal.rim_text for seal in page.seals}) == 3
        for before, after in zip(page.seals, page.seals[1:], strict=False):
            assert -0.15 <= _overlap(before, after) <= 0.0


def test_a_licence_is_a_grey_copy_sealed_by_a_market_regulator() -> None:
    page = in_style("licence", seed=3, n_seals=1)
    (seal,) = page.seals
    assert seal.rim_text.endswith("市场监督管理局") and seal.shape == "round"
    rgb = decode_rgb(page.image_bytes).astype(int)
    assert np.abs(rgb[:, :, 0] - rgb[:, :, 2]).max() <= 8


def test_a_black_and_white_scan_has_no_colour_and_may_have_two_levels() -> None:
    levels = []
    for seed in range(6):
        rgb = decode_rgb(in_style("bwscan", seed=seed, n_seals=1).image_bytes).astype(int)
        assert np.abs(rgb[:, :, 0] - rgb[:, :, 2]).max() <= 8
        levels.append(len(np.unique(rgb)))
    assert min(levels) == 2 and max(levels) > 2


def test_dense_pages_carry_invoice_ovals_at_any_angle_over_the_print() -> None:
    angles = []
    for seed in range(8):
        page = in_style("dense", seed=seed, n_seals=1)
        (seal,) = page.seals
        assert seal.shape == "oval" and seal.inner_texts == ("发票专用章",) and len(seal.codes) == 1
        x0, y0, x1, y1 = seal.box
        grey = decode_rgb(page.image_bytes)[y0:y1, x0:x1].min(axis=2)
        assert (grey < 80).mean() > 0.01  # black print under the seal
        angles.append(min(seal.angle_deg % 360.0, 360.0 - seal.angle_deg % 360.0))
    assert min(angles) <= 25.0 < max(angles)
