"""Chinese red-seal geometry for the seal BLS: pure NumPy/OpenCV, no model calls.

The modules follow the data: `ink` (red mask, ink image without black print), `find` and
`fit` (seal regions and their shape), `unwrap` (rim band and its polar/elliptic unwrapping), `layout`
(gaps, rim and code arcs, candidate strips), `inner` (upright interior crops) and
`pipeline`, which chains them into `prepare_seals(rgb) -> list[SealCrops]`. The BLS runs the
recogniser on every `SealCrops.rim` candidate and keeps the best `prior * mean confidence`,
recognises `SealCrops.code` as the code line, and runs detection plus recognition on each
`SealCrops.inner` crop (`reading` holds those decisions).
"""

from .find import DEFAULT_FIND, FindParams, find_seals, find_seals_in_mask
from .fit import DEFAULT_FIT, FitParams
from .ink import (
    DEFAULT_INK,
    RedInkThresholds,
    adapted_to,
    ink_gray,
    red_mask,
    red_mask_hsv,
    seal_only,
    stretch_contrast,
    to_hsv,
)
from .inner import (
    DEFAULT_INNER,
    InnerParams,
    below_star,
    inner_region,
    rect_interior,
    star_bottom,
    up_direction,
)
from .layout import (
    DEFAULT_LAYOUT,
    Arc,
    Candidate,
    LayoutParams,
    RimLayout,
    angular_profile,
    cut_arc,
    find_gaps,
    rim_candidates,
    rim_layout,
    without_rules,
    without_stray_ends,
)
from .pipeline import DEFAULT_SEAL, RimStrip, SealCrops, SealParams, crops_for, prepare_seals
from .shapes import SealRegion, Shape
from .unwrap import DEFAULT_BAND, Band, BandParams, estimate_band, radial_profile, strip_width, unwrap_band

__all__ = [
    "DEFAULT_BAND",
    "DEFAULT_FIND",
    "DEFAULT_FIT",
    "DEFAULT_INK",
    "DEFAULT_INNER",
    "DEFAULT_LAYOUT",
    "DEFAULT_SEAL",
    "Arc",
    "Band",
    "BandParams",
    "Candidate",
    "FindParams",
    "FitParams",
    "InnerParams",
    "LayoutParams",
    "RedInkThresholds",
    "RimLayout",
    "RimStrip",
    "SealCrops",
    "SealParams",
    "SealRegion",
    "Shape",
    "adapted_to",
    "angular_profile",
    "below_star",
    "crops_for",
    "cut_arc",
    "estimate_band",
    "find_gaps",
    "find_seals",
    "find_seals_in_mask",
    "ink_gray",
    "inner_region",
    "prepare_seals",
    "radial_profile",
    "rect_interior",
    "red_mask",
    "red_mask_hsv",
    "rim_candidates",
    "rim_layout",
    "seal_only",
    "star_bottom",
    "stretch_contrast",
    "strip_width",
    "to_hsv",
    "unwrap_band",
    "up_direction",
    "without_rules",
    "without_stray_ends",
]
