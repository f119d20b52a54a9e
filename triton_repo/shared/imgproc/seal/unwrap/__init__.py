"""unwrap: where a seal's text is in (`Located`), the images the recognisers read out
(`SealStrips`).

An arc is unwrapped along the outline (`geometry.unwrap_band`) twice, from the ink image (red
strokes dark, other print removed) and from the colour crop: print or a signature across the
ring reads better once removed, while the recognisers, trained on colour photographs, read
clean renders and pale impressions best in colour. Strips are stretched, framed in white and
narrowed (`strips`); a rim facing down the page is read turned as well, and each rim strip
can be unwrapped on past its ends for the reader to look there. Inner lines are cut upright
from the colour crop. The classical path's rim candidates, code and interior, and a
rectangular seal's inside, are cut in `classical` (with `interior`). `UnwrapParams` holds
every threshold.
"""

from __future__ import annotations

from ..records import ClassicalText, Located, SealCrop, SealStrips, SealText
from .classical import classical_strips, rect_strips
from .params import DEFAULT_UNWRAP, UnwrapParams
from .strips import located_strips

__all__ = ["DEFAULT_UNWRAP", "UnwrapParams", "unwrap_seal"]


def unwrap_seal(crop: SealCrop, located: Located, params: UnwrapParams = DEFAULT_UNWRAP) -> SealStrips:
    """What to read of one seal, wherever its text was located."""
    if isinstance(located, SealText):
        return located_strips(crop, located, params)
    if isinstance(located, ClassicalText):
        return classical_strips(crop, located, params)
    return rect_strips(crop, located, params)
