"""The thresholds of locating a seal's text (`locate`): the detector's input and map, the
rim, the inner lines, and the classical fallback. Lengths are shares of the short semi-axis
`b` unless said.
"""

from __future__ import annotations

from dataclasses import dataclass

from .band import DEFAULT_BAND, BandParams
from .detect import DEFAULT_DET, DetParams
from .layout import DEFAULT_LAYOUT, LayoutParams
from .lines import DEFAULT_LINES, LineParams
from .polar import DEFAULT_POLAR, PolarParams


@dataclass(frozen=True)
class ClassicalParams:
    """The classical path: the rim band from the ink's radial profile, its start and end from
    the gaps in the band unwrapped all round."""

    band: BandParams = DEFAULT_BAND
    layout: LayoutParams = DEFAULT_LAYOUT
    # The band is unwrapped this many rows high for its layout: the recognisers' input height,
    # in which units the layout's lengths are given, and the rim candidates are cut from it.
    height: int = 48
    # The unwrapped band is stretched (`ink.stretch_contrast`): its darkest `dark_percentile` %
    # black and everything lighter than its `light_percentile` % (the paper) white.
    dark_percentile: float = 3.0
    light_percentile: float = 90.0
    code_ink_rows: float = 0.03  # a code's rows with less ink than this share are empty...
    code_margin: float = 0.12  # ...and the code band is its inked rows and this much of the band more


DEFAULT_CLASSICAL = ClassicalParams()


@dataclass(frozen=True)
class LocateParams:
    """How the detector's map is read into a rim, other arcs and inner lines."""

    det: DetParams = DEFAULT_DET
    polar: PolarParams = DEFAULT_POLAR
    lines: LineParams = DEFAULT_LINES
    # The fallback where the detector finds no rim, and for rectangular seals.
    classical: ClassicalParams = DEFAULT_CLASSICAL
    rim_depth: float = 0.55  # the rim band starts no deeper than this
    min_rim_rows: float = 0.08  # the rim band's fullest row has text in this share of columns
    band_share: float = 0.5  # rows with this share of the fullest row's text are the band
    ring_side: float = 0.35  # a piece whose median top lies this far into the band starts by the ring...
    fills_band: float = 0.65  # ...and fills the band if its median bottom reaches this far (else: a code)
    hole: float = 0.15  # breaks in the rim's columns this short (in band heights) are strokes
    comparable_gap: float = 0.5  # a second gap this wide against the widest splits off an arc...
    min_split: float = 0.3  # ...when it is also this long (in band heights)
    mirror_tolerance: float = 0.06  # of the perimeter: how far an oval's split gaps may be from mirroring
    min_arc_share: float = 0.1  # of the perimeter: the shorter of two split arcs is at least this long
    code_join: float = 1.0  # code pieces this close (in band heights) are one code
    min_arc: float = 0.8  # other arcs shorter than this many band heights are stray marks
    # An arc's length counts (1 + this * cos(angle from page up)) in choosing the rim:
    # documents are stamped roughly upright, so the rim is usually the arc on top.
    page_up_weight: float = 0.3
    edge_percentile: float = 10.0  # the band's outer and inner edges, robust to stray rows
    radial_pad: float = 0.12  # of the band height, added outside and inside
    # The rim's own text ends (`TextArc.text_inner`) where it does in the columns whose text
    # ends near the band, where at least this share of them do (a line merged with the rim
    # fills the others down). Tuning part, its six perturbations and seeds 3000/7000/8000/17000:
    # with `LineParams.rim_share`, inner lines +1 to +4 and codes +0 to +6 on each, rims alike.
    min_ended: float = 0.3
    end_reach: float = 1.0  # an arc grows over text next to its ends by at most this (band heights)...
    gap_room: float = 0.4  # ...and, padded too, by at most this share of the gap it leaves
    # Of a character (a band height), added at both ends: the detector's polygons are tight
    # and clip end characters.
    angular_pad: float = 0.5
    # A rim band deeper than this (the detector merged the rim with print across the seal, as
    # on a phone photo) ends where the seal's own ink says its text ends (`band.estimate_band`).
    # Real tuning rims measure 0.28-0.65 of b, padding included.
    max_rim_band: float = 0.7
    min_rim_band: float = 0.12  # ...unless that leaves less than this: the ink profile failed too


DEFAULT_LOCATE = LocateParams()
