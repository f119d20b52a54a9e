"""Cut-out pages: one big seal filling the image, often running off its edges.

People upload seals cropped out of a scan (or cut-out PNGs composited on white): the image
is barely larger than the seal, or smaller, so the ring is cut on one or more sides.
"""

from __future__ import annotations

import numpy as np
from imgproc.arrays import Floats, Pixels

from .designs import invoice_spec, random_spec
from .document import Request, fitted, paper
from .placement import STAMP_PAD, Box, Spot, Stamp, extent, stamp_seal
from .render import SealSpec

DIAMETER = (380, 760)  # px across the seal's long axis: cut-outs keep the scan's resolution
FILL = (0.86, 1.12)  # image side over the seal's extent: below 1 the seal runs off the image
OFFSET = 0.05  # of the image: the seal's centre is this far off the middle at most
INVOICE_PROBABILITY = 0.3  # of cut-outs that are invoice seals, where the shape allows
TILT_DEG = 8.0  # cut-outs are mostly straightened before upload
PX_PER_MM = 10.0  # the invoice seal's own scale; `fitted` resizes it anyway


def _spec(rng: np.random.Generator, request: Request) -> SealSpec:
    if request.shape in (None, "oval") and rng.random() < INVOICE_PROBABILITY:
        return invoice_spec(rng, PX_PER_MM)
    return random_spec(rng, request.shape)


def _fit(spec: SealSpec, fill: Floats, size: tuple[int, int] | None) -> tuple[SealSpec, tuple[int, int]]:
    """The seal resized to fill a `size` image (or kept), and the image size."""
    half = np.array(extent(spec, 0.0))
    if size is None:
        width, height = np.ceil(2.0 * half * fill).astype(int)
        return spec, (int(width), int(height))
    factor = float(np.min(np.array(size) / (2.0 * half * fill)))
    return fitted(spec, 2.0 * max(spec.axes) * factor), size


def draw(
    rng: np.random.Generator, size: tuple[int, int] | None, request: Request
) -> tuple[Pixels, list[Stamp]]:
    """One seal filling the image (`request.n_seals` is taken as one)."""
    spec = fitted(_spec(rng, request), request.diameter or rng.uniform(*DIAMETER))
    spec, (width, height) = _fit(spec, rng.uniform(*FILL, 2), size)
    page = paper(rng, width, height)
    centre = (width * (0.5 + rng.uniform(-OFFSET, OFFSET)), height * (0.5 + rng.uniform(-OFFSET, OFFSET)))
    tilt = None if spec.shape == "round" else TILT_DEG
    taken: list[Box] = []
    stamp = stamp_seal(rng, page, spec, taken, STAMP_PAD, Spot(centre, 0.0, tilt, 0.0))
    return page, [stamp] if stamp is not None else []
