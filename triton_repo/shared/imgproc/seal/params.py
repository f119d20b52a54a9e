"""Every threshold of seal finding (`find`, `blobs`, `checks` and the modules they use), in
one frozen dataclass with the other stages' parameter classes nested.

Pixel sizes are at the working scale (the red mask shrunk so its long side is at most
`work_max_side`); shares are of the fitted outline or of its interior.
"""

from __future__ import annotations

from dataclasses import dataclass

from .balance import DEFAULT_BALANCE, BalanceParams
from .fit import DEFAULT_FIT, FitParams
from .grey import DEFAULT_GREY, GreyParams
from .page_ink import DEFAULT_FRINGE, FringeParams
from .paper import DEFAULT_PAPER, PaperParams
from .quad import DEFAULT_QUAD, QuadParams
from .rules import DEFAULT_RULES, RuleParams
from .textline import DEFAULT_TEXT_LINE, TextLineParams


@dataclass(frozen=True)
class FindParams:
    """Thresholds for `find_seals`; pixel sizes are at the working scale."""

    work_max_side: int = 1280
    close_fraction: float = 0.008  # closing width, of the working long side: merges ring and text
    # A second pass closes this many times wider, for seals whose ring is broken by pale or
    # patchy ink into pieces that the first pass sees apart; it adds only seals not found yet.
    wide_close: float = 3.0
    wide_coverage: float = 0.7  # ...and accepts a patchier ring (of the outline inked) there,
    # in shapes at least this many closing widths across: closing fills a smaller one solid
    # (a big red printed character becomes a disc), so its outline says nothing.
    wide_min_widths: float = 4.0
    # A third pass closes this much narrower, for seals stamped against other red ink (a red
    # letterhead title) that the first pass merges into one blob no shape fits.
    tight_close: float = 0.5
    min_close_px: int = 3
    # A wider closing is done on the mask shrunk to keep its kernel this small (cost: its area).
    max_kernel_px: int = 12
    min_size_px: int = 36  # a seal's short diameter, at least
    # ...and its long one at least this share of the page's long side: seals are 30-45 mm
    # across on a 297 mm page (0.1-0.15), big red title characters on invoices 0.03-0.045.
    min_page_share: float = 0.06
    # A rectangle longer than this share of the page's long side and whole inside it is a
    # form's frame (a table); rectangular seals on a page are under 0.3 of it.
    max_whole_rect_share: float = 0.45
    # "Whole inside": this share of its outline in the image at least. A form photographed to
    # the image's edge grazes it; a close-up of a rectangular seal runs well off it.
    whole_visible: float = 0.95
    # ...and so is one that large holding less ink than this (tables: under 0.04; seals hold
    # big characters).
    min_large_rect_fill: float = 0.05
    max_ellipse_aspect: float = 2.2
    max_rect_aspect: float = 4.0
    round_max_aspect: float = 1.15  # an ellipse this close to a circle is a round seal
    min_shape_iou: float = 0.82  # of a plain fit with the blob's convex hull
    blob_margin_px: int = 4  # around a blob's bounding box, where its fits are rendered
    # A blob no plain shape fits (a seal merged with print it touches) is tried with a robust
    # ellipse through its contour, which must then have an even more completely inked ring.
    robust: bool = True
    robust_coverage: float = 0.93
    # An ellipse fit that fails the checks is moved onto the ring near it and tried again
    # (`blobs._snapped`): off by default, on for grey pages (`GreyParams.snap`).
    snap: bool = False
    interior_scale: float = 0.8  # the interior is the fitted shape scaled by this
    # Share of the interior that is ink: faint seals have little, an empty red ring none.
    min_ink_fill: float = 0.002
    max_ink_fill: float = 0.9
    min_ellipse_coverage: float = 0.9
    min_rect_coverage: float = 0.9
    border_band_fraction: float = 0.12  # of the short semi-axis, searched inwards for the ring
    # Insets (of the short semi-axis) where a seal's ring has ended... The deepest is where a
    # small, blurred seal's ring and tightly set rim text, run together, have ended too (an
    # invoice supervision seal in a phone photo: solid to about 0.25).
    stroke_checks: tuple[float, ...] = (0.15, 0.25, 0.3)
    solid_stroke: float = 0.65  # ...so at least one of them is inked less than this
    border_samples: int = 360
    # Of the outline that must lie inside the image: a close-up of a seal cut on every side
    # shows 0.4-0.5 of its ring (the ring must then be inked all along what is visible).
    min_visible_fraction: float = 0.4
    edge_margin_px: int = 3  # contour points this close to the image edge are not fitted
    hull_tolerance_px: float = 2.0  # contour points this close to the convex hull are fitted
    # A blob no shape fits is cut along the printed rules in it (see `rules`), so a seal
    # stamped over a table is not one blob with it.
    cut_rules: bool = True
    fit: FitParams = DEFAULT_FIT
    quad: QuadParams = DEFAULT_QUAD  # rectangular seals photographed at a slant
    rules: RuleParams = DEFAULT_RULES
    balance: BalanceParams = DEFAULT_BALANCE
    fringe: FringeParams = DEFAULT_FRINGE
    # On a photo showing the desk around the sheet, seals are sought on the sheet (see `paper`).
    paper: PaperParams = DEFAULT_PAPER
    # On a page without colour (a photocopy) seals are sought in its toner (see `grey`).
    grey_fallback: bool = True
    grey: GreyParams = DEFAULT_GREY
    # A red shape with a neighbouring character at its height is a letter of a red title, not a
    # seal (see `textline`); red ink only (on a grey page, print beside a seal is no title).
    text_lines: bool = True
    text_line: TextLineParams = DEFAULT_TEXT_LINE


DEFAULT_FIND = FindParams()
