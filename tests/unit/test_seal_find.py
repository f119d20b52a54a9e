"""Seal finding (imgproc.seal.find and the modules it uses) on drawn pages of the hard kinds:
colour casts, print rules through seals, titles over them, close-ups, grey photocopies."""

from __future__ import annotations

from dataclasses import replace

import cv2
import numpy as np
import pytest
from imgproc.imaging import decode_rgb
from imgproc.seal.cut.ink_image import crop_toner
from imgproc.seal.find import DEFAULT_FIND, FindParams, find_seals
from imgproc.seal.find.balance import BalanceParams, paper_colour, white_balanced
from imgproc.seal.find.fringes import print_fringes
from imgproc.seal.find.grey import long_lines, toner_mask
from imgproc.seal.find.paper import paper_mask
from imgproc.seal.find.rules import rule_pixels
from imgproc.seal.find.search import searched_page
from imgproc.seal.find.textline import in_text_line
from imgproc.seal.fit import DEFAULT_FIT
from imgproc.seal.fit.ellipse import RansacParams, finite, plain_fits, ransac_ellipse, snapped
from imgproc.seal.geometry import rect_outline_points
from imgproc.seal.ink import is_grey, to_hsv, without_ink
from imgproc.seal.records import Outline, SealRegion, Shape

from evaluation.seal.generator import generate_page
from evaluation.seal.generator.render import CJK_FONTS, available_fonts

RED = (220, 30, 40)  # RGB
BROWN = (190, 80, 60)  # invoice print
WHITE = (255, 255, 255)
BLACK = (20, 20, 20)
RING = 6


def page(width: int, height: int, colour: tuple[int, int, int] = WHITE) -> np.ndarray:
    return np.full((height, width, 3), colour, np.uint8)


def stamp(
    image: np.ndarray,
    centre: tuple[int, int],
    axes: tuple[int, int],
    colour: tuple[int, int, int] = RED,
    ring: int = RING,
) -> None:
    """A seal-like drawing: a ring and radial bars where the rim text would be."""
    cv2.ellipse(image, centre, axes, 0, 0, 360, colour, ring)
    for t in np.linspace(0, 2 * np.pi, 20, endpoint=False):
        unit = np.array([axes[0] * np.cos(t), axes[1] * np.sin(t)])
        inner, outer = np.array(centre) + 0.65 * unit, np.array(centre) + 0.82 * unit
        cv2.line(image, tuple(int(v) for v in inner), tuple(int(v) for v in outer), colour, 4)


def centres(image: np.ndarray, params: FindParams = DEFAULT_FIND) -> list[tuple[int, int]]:
    return sorted((round(s.center[0]), round(s.center[1])) for s in find_seals(image, params=params))


def test_white_balance_makes_tinted_paper_white_and_leaves_white_paper_alone() -> None:
    tinted = page(200, 100, (180, 200, 230))
    assert paper_colour(tinted) == pytest.approx([180, 200, 230], abs=1)
    assert white_balanced(tinted)[50, 100] == pytest.approx([255, 255, 255], abs=1)
    white = page(200, 100)
    assert white_balanced(white) is white


def test_a_pale_seal_on_a_cold_photo_is_found_once_the_paper_is_white() -> None:
    image = page(700, 600)
    stamp(image, (350, 300), (150, 150), colour=(255, 190, 205))
    cast = (image.astype(np.float32) * np.array([0.75, 0.85, 1.0])).astype(np.uint8)
    assert centres(cast) == [pytest.approx((350, 300), abs=4)]
    unbalanced = replace(DEFAULT_FIND, balance=BalanceParams(max_gain=1.0))
    assert find_seals(cast, params=unbalanced) == []  # the ink is bluish until the paper is white


def invoice_table(image: np.ndarray, rows: list[int], left: int, right: int) -> None:
    for y in rows:
        cv2.line(image, (left, y), (right, y), BROWN, 2)
    for x in (left, right, (left + right) // 2):
        cv2.line(image, (x, rows[0]), (x, rows[-1]), BROWN, 2)


def test_a_seal_stamped_across_the_rules_of_an_invoice_table_is_found() -> None:
    image = page(1400, 900)
    invoice_table(image, [100, 300, 520, 700, 850], 60, 1340)
    stamp(image, (1000, 560), (150, 110))  # crosses two rules and the middle column's
    assert centres(image) == [pytest.approx((1000, 560), abs=5)]
    no_cut = replace(DEFAULT_FIND, cut_rules=False)
    assert (
        find_seals(image, params=no_cut, fit=replace(DEFAULT_FIT, robust=False)) == []
    )  # one blob with the table otherwise


def test_a_seal_on_the_table_of_a_page_photographed_askew_is_found() -> None:
    image = page(1400, 900)
    invoice_table(image, [100, 300, 520, 700, 850], 60, 1340)
    stamp(image, (1000, 560), (150, 110))
    turn = cv2.getRotationMatrix2D((700, 450), 7.0, 1.0)  # the page 7 degrees askew
    askew = cv2.warpAffine(image, turn, (1400, 900), borderValue=WHITE)
    centre = turn @ np.array([1000, 560, 1.0])
    assert centres(askew) == [pytest.approx(tuple(centre), abs=6)]
    level = replace(DEFAULT_FIND, rules=replace(DEFAULT_FIND.rules, turns=()))
    assert (
        find_seals(askew, params=level, fit=replace(DEFAULT_FIT, robust=False)) == []
    )  # one blob with the turned table otherwise


def test_rules_are_found_but_not_the_flat_side_of_a_big_ring() -> None:
    mask = np.zeros((800, 1200), bool)
    mask[400:403, 50:1150] = True  # a rule
    ring = np.zeros((800, 1200), np.uint8)
    cv2.ellipse(ring, (600, 400), (560, 380), 0, 0, 360, 1, 8)  # a close-up's ring
    rules = rule_pixels(mask | (ring > 0))
    assert rules[401, 100:1100].all()
    rules[390:410] = False  # where the rule meets the ring, the ring is cut with it
    assert not (rules & (ring > 0)).any()


def test_a_double_rule_under_an_invoice_title_is_a_rule_and_the_seal_on_it_is_found() -> None:
    image = page(1400, 900)
    for x in range(300, 1100, 20):  # strokes of title characters standing on the double rule
        cv2.line(image, (x, 60), (x, 119), BROWN, 3)
    for y in (120, 130):
        cv2.line(image, (250, y), (1150, y), BROWN, 2)
    cv2.line(image, (100, 600), (1300, 600), BROWN, 2)  # a table rule, far from the seal
    stamp(image, (700, 110), (110, 70), ring=4)  # a supervision seal over title and rule
    rules = rule_pixels(to_hsv(image)[..., 1] > 100)
    assert rules[120, 300:1100:50].all() and rules[130, 300:1100:50].all()
    assert centres(image) == [pytest.approx((700, 110), abs=5)]


def test_a_large_rectangle_whole_inside_the_page_is_a_form_not_a_seal() -> None:
    image = page(1400, 1000)
    cv2.rectangle(image, (80, 200), (1320, 800), BROWN, 3)
    for y in (300, 400, 500, 600, 700):
        cv2.putText(image, "Name  Tax number  Amount", (120, y), cv2.FONT_HERSHEY_SIMPLEX, 1.0, BROWN, 2)
    assert find_seals(image) == []


def test_a_seal_under_a_big_red_title_is_found() -> None:
    image = page(1400, 1000)
    stamp(image, (700, 200), (170, 110))
    for x in range(430, 980, 70):  # bold title characters across the seal's upper half
        cv2.rectangle(image, (x, 130), (x + 50, 190), BROWN, -1)
    assert centres(image) == [pytest.approx((700, 200), abs=6)]


def blurred_supervision_seal(image: np.ndarray, centre: tuple[int, int], axes: tuple[int, int]) -> None:
    """An invoice supervision seal as a blurred photo shows it: the ring and its tightly set
    rim characters run together into one band about a quarter of the short semi-axis deep,
    broken only by the narrow gaps between characters."""
    a, b = axes
    depth = round(0.18 * b)
    inner = (a - depth // 2, b - depth // 2)
    cv2.ellipse(image, centre, inner, 0, 180, 360, RED, depth)  # the rim over the top
    cv2.ellipse(image, centre, inner, 0, 20, 160, RED, depth)  # the line along the bottom
    cv2.ellipse(image, centre, axes, 0, 0, 360, RED, 3)
    for t in np.linspace(0, 2 * np.pi, 28, endpoint=False):  # gaps between characters
        unit = np.array([np.cos(t), np.sin(t)]) * np.array([a, b])
        ends = [tuple(int(v) for v in np.array(centre) + unit * k) for k in (0.7, 0.96)]
        cv2.line(image, ends[0], ends[1], WHITE, 2)
    cv2.putText(image, "SH", (centre[0] - 22, centre[1] + 8), cv2.FONT_HERSHEY_SIMPLEX, 0.9, RED, 2)


def test_a_blurred_seal_whose_rim_text_runs_into_its_ring_is_found_but_a_bold_red_o_is_not() -> None:
    image = page(1400, 900)
    blurred_supervision_seal(image, (500, 300), (90, 60))
    cv2.ellipse(image, (1000, 300), (70, 60), 0, 0, 360, RED, 30)  # a bold O: solid 0.4 deep
    image = cv2.GaussianBlur(image, (0, 0), 1.5)
    assert centres(image) == [pytest.approx((500, 300), abs=5)]


def test_a_close_up_of_a_seal_cut_on_every_side_is_found() -> None:
    image = page(600, 600)
    stamp(image, (300, 300), (320, 320), ring=10)  # about half the ring is in the image
    (seal,) = find_seals(image)
    assert seal.cut
    assert seal.center == pytest.approx((300, 300), abs=6)
    assert seal.axes[0] == pytest.approx(325, abs=8)


def test_a_seal_on_a_page_photographed_on_a_brown_table_is_found() -> None:
    image = page(900, 900, (150, 95, 55))  # the table is in the red mask: one blob round the page
    image[60:840, 80:820] = WHITE
    stamp(image, (450, 500), (120, 120))
    assert centres(image) == [pytest.approx((450, 500), abs=4)]


DESK = (85, 80, 75)
SHEET = np.array([[120, 40], [1060, 90], [1000, 860], [70, 820]], np.int32)  # seen askew


def photographed_sheet(seal_centre: tuple[int, int], axes: tuple[int, int]) -> np.ndarray:
    """A sheet on a grey desk with a seal stamped where it may run off the sheet: the seal's
    ink lies on the paper only."""
    image = page(1140, 900, DESK)
    sheet = np.zeros(image.shape[:2], np.uint8)
    cv2.fillConvexPoly(sheet, SHEET, 1)
    paper = page(1140, 900)
    stamp(paper, seal_centre, axes)
    image[sheet > 0] = paper[sheet > 0]
    return image


def test_the_sheet_of_a_photo_is_told_from_the_desk_but_not_on_scans_or_close_ups() -> None:
    photo = paper_mask(to_hsv(photographed_sheet((500, 400), (120, 120))))
    assert photo is not None
    assert photo[450, 550] and photo[400, 500] and not photo[10, 10] and not photo[880, 1100]
    assert paper_mask(to_hsv(page(1140, 900))) is None  # a scan: paper all over
    close_up = page(600, 600)
    stamp(close_up, (300, 300), (285, 285), ring=10)  # its inside is the largest bright region
    assert paper_mask(to_hsv(close_up)) is None


def test_a_seal_running_off_the_sheet_of_a_photo_onto_the_desk_is_found() -> None:
    # The sheet's bottom edge runs at y = 820-860: near half the ring is over the desk.
    image = photographed_sheet((700, 820), (130, 110))
    (seal,) = find_seals(image)
    assert seal.cut
    assert seal.center == pytest.approx((700, 820), abs=8)
    assert seal.axes[0] == pytest.approx(130, abs=8)
    no_sheet = replace(DEFAULT_FIND, paper=replace(DEFAULT_FIND.paper, enabled=False))
    assert find_seals(image, params=no_sheet) == []  # the desk counted as un-inked ring


def test_a_grey_photocopy_seal_is_found_and_black_print_is_not() -> None:
    image = page(1200, 900)
    stamp(image, (800, 450), (150, 150), colour=(120, 120, 120))
    cv2.rectangle(image, (60, 80), (500, 800), BLACK, 2)  # a table...
    for y in range(160, 800, 80):
        cv2.line(image, (60, y), (500, y), BLACK, 2)
        cv2.putText(image, "Item 12 pcs", (80, y - 25), cv2.FONT_HERSHEY_SIMPLEX, 1.0, BLACK, 2)
    cv2.circle(image, (1050, 150), 60, BLACK, 5)  # ...and a printed circle with nothing inside
    assert centres(image) == [pytest.approx((800, 450), abs=5)]
    assert find_seals(image, params=replace(DEFAULT_FIND, grey_fallback=False)) == []


def test_a_grey_seal_on_a_ruled_form_is_found_once_the_forms_lines_are_taken_out() -> None:
    image = page(1400, 1000)
    for y in range(150, 950, 90):  # lines of print on rules, the rules joined by column rules:
        cv2.line(image, (60, y), (1340, y), BLACK, 2)  # closed, the toner is one blob
        for x in range(120, 1300, 40):
            cv2.putText(image, "Ab", (x, y - 8), cv2.FONT_HERSHEY_SIMPLEX, 0.8, BLACK, 2)
    for x in (60, 700, 1340):
        cv2.line(image, (x, 150), (x, 870), BLACK, 2)
    stamp(image, (1000, 600), (120, 120), colour=(130, 130, 130))
    assert centres(image) == [pytest.approx((1000, 600), abs=5)]
    unlined = replace(DEFAULT_FIND, grey=replace(DEFAULT_FIND.grey, lineless=False))
    assert find_seals(image, params=unlined) == []


def test_long_lines_are_a_forms_rules_a_degree_askew_not_a_rings_flat_side() -> None:
    mask = np.zeros((1000, 1400), np.uint8)
    cv2.line(mask, (50, 300), (1350, 322), 1, 2)  # a rule one degree askew
    cv2.circle(mask, (700, 650), 150, 1, 6)  # a seal's ring
    lines = long_lines(mask > 0)
    assert lines[300:323].sum() >= 0.9 * mask[300:323].sum()
    assert not lines[480:820].any()


def test_a_pale_grey_photocopy_seal_is_found_at_a_lighter_toner_level() -> None:
    image = page(1200, 900)
    stamp(image, (700, 450), (150, 150), colour=(210, 210, 210))  # lighter than the usual toner
    cv2.putText(image, "Invoice 2024-118", (60, 120), cv2.FONT_HERSHEY_SIMPLEX, 1.5, BLACK, 3)
    assert centres(image) == [pytest.approx((700, 450), abs=5)]
    one_level = replace(DEFAULT_FIND, grey=replace(DEFAULT_FIND.grey, other_values=()))
    assert find_seals(image, params=one_level) == []


def test_a_grey_seal_crop_takes_its_own_toner_level_pale_or_dark() -> None:
    for grey in (215, 120):  # lighter than the finder's first toner level; darker
        crop = page(300, 300)
        stamp(crop, (150, 150), (120, 120), colour=(grey, grey, grey))
        value = to_hsv(crop)[..., 2]
        ring = value[150, 30 - RING // 2 : 30 + RING // 2]
        assert crop_toner(value)[150, 30 - RING // 2 : 30 + RING // 2].all()
        assert not crop_toner(value)[150, 150]  # the paper inside
        assert toner_mask(to_hsv(crop))[150, 30 - RING // 2 : 30 + RING // 2].all() == (ring.max() < 200)


def test_a_small_red_seal_on_a_black_and_white_page_is_still_found_in_red() -> None:
    image = page(3000, 2200)
    for y in range(100, 2100, 60):
        cv2.putText(image, "Contract 2024-118 item 12", (80, y), cv2.FONT_HERSHEY_SIMPLEX, 1.5, BLACK, 3)
    stamp(image, (2400, 1700), (110, 110), ring=4)  # too little red to tell the page from a copy
    assert is_grey(to_hsv(image))
    assert centres(image) == [pytest.approx((2400, 1700), abs=4)]


def test_a_box_of_print_on_a_grey_page_is_no_rectangular_seal_in_the_wide_pass() -> None:
    image = page(1200, 900)
    cv2.rectangle(image, (100, 100), (330, 420), BLACK, 3)  # a table's cell, its lines of print
    for y in range(150, 420, 40):
        cv2.putText(image, "Ab 12", (120, y), cv2.FONT_HERSHEY_SIMPLEX, 1.0, BLACK, 2)
    assert find_seals(image) == []


def test_a_specks_contour_gives_no_fit_that_is_not_a_number() -> None:
    speck = np.array([[1222, 198], [1222, 197], [1221, 197], [1220, 197], [1220, 198]], np.float32)
    fits = plain_fits(speck, np.ones((4, 5), bool), (1218, 195), (1300, 1400))
    assert fits and all(finite(fit) for fit, _ in fits)


def test_tinted_edges_of_black_print_are_fringes_and_saturated_ink_is_not() -> None:
    image = page(200, 100)
    image[40:60, 20:80] = BLACK
    image[38:40, 20:80] = (150, 120, 120)  # a dull reddish edge
    image[40:60, 120:180] = BLACK
    image[38:40, 120:180] = RED  # seal ink touching the print
    fringes = print_fringes(to_hsv(image))
    assert fringes[38:40, 25:75].all()
    assert not fringes[38:40, 125:175].any()


def test_ransac_ellipse_follows_the_inked_ring_not_the_print_on_the_contour() -> None:
    ink = np.zeros((400, 500), np.uint8)
    cv2.ellipse(ink, (250, 220), (150, 100), 20, 0, 360, 1, 5)
    t = np.linspace(0, 2 * np.pi, 200, endpoint=False)
    theta = np.deg2rad(20)
    ring = np.stack([150 * np.cos(t), 100 * np.sin(t)], axis=1) @ np.array(
        [[np.cos(theta), np.sin(theta)], [-np.sin(theta), np.cos(theta)]]
    )
    points = np.vstack([ring[:120] + (250, 220), np.stack([np.linspace(400, 100, 80), np.full(80, 60)], 1)])
    fit = ransac_ellipse(points.astype(np.float32), ink > 0, RansacParams())
    assert fit is not None
    assert fit.center == pytest.approx((250, 220), abs=4)
    assert fit.axes == pytest.approx((150, 100), abs=5)


def test_a_fit_dragged_off_a_ring_by_rules_across_it_is_moved_back_onto_the_ring() -> None:
    ink = np.zeros((500, 600), np.uint8)
    cv2.ellipse(ink, (300, 250), (160, 150), 10, 0, 360, 1, 5)
    for y in (170, 330):  # table rules running through the ring and out on both sides
        cv2.line(ink, (0, y), (599, y), 1, 3)
    cv2.putText(ink, "12 pcs", (220, 260), cv2.FONT_HERSHEY_SIMPLEX, 1.2, 1, 3)  # print inside
    dragged = Outline(Shape.OVAL, (288.0, 258.0), (146.0, 132.0), 0.0)  # what the blob's contour gave
    fit = snapped(dragged, ink > 0, RansacParams())
    assert fit is not None
    assert fit.center == pytest.approx((300, 250), abs=3)
    assert fit.axes == pytest.approx((160, 150), abs=4)
    assert snapped(dragged, np.zeros_like(ink) > 0, RansacParams()) is None  # no ring, no fit
    for degenerate in ((0.0, 0.0), (float("nan"), 10.0), (1e9, 1e9)):
        assert snapped(Outline(Shape.OVAL, (300.0, 250.0), degenerate, 0.0), ink > 0, RansacParams()) is None


def test_rect_outline_points_for_several_insets_at_once_match_one_at_a_time() -> None:
    together = rect_outline_points((100, 80), (60, 25), 15.0, 40, np.array([0.0, 3.0, 6.0]))
    for index, inset in enumerate((0.0, 3.0, 6.0)):
        alone = rect_outline_points((100, 80), (60, 25), 15.0, 40, inset)
        assert together[index] == pytest.approx(alone)


def official_page(seed: int, n_seals: int) -> np.ndarray:
    """A generated official document (红头文件): a bold red title, and its issuer's seal."""
    return decode_rgb(generate_page(np.random.default_rng(seed), n_seals, style="official").image_bytes)


@pytest.mark.skipif(not available_fonts(CJK_FONTS), reason="fonts-noto-cjk not installed")
@pytest.mark.parametrize("seed", [0, 4])
def test_a_letter_of_a_red_title_is_no_seal(seed: int) -> None:
    rgb = official_page(seed, n_seals=0)
    # Closed bold characters (区, 国) pass every check of a seal's outline: only their
    # neighbours in the line tell them apart.
    assert find_seals(rgb, params=replace(DEFAULT_FIND, text_lines=False))
    assert find_seals(rgb) == []


@pytest.mark.skipif(not available_fonts(CJK_FONTS), reason="fonts-noto-cjk not installed")
def test_the_issuers_seal_under_a_red_title_is_found() -> None:
    generated = generate_page(np.random.default_rng(0), 1, style="official")
    (truth,) = generated.seals
    (found,) = find_seals(decode_rgb(generated.image_bytes))
    assert abs(found.center[0] - (truth.box[0] + truth.box[2]) / 2) < 10
    assert abs(found.center[1] - (truth.box[1] + truth.box[3]) / 2) < 10


def test_two_seals_stamped_side_by_side_are_both_found() -> None:
    image = page(1400, 1000)
    stamp(image, (400, 500), (150, 150))
    stamp(image, (810, 500), (150, 150))  # 110 px apart: each is the other's neighbour at its height
    assert len(centres(image)) == 2


def test_an_orange_ring_is_print_not_a_seal() -> None:
    image = page(1400, 600)
    stamp(image, (350, 300), (150, 150))
    stamp(image, (1000, 300), (150, 150), colour=(235, 125, 20))  # a gold badge's ring: hue 15
    assert centres(image) == [pytest.approx((350, 300), abs=4)]
    # Its edges pass the red mask's vermilion band: only the ink's median hue tells.
    any_hue = replace(DEFAULT_FIND, max_median_hue=90.0)
    assert centres(image, any_hue) == [pytest.approx((350, 300), abs=4), pytest.approx((1000, 300), abs=4)]


def test_a_red_banner_with_white_letters_is_no_rectangular_seal() -> None:
    image = page(1000, 700)
    cv2.rectangle(image, (300, 250), (700, 430), RED, -1)
    for k in range(4):  # its letters, white on red: the box is four fifths ink
        x = 330 + 95 * k
        cv2.rectangle(image, (x, 285), (x + 60, 395), WHITE, 6)
        cv2.line(image, (x, 340), (x + 60, 340), WHITE, 6)
    assert find_seals(image) == []
    assert len(find_seals(image, fit=replace(DEFAULT_FIT, max_rect_fill=0.9))) == 1


def densely_written(image: np.ndarray, centre: tuple[int, int], radius: int) -> None:
    """A round seal written as densely as real ones: a rim character every 7.5 degrees, an
    inner line across it, a star."""
    cv2.circle(image, centre, radius, RED, RING)
    for t in np.linspace(0, 2 * np.pi, 48, endpoint=False):
        unit = np.array([np.cos(t), np.sin(t)]) * radius
        inner, outer = np.array(centre) + 0.66 * unit, np.array(centre) + 0.84 * unit
        cv2.line(image, tuple(int(v) for v in inner), tuple(int(v) for v in outer), RED, 5)
    x, y = centre
    cv2.line(image, (x - int(0.6 * radius), y), (x + int(0.6 * radius), y), RED, 12)
    cv2.circle(image, centre, radius // 5, RED, -1)


def test_a_row_of_densely_written_seals_touching_is_no_line_of_red_text() -> None:
    image = page(1700, 800)
    for k in range(6):  # an award certificate's row of six seals, rims 15 px apart
        densely_written(image, (160 + 275 * k, 400), 130)
    assert len(centres(image)) == 6
    # Each one's neighbours are inked as densely as a title's letters: the row is what tells.
    no_rows = replace(DEFAULT_FIND, text_line=replace(DEFAULT_FIND.text_line, row_size_ratio=2.0))
    assert find_seals(image, params=no_rows) == []


def test_a_shape_with_inked_columns_beside_it_is_in_a_text_line_only_if_the_ink_stays_in_its_rows() -> None:
    mask = np.zeros((400, 1000), bool)
    region = SealRegion(Shape.RECT, (150.0, 200.0), (50.0, 50.0), 0.0, (100, 150, 200, 250), False, 1.0)
    mask[150:250, 100:200] = True  # the shape
    mask[160:240, 210:400] = True  # a neighbour at its height, over the window's columns
    assert in_text_line(region, mask)
    mask[105:125, 210:400] = True  # ...that runs on above: a table's or a frame's ink, no letter
    assert not in_text_line(region, mask)
    mask[105:125] = False
    mask[160:240, 210:400] = False
    mask[198:202, 200:1000] = True  # a rule through it: few of the window's rows
    assert not in_text_line(region, mask)


def test_the_pipeline_white_balances_a_page_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """A dark page's paper at 100 is brought to 200 (the gain is capped at 2) and stays there:
    balanced twice, it went on to 255, a gain past the cap, and the finder saw another page
    than the crops were cut from."""
    from imgproc.seal.find import balance
    from imgproc.seal.pipeline import find_page_seals

    levels: list[float] = []

    def counted(rgb: np.ndarray, params: BalanceParams) -> np.ndarray:
        levels.append(float(rgb.mean()))  # every white balance reads the paper's colour first
        return paper_colour(rgb, params)

    monkeypatch.setattr(balance, "paper_colour", counted)
    dark = np.full((300, 400, 3), 100, np.uint8)
    find_page_seals(dark)
    assert levels == [100.0]
    assert float(white_balanced(dark).mean()) == 200.0


def test_a_large_page_is_searched_on_every_second_or_third_pixel_and_a_small_one_as_it_is() -> None:
    large = np.arange(3000 * 5200 * 3, dtype=np.uint32).astype(np.uint8).reshape(3000, 5200, 3)
    searched, scale = searched_page(large, 2560)
    assert scale == pytest.approx(1 / 3) and np.array_equal(searched, large[::3, ::3])
    assert searched_page(large, 2600)[1] == 0.5  # the fewest rows and columns that fit
    small = page(2000, 1000)
    assert searched_page(small, 2560) == (small, 1.0)
    assert searched_page(large, 0)[0] is large  # no bound


def test_a_seal_on_a_large_page_is_found_in_the_page_s_own_pixels() -> None:
    image = page(3000, 5400)
    stamp(image, (2100, 4200), (420, 420), ring=14)
    found = find_seals(image)
    whole = find_seals(image, params=replace(DEFAULT_FIND, page_max_side=0))
    assert len(found) == len(whole) == 1
    assert found[0].center == pytest.approx(whole[0].center, abs=4)
    assert found[0].axes == pytest.approx(whole[0].axes, abs=4)


def test_ink_taken_out_leaves_black_print_under_it_whole_and_its_pale_edge_white() -> None:
    """Print under a seal: where a black stroke crosses red ink, and where its edge meets the
    ink (dark red), the stroke stays dark; the ink and its blurred pink edge turn white."""
    page = np.full((40, 40, 3), 245, np.uint8)
    page[10:30, 10:30] = (200, 30, 40)  # the seal's ink
    page[9, 10:30] = page[30, 10:30] = (250, 200, 200)  # its pale pink edge
    page[18:22, 5:35] = (30, 30, 30)  # a black stroke across it
    page[17, 10:30] = page[22, 10:30] = (110, 25, 30)  # the stroke's edge over the ink
    clean = without_ink(page, 100, halo=1)
    assert (clean[12, 12] == 255).all() and (clean[9, 15] == 255).all() and (clean[30, 15] == 255).all()
    assert (clean[18:22, 5:35] <= 40).all()  # the stroke, on the ink and off it
    assert (clean[17, 15] < 150).all() and (clean[22, 15] < 150).all()
    assert (clean[0, 0] == 245).all()  # paper away from the ink is left as it was
    assert (without_ink(page, 100)[9, 15] == (250, 200, 200)).all()  # no edge taken without a halo
