"""The thresholds of finding seals on a page (`find`), with the page-level steps' own classes
nested. Pixel sizes are at the working scale (the ink mask shrunk so its long side is at most
`work_max_side`).
"""

from __future__ import annotations

from dataclasses import dataclass

from .balance import DEFAULT_BALANCE, BalanceParams
from .fringes import DEFAULT_FRINGE, FringeParams
from .grey import DEFAULT_GREY, GreyParams
from .paper import DEFAULT_PAPER, PaperParams
from .rules import DEFAULT_RULES, RuleParams
from .textline import DEFAULT_TEXT_LINE, TextLineParams


@dataclass(frozen=True)
class FindParams:
    """How the page's ink is searched for blobs that may be seals."""

    # The mask is searched at most this large (long side): enough for a seal's outline, and
    # the cost of closing and contouring grows with the area.
    work_max_side: int = 1280
    # A page larger than this (long side) is searched on every second (third...) row and column
    # of it, the fewest that bring it within this (`search.searched_page`), and its seals are
    # cut from the page itself. The mask is shrunk to `work_max_side` for the search anyway, but
    # taking it at the page's full size cost a 22-megapixel render a third of its request (its
    # colour converted, five passes of `inRange`, the fringes' dilation). Pixels taken, not
    # averaged: averaged at 2560 (tried), a photo of a desk gave a page-sized false oval and
    # regions changed on 40 of the tuning part's 51 pages over it. Corpus tuning part: rims
    # 89 -> 90 of 145 (2 fixed, 1 broken), recall 0.822 and false seals 34 as before; held-out:
    # rims 83/120, recall 0.790, false seals on its 143 pages without one 9, all as before (CER
    # 0.174 -> 0.178); seals-dev's rims as before. 0: every page at its own size.
    page_max_side: int = 2560
    close_fraction: float = 0.008  # closing width, of the working long side: merges ring and text
    # A second pass closes this many times wider, for seals whose ring is broken by pale or
    # patchy ink into pieces that the first pass sees apart; it adds only seals not found yet.
    wide_close: float = 3.0
    wide_coverage: float = 0.7  # ...and accepts a patchier ring there (this share of the outline inked)
    # The wide pass takes only shapes at least this many closing widths across: closing fills a
    # smaller one solid (a big red printed character becomes a disc), so its outline says nothing.
    wide_min_widths: float = 4.0
    # A third pass closes this much narrower, for seals stamped against other red ink (a red
    # letterhead title) that the first pass merges into one blob no shape fits.
    tight_close: float = 0.5
    min_close_px: int = 3  # a closing narrower than this bridges nothing on a small image
    # A last pass takes the blobs of the ink without its long straight lines, closed as the
    # first: on for grey pages (see `GreyParams.lineless`).
    lineless: bool = False
    # A wider closing is done on the mask shrunk to keep its kernel this small (cost: its area).
    max_kernel_px: int = 12
    # A blob no shape fits is cut along the printed rules in it (see `rules`), so a seal
    # stamped over a table is not one blob with it.
    cut_rules: bool = True
    rules: RuleParams = DEFAULT_RULES
    balance: BalanceParams = DEFAULT_BALANCE  # the page's paper made white first (see `balance`)
    fringe: FringeParams = DEFAULT_FRINGE  # the tinted edges of dark print left out (see `fringes`)
    # On a photo showing the desk around the sheet, seals are sought on the sheet (see `paper`).
    paper: PaperParams = DEFAULT_PAPER
    # On a page without colour (a photocopy) seals are sought in its toner (see `grey`).
    grey_fallback: bool = True
    grey: GreyParams = DEFAULT_GREY
    # A red shape with a neighbouring character at its height is a letter of a red title, not a
    # seal (see `textline`); red ink only (on a grey page, print beside a seal is no title).
    text_lines: bool = True
    text_line: TextLineParams = DEFAULT_TEXT_LINE
    # A red shape whose ink's median hue is above this is orange or gold print, not seal ink:
    # a logo, a badge, a cartoon, an orange title's letter pass the red mask's vermilion band
    # at its edges (the corpus tuning part: such false seals' ink at median hue 14-18, every
    # found real seal's at most 9, and no found region's between 11 and 13). Not lower: the
    # generator prints invoice supervision seals in the form's colour, hues 1-17; at 11 the
    # generated mix lost one (seed 3000), at 13 none; invoice pages alone (seeds 3000 and
    # 7000, 30 each) lose 5 of 120 seals at 13.
    max_median_hue: float = 13.0


DEFAULT_FIND = FindParams()
