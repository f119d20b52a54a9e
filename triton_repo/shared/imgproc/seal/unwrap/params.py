"""The thresholds of cutting what the recognisers read (`unwrap`): strip geometry, framing,
and the interiors of the classical path and of rectangular seals. Shares are of the strip
height unless said.
"""

from __future__ import annotations

from dataclasses import dataclass

from .interior import DEFAULT_INTERIOR, InteriorParams


@dataclass(frozen=True)
class UnwrapParams:
    """Strip geometry and framing."""

    height: int = 48  # the recognisers' input height
    # Dev seeds 3000-6000, 414 round/oval seals exact: 321 at 1.0, 327 at 0.85, 325 at 0.75.
    squeeze: float = 0.85
    blank: float = 0.25  # white columns at each end: the recogniser drops characters touching them
    # White rows above and below: the recogniser drops wide-spaced characters that fill the height.
    blank_rows: float = 0.2
    # A colour strip's reading counts this share of its confidence against the ink image's:
    # print across the ring stays in colour, and a recogniser reads it along as surely. Tuning
    # part of seals-dev and generated seeds 3000/7000: 0.9 reads 1 and 4 more rims than 1.0.
    colour_prior: float = 0.9
    # A rim whose middle lies this far down the page from the centre (the cosine of its
    # direction with straight down) is read turned as well (`rim_strips`).
    faces_down: float = 0.5
    # Each rim strip is unwrapped again this many band heights past each end (at most to the
    # middle of the gap), for the reader to look past the end characters with them
    # (`read.anchored_windows`): the detector's polygon sometimes stops short of a character.
    beyond: float = 1.5
    gap_kept: float = 0.005  # ...leaving at least this perimeter share between the two ends
    # Strips are stretched (`ink.stretch_contrast`, and the colour ones on their darkest
    # channel): their darkest `dark_percentile` % black, the lightest past `light_percentile` %
    # (the paper) white, whatever the seal's pressure.
    dark_percentile: float = 3.0
    light_percentile: float = 90.0
    min_line_px: int = 4  # an inner line's crop smaller than this on a side is a speck
    interior: InteriorParams = DEFAULT_INTERIOR


DEFAULT_UNWRAP = UnwrapParams()
