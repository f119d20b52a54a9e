"""fit: a blob of ink in, the seal its outline makes out (a `SealRegion`), or nothing.

`blob.plain_outline` fits an ellipse and a rectangle to the blob's contour (`ellipse`: least
squares, RANSAC where print drags it) and a quadrilateral where a rectangular seal is
photographed at a slant (`quad`); `blob.robust_outline` fits a RANSAC ellipse through a blob
no plain shape fits. Whatever the fit, `checks` decides whether it is a seal from the ink
alone: a thin ring inked nearly all round, writing inside, and not a form's frame. Find calls
these on each blob it proposes; `FitParams` holds every threshold. Seals stamped over each
other make one blob: `overlap` finds the rings the first fit leaves out, and tells two
seals from one found twice.
"""

from .blob import big_enough, hull_area, plain_outline, robust_outline, sheet_interior
from .overlap import crossing, distinct, overlapping
from .params import DEFAULT_FIT, FitParams

__all__ = [
    "DEFAULT_FIT",
    "FitParams",
    "big_enough",
    "crossing",
    "distinct",
    "hull_area",
    "overlapping",
    "plain_outline",
    "robust_outline",
    "sheet_interior",
]
