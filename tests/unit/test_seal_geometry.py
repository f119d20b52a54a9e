"""Seal geometry (imgproc.seal) on drawn shapes with known answers, and on generated seals."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np
import pytest
from imgproc.imaging import decode_rgb
from imgproc.seal import geometry
from imgproc.seal.cut import ink_gray_hsv
from imgproc.seal.find import DEFAULT_FIND, find_seals
from imgproc.seal.fit import DEFAULT_FIT
from imgproc.seal.geometry import rotation, strip_width, unwrap_band
from imgproc.seal.ink import median_hue, red_mask, to_hsv
from imgproc.seal.locate import DEFAULT_LOCATE
from imgproc.seal.locate.band import estimate_band
from imgproc.seal.locate.classical import nearest_upright, up_direction
from imgproc.seal.locate.layout import find_gaps, rim_layout
from imgproc.seal.locate.rim import bounded_rim
from imgproc.seal.pipeline import find_page_seals
from imgproc.seal.records import Band, SealRegion, Shape, TextArc
from imgproc.seal.runs import Run
from imgproc.seal.unwrap.interior import inner_region, rect_interior, star_bottom
from PIL import Image, ImageDraw

from evaluation.seal.generator.render import CJK_FONTS, available_fonts, truetype

RED = (220, 30, 40)  # RGB
WHITE = (255, 255, 255)
BLACK = (20, 20, 20)
RING = 8
SERIF_CJK = ("/usr/share/fonts/opentype/noto/NotoSerifCJK-Regular.ttc", 2)
needs_fonts = pytest.mark.skipif(not available_fonts(CJK_FONTS), reason="fonts-noto-cjk not installed")


def page(width: int = 400, height: int = 400) -> np.ndarray:
    return np.full((height, width, 3), WHITE, np.uint8)


def stamp_ring(image: np.ndarray, centre: tuple[int, int], axes: tuple[int, int], angle: float = 0.0) -> None:
    """A seal-like drawing: a ring and short radial bars where the rim text would be."""
    cv2.ellipse(image, centre, axes, angle, 0, 360, RED, RING)
    for t in np.linspace(0, 2 * np.pi, 24, endpoint=False):
        inner = np.array(centre) + 0.7 * np.array([axes[0] * np.cos(t), axes[1] * np.sin(t)])
        outer = np.array(centre) + 0.85 * np.array([axes[0] * np.cos(t), axes[1] * np.sin(t)])
        cv2.line(image, tuple(int(v) for v in inner), tuple(int(v) for v in outer), RED, 4)


def test_red_circle_is_found_as_round_with_its_centre_and_radius() -> None:
    image = page()
    stamp_ring(image, (200, 210), (120, 120))
    seals = find_seals(image)
    assert len(seals) == 1
    seal = seals[0]
    assert seal.shape == "round"
    assert seal.center == pytest.approx((200, 210), abs=2)
    assert seal.axes[0] == pytest.approx(120 + RING / 2, abs=3)  # the fit follows the ring's outer edge
    assert not seal.cut


def test_ellipse_and_rectangle_are_told_apart() -> None:
    image = page(700, 400)
    stamp_ring(image, (180, 200), (150, 100), angle=10)
    cv2.rectangle(image, (420, 140), (660, 260), RED, RING)
    cv2.putText(image, "PAID", (450, 225), cv2.FONT_HERSHEY_SIMPLEX, 1.8, RED, 6)
    shapes = sorted((s.shape, round(s.center[0] / 100)) for s in find_seals(image))
    assert shapes == [("oval", 2), ("rect", 5)]


def test_black_text_red_text_and_a_filled_logo_are_not_seals() -> None:
    image = page(800, 400)
    for row in range(6):
        cv2.putText(
            image, "Contract No. 2024-118", (10, 40 + 50 * row), cv2.FONT_HERSHEY_SIMPLEX, 1.2, BLACK, 3
        )
    cv2.putText(image, "INVOICE", (420, 360), cv2.FONT_HERSHEY_SIMPLEX, 2.5, RED, 8)
    cv2.circle(image, (700, 80), 40, RED, -1)
    assert find_seals(image) == []


def test_a_seal_cut_by_the_page_edge_is_still_fitted_whole() -> None:
    image = page()
    stamp_ring(image, (60, 200), (110, 110))  # a third of it is off the left edge
    seals = find_seals(image)
    assert len(seals) == 1
    assert seals[0].cut
    assert seals[0].center == pytest.approx((60, 200), abs=4)


def broken_ring(image: np.ndarray, centre: tuple[int, int], radius: int) -> None:
    """A seal whose pale ink left its ring as 7-degree dashes with 2.5-degree gaps (about 9 px
    here, more than the first closing bridges), the rim text near it."""
    for start in np.arange(0.0, 360.0, 9.5):
        cv2.ellipse(image, centre, (radius, radius), 0, float(start), float(start) + 7.0, RED, RING)
    for t in np.linspace(0, 2 * np.pi, 24, endpoint=False):
        inner = np.array(centre) + 0.8 * radius * np.array([np.cos(t), np.sin(t)])
        outer = np.array(centre) + 0.93 * radius * np.array([np.cos(t), np.sin(t)])
        cv2.line(image, tuple(int(v) for v in inner), tuple(int(v) for v in outer), RED, 4)


def test_a_seal_with_a_broken_ring_is_found_by_the_wide_pass() -> None:
    image = page(600, 600)
    broken_ring(image, (300, 300), 200)
    seals = find_seals(image)
    assert [s.shape for s in seals] == ["round"]
    assert seals[0].center == pytest.approx((300, 300), abs=4)
    # The first pass alone, without the robust ellipse through the dashes, finds nothing.
    assert (
        find_seals(
            image,
            params=replace(DEFAULT_FIND, wide_min_widths=np.inf),
            fit=replace(DEFAULT_FIT, robust=False),
        )
        == []
    )


@pytest.mark.skipif(not Path(SERIF_CJK[0]).is_file(), reason="fonts-noto-cjk not installed")
def test_a_big_red_printed_character_is_not_a_seal_in_the_wide_pass() -> None:
    # 伍 (five, as amounts are written on invoices) in red, 75 px: the wide closing fills it
    # into a disc with a ring-like outline, which only its size rules out (absolute, in pixels
    # and in closing widths, and relative to the page: a seal is 0.1-0.15 of a page's long side).
    image = Image.new("RGB", (1200, 900), "white")
    ImageDraw.Draw(image).text((500, 400), "伍", fill=(200, 90, 60), font=truetype(SERIF_CJK, 75))
    pixels = np.asarray(image)
    assert find_seals(pixels) == []
    without_guards = replace(DEFAULT_FIND, wide_min_widths=0.0)
    assert (
        find_seals(pixels, params=without_guards, fit=replace(DEFAULT_FIT, min_page_share=0.0, min_size_px=0))
        != []
    )


def test_several_seals_on_a_page() -> None:
    image = page(900, 400)
    for x in (150, 450, 750):
        stamp_ring(image, (x, 200), (110, 110))
    assert sorted(round(s.center[0]) for s in find_seals(image)) == pytest.approx([150, 450, 750], abs=3)


def test_red_mask_takes_red_pink_and_vermilion_but_not_brown_black_or_blue() -> None:
    colours = {
        (220, 30, 40): True,  # red
        (235, 120, 140): True,  # pinkish invoice seal
        (240, 80, 40): True,  # vermilion
        (200, 150, 120): False,  # brown invoice form
        (20, 20, 20): False,  # black print
        (40, 60, 150): False,  # blue print
        (250, 248, 245): False,  # paper
    }
    image = np.array([list(colours)], np.uint8)
    assert red_mask(image)[0].tolist() == list(colours.values())


def test_the_median_hue_of_red_ink_runs_on_across_zero() -> None:
    magenta, red, orange = (230, 40, 90), (220, 30, 40), (235, 125, 20)
    hsv = to_hsv(np.array([[magenta, magenta, red, orange]], np.uint8))
    assert median_hue(hsv, np.array([[True, True, True, False]])) < 0  # magenta and red: below zero
    assert median_hue(hsv, np.array([[False, False, True, True]])) > 0
    assert median_hue(hsv, np.zeros((1, 4), bool)) is None


def test_ink_image_keeps_red_strokes_dark_and_removes_black_print() -> None:
    image = page(200, 100)
    cv2.line(image, (20, 50), (180, 50), RED, 6)
    cv2.line(image, (100, 5), (100, 95), BLACK, 3)  # black print across the red stroke
    gray = ink_gray_hsv(image, to_hsv(image))
    assert gray[50, 40] < 128  # red stroke
    assert gray[20, 100] == 255  # black print away from the ink: gone
    assert gray[50, 100] < 200  # where the print crossed the stroke: inpainted, not a white gap
    assert gray[80, 40] == 255  # paper


def test_estimate_band_lies_between_ring_and_star() -> None:
    image = page()
    stamp_ring(image, (200, 200), (120, 120))  # bars from radius 84 to 102: insets 22 to 40 past 124
    region = find_seals(image)[0]
    band = estimate_band(red_mask(image), region)
    assert 6 <= band.outer <= 24
    assert 38 <= band.inner <= 52


def test_a_rim_band_merged_with_print_inside_ends_where_the_seals_ink_does() -> None:
    """The detector marks black print too: print across a photographed seal just inside its
    rim made one band 0.8 of the short semi-axis deep. The seal's own ink ends the text."""
    image = page()
    stamp_ring(image, (200, 200), (120, 120))  # bars from inset 22 to 40
    region, ink = find_seals(image)[0], red_mask(image)
    b = region.axes[1]
    deep = TextArc(Band(10.0, 0.85 * b), 0.3, 0.6)
    bounded = bounded_rim(deep, ink, region, DEFAULT_LOCATE)
    assert bounded.band.outer == 10.0 and 38 <= bounded.band.inner <= 52
    assert (bounded.start, bounded.span) == (deep.start, deep.span)
    rim_deep = TextArc(Band(10.0, 0.6 * b), 0.3, 0.6)  # a big rim font: left alone
    assert bounded_rim(rim_deep, ink, region, DEFAULT_LOCATE) == rim_deep


def test_unwrap_gives_the_requested_size_and_the_ring_as_a_row() -> None:
    image = page()
    cv2.circle(image, (200, 200), 100, RED, 4)
    region = SealRegion(Shape.ROUND, (200.0, 200.0), (110.0, 110.0), 0.0, (90, 90, 310, 310), False, 1.0)
    gray = cv2.cvtColor(image, cv2.COLOR_RGB2GRAY)
    strip = unwrap_band(gray, region, Band(0.0, 20.0), height=40, width=700)
    assert strip.shape == (40, 700)
    dark_rows = np.nonzero((strip < 128).mean(axis=1) > 0.9)[0]
    assert 18 <= dark_rows.mean() <= 22  # radius 100 is inset 10 of 20: the middle row
    assert unwrap_band(gray, region, Band(0.0, 20.0), height=40).shape[1] == strip_width(
        region, Band(0.0, 20.0), 40
    )


def test_find_gaps_finds_a_known_gap_also_across_the_seam() -> None:
    profile = np.full(360, 0.3)
    profile[150:210] = 0.0  # the bottom gap
    profile[40:45] = 0.0  # a space between characters: too narrow
    assert find_gaps(profile, min_width=20, level=0.02) == [Run(150, 210)]
    wrapped = np.roll(profile, 200)  # the gap now runs over the end of the strip
    (gap,) = find_gaps(wrapped, min_width=20, level=0.02)
    assert (gap.start, gap.length) == (350, 60)


def test_rim_layout_separates_rim_text_from_a_bottom_code() -> None:
    strip = np.full((48, 1200), 255, np.uint8)
    for x in range(100, 700, 50):  # rim characters fill the band's height
        strip[4:44, x : x + 40] = 0
    for x in range(820, 1000, 14):  # code digits are small and sit by the ring (top rows)
        strip[4:18, x : x + 8] = 0
    layout = rim_layout(strip)
    assert layout.code is not None and 800 <= layout.code.start and layout.code.stop <= 1020
    assert (layout.rim.start, layout.rim.stop) == pytest.approx((100, 690), abs=8)


@pytest.mark.parametrize("angle_deg", [0.0, 3.0, 177.0, 180.0, 183.0])
def test_rect_interior_comes_page_upright_first_whichever_way_the_fit_points(angle_deg: float) -> None:
    """minAreaRect gives a near-horizontal rectangle as about 0 or about 180 degrees; the first
    crop must be the one with the page's top on top either way (the second is it turned)."""
    gray = np.full((200, 300), 255, np.uint8)
    gray[60:100, 60:240] = 0  # dark top half of a 180 x 80 rectangle centred at (150, 100)
    rect = SealRegion(Shape.RECT, (150.0, 100.0), (90.0, 40.0), angle_deg, (60, 60, 240, 140), False, 1.0)
    up = rotation(nearest_upright(rect.angle_deg)) @ np.array([0.0, -1.0])
    first, second = rect_interior(gray, rect, up)
    half = first.shape[0] // 2
    assert first[:half].mean() < 100 < first[half:].mean()
    assert np.array_equal(second, first[::-1, ::-1])


def test_star_bottom_finds_the_star_of_an_upright_interior() -> None:
    interior = np.full((200, 200), 255, np.uint8)
    cv2.fillPoly(interior, [np.array([[100, 30], [125, 110], [60, 60], [140, 60], [75, 110]])], 0)
    cv2.putText(interior, "ABC", (50, 170), cv2.FONT_HERSHEY_SIMPLEX, 1.0, 0, 2)
    assert 108 <= star_bottom(interior) <= 120
    assert star_bottom(np.full((200, 200), 255, np.uint8)) is None


@needs_fonts
def test_a_seal_touching_a_red_letterhead_title_is_found() -> None:
    """Dev seed 8000, page 11: the seal's top touches the red title, and the first closing
    merges the two into one blob that no shape fits; the narrower pass (or a robust ellipse
    through the blob) finds the seal."""
    from evaluation.seal.dataset import box_iou
    from evaluation.seal.generator import generate_page
    from evaluation.seal.scoring import MATCH_IOU

    rng = np.random.default_rng(8000)
    for _ in range(11):
        truth_page = generate_page(rng, int(rng.integers(1, 4)), style="plain")
    (truth,) = truth_page.seals
    rgb = decode_rgb(truth_page.image_bytes)
    # The first pass again, and rules sought only level: adds nothing (the page is turned a
    # little, and its turned red rule cut out is another way to free the seal).
    level = replace(DEFAULT_FIND.rules, turns=())
    without = replace(DEFAULT_FIND, tight_close=1.0, rules=level)
    plain = replace(DEFAULT_FIT, robust=False)
    assert not [
        r for r in find_seals(rgb, params=without, fit=plain) if box_iou(r.box, truth.box) >= MATCH_IOU
    ]
    assert [r.shape for r in find_seals(rgb) if box_iou(r.box, truth.box) >= MATCH_IOU] == ["round"]


@pytest.mark.slow  # 3-4 s: left out of `make test-fast`
@needs_fonts
def test_a_form_photographed_to_the_image_edge_is_no_seal_and_hides_none() -> None:
    """Dev seed 8000, page 12: an invoice photographed on a brown table, its shadowed paper edge
    running to the image's right edge. That edge outlines a large rectangle 97% inside the
    image: the form, not a seal, and the three seals on it are found."""
    from evaluation.seal.dataset import box_iou, generated_pages
    from evaluation.seal.scoring import MATCH_IOU

    *_, page = generated_pages(8000, 13, 0)
    rgb = decode_rgb(page.image)
    found = find_seals(rgb)
    assert Shape.RECT not in [r.shape for r in found]
    assert all(any(box_iou(r.box, seal.box) >= MATCH_IOU for r in found) for seal in page.seals)
    assert len(page.seals) == 3
    only_whole = replace(DEFAULT_FIT, whole_visible=1.0)  # a frame must lie wholly inside...
    # ...on the whole image, it is taken and hides them; on the sheet (`paper`), the edge is the
    # sheet's and the seals are found first. (Its brown ink, filling it, is no seal's either:
    # those checks are lifted here to show the sheet's.)
    brown_taken = replace(only_whole, max_rect_fill=1.0)
    whole_image = replace(DEFAULT_FIND, paper=replace(DEFAULT_FIND.paper, enabled=False), max_median_hue=90.0)
    assert [r.shape for r in find_seals(rgb, params=whole_image, fit=brown_taken)] == [Shape.RECT]
    assert Shape.RECT not in [
        r.shape
        for r in find_seals(rgb, params=replace(whole_image, paper=DEFAULT_FIND.paper), fit=brown_taken)
    ]


@pytest.mark.slow  # 5-6 s: left out of `make test-fast`
@needs_fonts
def test_a_seal_merged_with_the_print_of_a_grey_photocopy_is_found_by_a_robust_ellipse() -> None:
    """Dev seed 7000, page 37: a grey photocopy of an invoice, its supervision seal one blob of
    toner with the title printed over it. No plain shape fits that blob; a RANSAC ellipse
    through its hull does, as on red pages."""
    from evaluation.seal.dataset import box_iou, generated_pages

    *_, page = generated_pages(7000, 38, 0)
    supervision = page.seals[0]
    assert supervision.rim_text == "全国统一发票监制章"
    rgb = decode_rgb(page.image)
    # The robust fit alone: one toner level, no snapping, no search without the form's lines.
    alone = replace(DEFAULT_FIND.grey, other_values=(), snap=False, lineless=False)
    at_200 = replace(DEFAULT_FIND, grey=alone)
    assert [box_iou(r.box, supervision.box) > 0.9 for r in find_seals(rgb, params=at_200)] == [True]
    plain = replace(at_200, grey=replace(at_200.grey, robust=False))
    assert find_seals(rgb, params=plain) == []
    # At the other toner levels the page's other seals come apart from the print as well, the
    # round one cut by the page's edge once its fit is moved onto its ring (`GreyParams.snap`).
    assert sum(max(box_iou(r.box, s.box) for r in find_seals(rgb)) > 0.9 for s in page.seals) == 3


@needs_fonts
def test_generated_seal_reads_upright_from_its_top() -> None:
    from evaluation.seal.generator import generate_page

    truth_page = generate_page(np.random.default_rng(7), 1, size=(900, 700), shape="round", style="plain")
    (truth,) = truth_page.seals
    rgb = decode_rgb(truth_page.image_bytes)
    (crop,) = find_page_seals(rgb)
    assert crop.region.center == pytest.approx(truth.center, abs=4)
    region = crop.region
    band = estimate_band(red_mask(rgb), region)
    full = unwrap_band(ink_gray_hsv(rgb, to_hsv(rgb)), region, band, 48)
    layout = rim_layout(full)
    up = up_direction(region, band, layout.rim.centre(layout.width))
    truth_up = rotation(truth.angle_deg) @ np.array([0.0, -1.0])
    assert float(up @ truth_up) > np.cos(np.deg2rad(20))


def test_interior_reaches_into_the_band_only_in_the_rims_gap() -> None:
    """Ink in the band under the rim text stays out; ink in the band below, in the gap, is in."""
    gray = np.full((200, 200), 255, np.uint8)
    cv2.circle(gray, (100, 160), 4, 0, -1)  # in the band at the bottom (the gap)
    cv2.circle(gray, (100, 40), 4, 0, -1)  # in the band at the top (under the rim text)
    cv2.circle(gray, (100, 100), 4, 0, -1)  # the centre
    region = SealRegion(Shape.ROUND, (100.0, 100.0), (80.0, 80.0), 0.0, (20, 20, 180, 180), False, 1.0)
    band, up = Band(10.0, 30.0), np.array([0.0, -1.0])
    # The rim covers three quarters of the perimeter, clockwise from the lower left (share
    # 0.375, 45 degrees past the bottom, where t = pi / 2) over the top: the gap is below.
    rim = (0.375, 0.75)
    plain = inner_region(gray, region, band, up)
    reaching = inner_region(gray, region, band, up, rim=rim)
    assert _dots(plain) == [(50, 50)]  # only the centre, in a crop just inside the band
    assert plain.shape == (100, 100)
    # The bottom dot (60 px below the centre) is in; the top one is not, and the crop grows
    # downwards only.
    assert _dots(reaching) == [(50, 50), (50, 110)]
    assert reaching.shape == (115, 100)
    cv2.circle(gray, (100, 160), 4, 255, -1)  # an empty gap: the crop stays as it was
    assert np.array_equal(inner_region(gray, region, band, up, rim=rim), inner_region(gray, region, band, up))


def _dots(gray: np.ndarray) -> list[tuple[int, int]]:
    """Centres (x, y) of the dark blobs of a gray image, top to bottom."""
    count, _, _, centres = cv2.connectedComponentsWithStats((gray < 128).astype(np.uint8))
    return sorted((round(x), round(y)) for x, y in centres[1:count])


def test_a_band_unwrapped_from_two_images_is_sampled_at_the_same_points_worked_out_once() -> None:
    image = page()
    cv2.circle(image, (200, 200), 100, RED, 4)
    region = SealRegion(Shape.ROUND, (200.0, 200.0), (110.0, 110.0), 0.0, (90, 90, 310, 310), False, 1.0)
    green = np.ascontiguousarray(image[..., 1])
    band = Band(0.0, 20.0)
    geometry._band_maps.cache_clear()
    colour = unwrap_band(image, region, band, height=40, start=0.1, span=0.5)
    one = unwrap_band(green, region, band, height=40, start=0.1, span=0.5)
    assert geometry._band_maps.cache_info().hits == 1
    # The same points: the colour strip's green is the green image's strip (rounding aside).
    assert np.abs(colour[..., 1].astype(int) - one.astype(int)).max() <= 1
    geometry._band_maps.cache_clear()  # worked out afresh: the same strip
    assert np.array_equal(unwrap_band(green, region, band, height=40, start=0.1, span=0.5), one)
