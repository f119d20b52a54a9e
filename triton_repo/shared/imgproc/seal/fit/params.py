"""The thresholds of fitting a blob's outline and judging it a seal (`fit`). Pixel sizes are
at find's working scale; shares are of the fitted outline or of its interior.
"""

from __future__ import annotations

from dataclasses import dataclass

from .ellipse import DEFAULT_RANSAC, RansacParams
from .quad import DEFAULT_QUAD, QuadParams


@dataclass(frozen=True)
class OverlapParams:
    """When a blob's contour holds another seal's ring, and when two fits are two seals."""

    # A blob's contour is searched for the rings of seals stamped over the one found in it
    # (`overlap`). Generated joint notices (seed 40000, 69 seals): found 41 -> 65, rims read
    # 29 -> 34, CER 0.458 -> 0.176; no other set changed.
    enabled: bool = True
    # A contour point further outside a seal than this (relative radial distance) is not on it.
    outside: float = 0.08
    # Points outside every seal found in a blob, at least this share of its contour, may be
    # another ring's outer arc: two rings crossing by up to half a diameter leave two thirds of
    # the second's outline outside the first, but the middle seal of three in a row shows
    # only its top and bottom (9% of the contour). Print a seal touches leaves stretches too,
    # whose fits fail the checks. Generated joint pages (seeds 0-19, 60 seals): found
    # 23 -> 53 at 0.2, 55 at 0.05 (59 with `crossing` seals kept from the title check).
    min_share: float = 0.05
    max_seals: int = 3  # a joint notice of up to three bodies
    # Two fits are two seals when each has at least this share of its outline outside the
    # other (two seals crossing by half a diameter: about 0.65 each; a character of a seal, an
    # inner ring, a second fit of the same ring: about 0).
    min_apart: float = 0.25
    # ...and they cross where each also has this share of its outline clearly inside the other
    # (seals stamped over each other: 0.1-0.35; seals side by side or touching, or the letters
    # of a red title: 0).
    min_inside: float = 0.05
    samples: int = 90  # outline points where that is judged


DEFAULT_OVERLAP = OverlapParams()


@dataclass(frozen=True)
class FitParams:
    """What outline a blob has, and whether its ink makes it a seal."""

    min_size_px: int = 36  # a seal's short diameter, at least: smaller blobs are characters or specks
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
    max_ellipse_aspect: float = 2.2  # oval seals are at most about 2:1 (invoice seals 40 x 30 mm)
    max_rect_aspect: float = 4.0  # long rectangular seals (a name stamp) are at most about 4:1
    round_max_aspect: float = 1.15  # an ellipse this close to a circle is a round seal
    min_shape_iou: float = 0.82  # of a plain fit with the blob's convex hull
    blob_margin_px: int = 4  # around a blob's bounding box, where its fits are rendered
    # A blob no plain shape fits (a seal merged with print it touches) is tried with a robust
    # ellipse through its contour, which must then have an even more completely inked ring.
    robust: bool = True
    robust_coverage: float = 0.93
    # An ellipse fit that fails the checks is moved onto the ring near it and tried again
    # (`blob.snapped`): off by default, on for grey pages (`GreyParams.snap`).
    snap: bool = False
    interior_scale: float = 0.8  # the interior is the fitted shape scaled by this
    # Share of the interior that is ink: faint seals have little, an empty red ring none.
    min_ink_fill: float = 0.002
    max_ink_fill: float = 0.9  # ...and a filled red logo or blot nearly all
    # ...and a rectangle's interior less than this: a red banner or box with white letters, a
    # filled red shape (the corpus tuning part: such false rectangles 0.71-0.88). Round and
    # oval seals keep `max_ink_fill`: an emblem in place of the star fills a ministry's seal
    # past 0.7 (two of the tuning part's were lost at 0.7 for every shape).
    max_rect_fill: float = 0.7
    # Share of the outline (moved inwards to where the ring is) on ink: a seal's ring is
    # nearly closed, a line of red text or a piece of a table is not.
    min_ellipse_coverage: float = 0.9
    min_rect_coverage: float = 0.9
    border_band_fraction: float = 0.12  # of the short semi-axis, searched inwards for the ring
    # Insets (of the short semi-axis) where a seal's ring has ended... The deepest is where a
    # small, blurred seal's ring and tightly set rim text, run together, have ended too (an
    # invoice supervision seal in a phone photo: solid to about 0.25).
    stroke_checks: tuple[float, ...] = (0.15, 0.25, 0.3)
    solid_stroke: float = 0.65  # ...so at least one of them is inked less than this
    border_samples: int = 360  # points along an outline where its ink is read: one a degree
    # Of the outline that must lie inside the image: a close-up of a seal cut on every side
    # shows 0.4-0.5 of its ring (the ring must then be inked all along what is visible).
    min_visible_fraction: float = 0.4
    edge_margin_px: int = 3  # contour points this close to the image edge are not fitted
    hull_tolerance_px: float = 2.0  # contour points this close to the convex hull are fitted
    ransac: RansacParams = DEFAULT_RANSAC  # robust ellipses (see `ellipse`)
    quad: QuadParams = DEFAULT_QUAD  # rectangular seals photographed at a slant (see `quad`)
    overlap: OverlapParams = DEFAULT_OVERLAP  # seals stamped over each other (see `overlap`)


DEFAULT_FIT = FitParams()
