"""Where a seal's text is by its ink alone: the fallback when the learned detector finds no
rim, and the way for rectangular seals, which it was not trained on.

Elliptic seals: the rim band comes from the radial ink profile (`band.estimate_band`), the
rim's start and end from the gaps in the unwrapped band's angular ink profile
(`layout.rim_layout`), which also finds a bottom-arc code; the rim is offered as a few
candidates with priors (`layout.rim_candidates`), and the interior is left to the general
text detector. Rectangular seals: their inside, long side level, nearer the page's own
upright first (documents are stamped roughly upright), and turned half round.
"""

from __future__ import annotations

import numpy as np

from imgproc.arrays import Floats, Pixels

from ..geometry import outline_offset_points, parameter_at, rotation, unwrap_band
from ..ink import stretch_contrast
from ..records import Band, ClassicalText, RectText, SealCrop, SealRegion, TextArc
from ..runs import Run
from .band import estimate_band
from .layout import rim_candidates, rim_layout, without_rules
from .params import DEFAULT_CLASSICAL, ClassicalParams


def up_direction(region: SealRegion, band: Band, centre_share: float) -> Floats:
    """Unit vector (image frame) from the seal centre towards the middle of the rim text."""
    inset = band.middle
    t = parameter_at(region, inset, np.array([centre_share]))
    point = outline_offset_points(region, t, np.array([inset]))[0]
    vector: Floats = point - np.asarray(region.center)
    vector = vector / max(float(np.linalg.norm(vector)), 1e-9)
    if region.shape.has_axes:  # an oval's text is centred on its short axis: snap to it
        minor = rotation(region.angle_deg) @ np.array([0.0, 1.0])
        vector = minor if float(minor @ vector) > 0 else -minor
    return vector


def nearest_upright(angle_deg: float) -> float:
    """The same line's angle in [-90, 90): of the two ways along it, the one that turns least."""
    return (angle_deg + 90.0) % 180.0 - 90.0


def _code_arc(full: Pixels, band: Band, code: Run, ink_level: int, params: ClassicalParams) -> TextArc:
    """The bottom-arc code over just the rows of the band it occupies, read turned."""
    height, width = full.shape
    rows = np.nonzero((full[:, code.columns(width)] < ink_level).mean(axis=1) >= params.code_ink_rows)[0]
    top, bottom = (int(rows[0]), int(rows[-1]) + 1) if rows.size else (0, height)
    scale = band.height / height
    reach = params.code_margin * band.height  # digits sit closer to the ring than the rim text
    code_band = Band(max(0.0, band.outer + top * scale - reach), band.outer + bottom * scale + reach)
    return TextArc(code_band, code.start / width, code.length / width, turned=True)


def classical_text(crop: SealCrop, params: ClassicalParams = DEFAULT_CLASSICAL) -> ClassicalText | RectText:
    """Where the text of a seal is, by its ink."""
    region = crop.local
    if not region.is_elliptic:
        return RectText(rotation(nearest_upright(region.angle_deg)) @ np.array([0.0, -1.0]))
    band = estimate_band(crop.mask, region, params.band)
    unwrapped = unwrap_band(crop.gray, region, band, params.height)
    full = without_rules(
        stretch_contrast(unwrapped, params.dark_percentile, params.light_percentile), params.layout
    )
    layout = rim_layout(full, params.layout)
    up = up_direction(region, band, layout.rim.centre(layout.width))
    # A gap that holds the bottom-arc code stays out of the interior: the code has its own strip.
    shares = None if layout.code else (layout.rim.start / layout.width, layout.rim.length / layout.width)
    code = (
        None if layout.code is None else _code_arc(full, band, layout.code, params.layout.ink_level, params)
    )
    candidates = tuple(rim_candidates(layout, params.height, params.layout))
    return ClassicalText(band, full, candidates, code, up, shares)
