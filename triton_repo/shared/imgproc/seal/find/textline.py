"""Red print that is not a seal: a character of a line of red text (a red-header title).

Official documents (红头文件) and letterheads carry titles of large, bold red characters, and
closed ones (回, 国, 区, 中) pass for rectangles or ovals with writing inside. A seal stands
alone; a character has neighbours: beside it, at its own height, more red ink that fills most
of its rows and stays between its top and its bottom, as a line of text does. A rule (a red
table line) fills few of its rows; a table's frame, a signature or other print runs on above
or below it; neither passes for a neighbour. Seals stamped side by side (an award given by
several bodies: a row of two to six seals) have neighbours at their height too, inked as
densely as a title's; but a title's letters are no rings of one size in a row (`in_a_row`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from imgproc.arrays import Mask

from ..records import Box, Outline, SealRegion


@dataclass(frozen=True)
class TextLineParams:
    """When a found shape is a character in a line of red text; shares of the shape's height."""

    # Each side window is this many heights wide, its rows this far inside the shape's top and
    # bottom; at least `min_columns` of its columns are inked over `column_ink` of those rows
    # (two more characters, set close: 0.77-0.94 beside the letters of generated red titles;
    # a second seal stamped beside the first 0.44-0.47, an invoice form's rules and labels
    # 0.06-0.43), and `min_rows` of its rows over `row_ink` of its width (a rule fills few).
    reach: float = 2.2
    inset: float = 0.1
    min_columns: float = 0.65
    column_ink: float = 0.1
    min_rows: float = 0.6
    row_ink: float = 0.05
    # The bands from `clearance` to `band` above the shape's top and below its bottom (a
    # neighbour may stand a little taller), over the side window's columns, each hold at most
    # `max_outside` ink: the line's ink stays in the line. A band cut off by the image's edge
    # tells nothing, and the shape is kept.
    clearance: float = 0.2
    band: float = 0.5
    max_outside: float = 0.01
    # Two round or oval seals are in a row when the smaller's short semi-axis is at least this
    # share of the larger's and the gap between their outlines is at most `row_gap` of their
    # mean short semi-axis: a certificate's row of six seals, rims touching, passed the text line's
    # checks (its neighbours' columns 0.78-0.90 inked, real rim text being dense), and two of
    # six were dropped for letters.
    row_size_ratio: float = 0.8
    row_gap: float = 0.5


DEFAULT_TEXT_LINE = TextLineParams()


def _neighbour(mask: Mask, box: Box, columns: tuple[int, int], params: TextLineParams) -> bool:
    """Whether the columns `columns` of `mask` beside the shape boxed by `box` hold a
    neighbouring character."""
    (left, right), (_, y0, _, y1) = columns, box
    height = y1 - y0
    inset, clear, band = (round(share * height) for share in (params.inset, params.clearance, params.band))
    window = mask[y0 + inset : y1 - inset, left:right]
    if window.size == 0:
        return False
    columns_inked = (window.sum(axis=0) >= params.column_ink * window.shape[0]).mean()
    rows_inked = (window.sum(axis=1) >= params.row_ink * window.shape[1]).mean()
    if columns_inked < params.min_columns or rows_inked < params.min_rows:
        return False
    above = mask[max(0, y0 - band) : max(0, y0 - clear), left:right]
    below = mask[y1 + clear : y1 + band, left:right]
    return all(part.size > 0 and part.mean() <= params.max_outside for part in (above, below))


def in_text_line(region: SealRegion, mask: Mask, params: TextLineParams = DEFAULT_TEXT_LINE) -> bool:
    """Whether the shape `region` found in the boolean ink `mask` (same scale) is a character
    of a line of text: a neighbouring character on its left or its right."""
    x0, y0, x1, y1 = region.box
    reach = round(params.reach * (y1 - y0))
    sides = (
        (max(0, x0 - reach), max(0, x0 - 1)),
        (min(mask.shape[1], x1 + 1), min(mask.shape[1], x1 + reach)),
    )
    return any(_neighbour(mask, region.box, side, params) for side in sides)


def in_a_row(region: Outline, other: Outline, params: TextLineParams = DEFAULT_TEXT_LINE) -> bool:
    """Whether two found shapes are seals stamped side by side (or over each other): both round
    or oval, of about one size, their outlines close (see `TextLineParams.row_size_ratio`)."""
    if not (region.is_elliptic and other.is_elliptic):
        return False
    small, large = sorted((region.axes[1], other.axes[1]))
    mean = (small + large) / 2.0
    apart = math.dist(region.center, other.center)
    return small >= params.row_size_ratio * large and apart <= (2.0 + params.row_gap) * mean
