"""Reading the seal text detector's map (imgproc.seal.locate, imgproc.seal.detect) on drawn
maps with known answers: pure, no model."""

from __future__ import annotations

import cv2
import numpy as np
import pytest
from imgproc.seal.geometry import ellipse_offset_points, parameter_at, turn_matrix
from imgproc.seal.locate import locate
from imgproc.seal.locate.detect import level_turn, seal_det_input, text_inside, text_map, upright_turn
from imgproc.seal.locate.lines import DEFAULT_LINES, joined_lines
from imgproc.seal.records import SealRegion, Shape
from imgproc.seal.runs import Run, circular_runs

SIZE = 400
ROUND = SealRegion(Shape.ROUND, (200.0, 200.0), (160.0, 160.0), 0.0, (40, 40, 360, 360), False, 1.0)


def sector(
    canvas: np.ndarray, region: SealRegion, shares: tuple[float, float], insets: tuple[float, float]
) -> None:
    """Fill the band between two insets over perimeter shares [start, stop) clockwise."""
    start, stop = shares
    along = np.linspace(start, stop, 120)
    edges = []
    for inset in insets:
        t = parameter_at(region, inset, along)
        edges.append(
            ellipse_offset_points(region.center, region.axes, region.angle_deg, t, np.full(t.shape, inset))
        )
    cv2.fillPoly(canvas, [np.rint(np.vstack([edges[0], edges[1][::-1]])).astype(np.int32)], 1.0)


def seal_map() -> tuple[np.ndarray, np.ndarray]:
    """A round seal's map: the rim over the top (shares 0.45 to 1.05: perimeter shares run
    clockwise from the right, 0.75 is the top), a thin code by the ring at the bottom (0.25),
    one inner line, and a line of black print (text, but no seal ink)."""
    prob = np.zeros((SIZE, SIZE), np.float32)
    sector(prob, ROUND, (0.45, 1.05), (12.0, 40.0))  # shares wrap past 1: the rim crosses the seam
    sector(prob, ROUND, (0.2, 0.3), (12.0, 24.0))  # the code: outer rows only
    cv2.rectangle(prob, (150, 230), (250, 260), 1.0, -1)  # an inner line
    cv2.rectangle(prob, (60, 300), (170, 320), 1.0, -1)  # black print across the seal
    ink = prob > 0
    ink[295:325, 55:175] = False
    return prob, ink


def test_circular_runs_wrap_round_the_seam() -> None:
    flags = np.array([1, 1, 0, 0, 1, 1, 1, 0, 1], bool)
    assert circular_runs(flags) == [Run(4, 7), Run(8, 11)]
    assert circular_runs(np.ones(5, bool)) == [Run(0, 5)]
    assert circular_runs(np.zeros(5, bool)) == []


def test_the_rim_is_the_band_over_the_top_padded_at_its_ends() -> None:
    prob, ink = seal_map()
    text = locate(prob, ink, ROUND)
    assert text is not None
    start, stop = text.rim.start, text.rim.start + text.rim.span
    assert 0.4 < start < 0.45 and 1.05 < stop < 1.1  # padded by part of a character
    assert 4.0 < text.rim.band.outer < 12.0 and 40.0 < text.rim.band.inner < 48.0
    assert not text.rim.turned
    assert text.up @ np.array([0.0, -1.0]) > 0.95  # the rim's middle is the seal's top


def test_the_bottom_code_is_an_arc_of_its_own_read_turned() -> None:
    prob, ink = seal_map()
    text = locate(prob, ink, ROUND)
    assert text is not None
    (code,) = text.arcs
    assert code.turned and 0.15 < code.start < 0.2 and 0.1 < code.span < 0.2


def test_inner_lines_are_boxed_upright_and_black_print_is_left_out() -> None:
    prob, ink = seal_map()
    text = locate(prob, ink, ROUND)
    assert text is not None
    (quad,) = text.inner
    (x0, y0), (x1, y1) = quad.min(axis=0), quad.max(axis=0)
    assert x0 < 150 < 250 < x1 and y0 < 230 < 260 < y1
    assert quad[0][0] < quad[1][0] and quad[0][1] < quad[3][1]  # tl, tr, br, bl


def test_a_map_without_text_on_seal_ink_has_no_rim() -> None:
    prob, ink = seal_map()
    assert locate(prob, np.zeros_like(ink), ROUND) is None
    assert locate(np.zeros_like(prob), ink, ROUND) is None


def test_an_oval_turns_level_the_short_way_and_the_map_turns_back() -> None:
    oval = SealRegion(Shape.OVAL, (100.0, 60.0), (90.0, 50.0), 100.0, (10, 10, 190, 110), False, 1.0)
    assert level_turn(oval) == pytest.approx(80.0)
    assert level_turn(ROUND) == 0.0
    crop = np.full((120, 200, 3), 255, np.uint8)
    tensor = seal_det_input(crop, level_turn(oval))
    assert tensor.shape[:2] == (1, 3) and min(tensor.shape[2:]) >= 736 and tensor.shape[2] % 32 == 0
    back = text_map(np.ones(tensor.shape[2:], np.float32)[None, None], crop.shape, level_turn(oval))
    assert back.shape == (120, 200) and back[60, 100] == pytest.approx(1.0)


def test_text_inside_is_the_maps_mean_within_the_ring_not_on_it() -> None:
    prob = np.zeros((SIZE, SIZE), np.float32)
    cv2.circle(prob, (200, 200), 150, 1.0, thickness=8)  # text on the ring's own line: none inside
    assert text_inside(prob, ROUND) == 0.0
    prob[:] = 0.0
    prob[:, :200] = 1.0  # the left half of the seal reads as text
    assert text_inside(prob, ROUND) == pytest.approx(0.5, abs=0.02)
    assert text_inside(np.ones_like(prob), ROUND) == 1.0


@pytest.mark.parametrize("degrees", [0.0, 45.0, 90.0, 135.0, 180.0, -100.0])
def test_a_turned_seals_crop_turns_so_its_own_up_points_up_the_page(degrees: float) -> None:
    theta = np.radians(degrees - 90.0)  # 0: up the page (image y grows down); then clockwise
    up = np.array([np.cos(theta), np.sin(theta)])
    turn = upright_turn(up)
    assert -180.0 < turn <= 180.0
    matrix, canvas = turn_matrix((200, 200), turn)  # what `seal_det_input` turns the crop by
    centre, above = matrix @ np.array([100.0, 100.0, 1.0]), matrix @ np.array([*(100.0 + 50.0 * up), 1.0])
    assert above - centre == pytest.approx((0.0, -50.0), abs=1e-6)


def _box(x0: float, y0: float, x1: float, y1: float) -> np.ndarray:
    return np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], np.float32)  # tl, tr, br, bl


def test_pieces_of_one_line_are_joined_and_other_lines_are_not() -> None:
    up = np.array([0.0, -1.0])
    # A tax ID broken in two by print across it: one box from the first piece's start to the last's end.
    (line,) = joined_lines([_box(100, 100, 180, 120), _box(195, 101, 300, 121)], up, DEFAULT_LINES)
    (x0, y0), (x1, y1) = line.min(axis=0), line.max(axis=0)
    assert (x0, x1) == pytest.approx((100, 300), abs=1) and (y0, y1) == pytest.approx((100, 121), abs=1)
    assert line[0][0] < line[1][0] and line[0][1] < line[3][1]  # tl, tr, br, bl
    # Lines one above the other, and two texts far apart on one row, stay apart.
    assert len(joined_lines([_box(100, 100, 300, 120), _box(100, 130, 300, 150)], up, DEFAULT_LINES)) == 2
    assert len(joined_lines([_box(100, 100, 160, 120), _box(240, 100, 300, 120)], up, DEFAULT_LINES)) == 2
    # A small mark level with a line is not a piece of it (unlike height).
    assert len(joined_lines([_box(100, 100, 300, 120), _box(305, 106, 315, 114)], up, DEFAULT_LINES)) == 2


def _leaning_box(centre: tuple[float, float], length: float, height: float, degrees: float) -> np.ndarray:
    """A box (tl, tr, br, bl) read along `degrees` below the page's x axis (image y down)."""
    a = np.deg2rad(degrees)
    along, across = np.array([np.cos(a), np.sin(a)]), np.array([-np.sin(a), np.cos(a)])
    corners = [(-1, -1), (1, -1), (1, 1), (-1, 1)]
    points = [np.asarray(centre) + u * length / 2 * along + v * height / 2 * across for u, v in corners]
    return np.array(points, np.float32)


def test_a_short_piece_that_leans_is_still_joined_to_its_line() -> None:
    """The box of a short stub of a tax ID (9150878 before a table rule) leans as its blob
    does: level is judged along the seal's level or a long piece's direction, not the stub's."""
    up = np.array([0.0, -1.0])
    stub = _leaning_box((130.0, 110.0), 50.0, 20.0, 11.0)
    assert len(joined_lines([stub, _box(200, 100, 300, 120)], up, DEFAULT_LINES)) == 1
    # On a seal turned 15 degrees, two stubs level in its frame whose boxes lie square to the page.
    turned = np.array([np.sin(np.deg2rad(15.0)), -np.cos(np.deg2rad(15.0))])
    rise = 90.0 * np.tan(np.deg2rad(15.0))  # of the second's centre, 90 px to the right
    stubs = [_box(100, 100, 150, 120), _box(190, 100 + rise, 240, 120 + rise)]
    assert len(joined_lines(stubs, turned, DEFAULT_LINES)) == 1
    assert len(joined_lines(stubs, up, DEFAULT_LINES)) == 2  # level on the page, they are two rows
    # Stubs a line's height apart across the seal's level are two lines, whatever their lean.
    assert len(joined_lines([stub, _leaning_box((200.0, 132.0), 50.0, 20.0, 0.0)], up, DEFAULT_LINES)) == 2


def test_a_code_beside_the_rims_end_keeps_its_first_digits() -> None:
    """The rim grows over text next to its ends; a bottom-arc code that starts right there
    (1102290036915 beside 国) stays a code over those columns."""
    prob = np.zeros((SIZE, SIZE), np.float32)
    sector(prob, ROUND, (0.45, 1.05), (12.0, 40.0))
    sector(prob, ROUND, (1.04, 1.2), (12.0, 24.0))  # the code, merged with the rim's end
    text = locate(prob, prob > 0, ROUND)
    assert text is not None
    (code,) = text.arcs
    assert code.start % 1.0 < 0.05 and code.start % 1.0 + code.span > 0.2


def test_a_line_merged_with_the_rim_leaves_its_band_and_is_an_inner_line() -> None:
    """The detector merged the rim with what lies inside it (a tax ID level with the rim's
    ends, a purpose line beneath): where a text run goes on past the rim band's window in many
    columns, the rim's text ends where the other columns' text does, and what lies past that
    is an inner line of its own (the band read keeps its depth)."""
    prob = np.zeros((SIZE, SIZE), np.float32)
    sector(prob, ROUND, (0.45, 1.05), (12.0, 40.0))
    sector(prob, ROUND, (0.65, 0.85), (12.0, 75.0))  # merged, over a third of the rim's columns
    cv2.rectangle(prob, (110, 105), (290, 140), 1.0, -1)  # a line merged with it and the rim's sides
    text = locate(prob, prob > 0, ROUND)
    assert text is not None
    assert 40.0 < text.rim.text_band.inner < 48.0 < text.rim.band.inner
    (line,) = text.inner
    (x0, y0), (x1, y1) = line.min(axis=0), line.max(axis=0)
    assert x0 < 130 and x1 > 270 and y0 < 105 < 140 < y1


def test_a_stub_of_the_rims_text_past_its_band_is_no_inner_line() -> None:
    """A few rim characters reaching past the band are pieces of the rim's text outside its
    arc, but too short to be a line (under two band heights)."""
    prob = np.zeros((SIZE, SIZE), np.float32)
    sector(prob, ROUND, (0.45, 1.05), (12.0, 40.0))
    sector(prob, ROUND, (0.6, 0.65), (12.0, 56.0))
    text = locate(prob, prob > 0, ROUND)
    assert text is not None and text.inner == ()
