"""Joint notices (联合发文): an official document issued by two or three bodies together, their
seals stamped over each other across the date; or, with `ROW` spacing, side by side, rims
touching or nearly (an award given by several bodies: a row of seals over their names).

The page is an official document (`official`: the red title, here naming every issuer, the
document number, the red rule, black body text), signed by each issuer in a row above one
date. Each issuer stamps its own round seal over the signature block, overlapping its
neighbour's (the overlap is ink of both: the ink multiplies), each seal turned a little, each
from its own pad. A page asked for one seal is an ordinary official page with one issuer.
"""

from __future__ import annotations

import numpy as np
from imgproc.arrays import Pixels
from PIL import Image, ImageDraw

from . import vocab
from .designs import official_spec
from .document import Request, fitted, paper
from .official import BLACK, SIGNATURE_RIGHT, SIGNATURE_TOP, body, body_face, header, sheet_size
from .placement import Stamp, stamp_at
from .render import SealSpec

# Centre distance of neighbouring seals, in the sum of their radii: below 1 they overlap (by
# 10% to 55% of a diameter), as where one body stamps over the other's seal.
OVERLAP = (0.45, 0.9)
# ...or side by side (`draw`'s `spacing`): rims touching to a fifth of a radius apart.
ROW = (1.0, 1.1)
DROP = 0.25  # a neighbour's centre up or down by at most this share of the summed radii
TILT_DEG = 15.0  # each seal stamped by hand, near upright
SEAL_LIFT = 0.3  # the seals' centres above the date line, in radii: they cover the date
MARGIN = 0.03  # seals keep this share of the page width clear of its sides
NAME_GAP = 2.0  # between the issuers' names in the signature row, in body font sizes


def _issuers(rng: np.random.Generator, count: int) -> list[str]:
    """`count` different bodies of one city or district (上海市教育局, 上海市财政局)."""
    place = vocab.CITIES[int(rng.integers(len(vocab.CITIES)))]
    place += vocab.DISTRICTS[int(rng.integers(len(vocab.DISTRICTS)))]
    order = rng.permutation(len(vocab.INSTITUTIONS))[:count]
    return [place + vocab.INSTITUTIONS[int(i)] for i in order]


def _signatures(rng: np.random.Generator, canvas: Image.Image, issuers: list[str]) -> tuple[float, float]:
    """The issuers' names in a row, right-aligned near the bottom, and the date below them;
    returns the centre of the row at the date's height."""
    draw, width = ImageDraw.Draw(canvas), canvas.width
    face, size = body_face(rng, width)
    date = f"{int(rng.integers(2015, 2026))}年{int(rng.integers(1, 13))}月{int(rng.integers(1, 29))}日"
    right, y = (1.0 - SIGNATURE_RIGHT) * width, canvas.height * rng.uniform(*SIGNATURE_TOP)
    row = ("\u3000" * round(NAME_GAP)).join(issuers)
    left = max(0.0, right - draw.textlength(row, font=face))
    draw.text((left, y), row, fill=BLACK, font=face)
    draw.text((right - draw.textlength(date, font=face), y + 2 * size), date, fill=BLACK, font=face)
    return (left + right) / 2.0, y + 2.5 * size


def _centres(
    rng: np.random.Generator,
    specs: list[SealSpec],
    middle: tuple[float, float],
    width: int,
    spacing: tuple[float, float],
) -> list[tuple[float, float]]:
    """Seal centres in a row, each `spacing` (in summed radii) from the one before it, the row
    centred on `middle` and kept on the page."""
    radii = [max(spec.axes) for spec in specs]
    xs, ys = [0.0], [0.0]
    for before, after in zip(radii, radii[1:], strict=False):
        reach = before + after
        xs.append(xs[-1] + reach * rng.uniform(*spacing))
        ys.append(ys[-1] + reach * rng.uniform(-DROP, DROP))
    low = MARGIN * width + radii[0] - xs[0]
    high = (1.0 - MARGIN) * width - radii[-1] - xs[-1]
    shift = float(np.clip(middle[0] - (xs[0] + xs[-1]) / 2.0, low, max(low, high)))
    lift = SEAL_LIFT * float(np.mean(radii))
    return [(x + shift, y + middle[1] - lift) for x, y in zip(xs, ys, strict=True)]


def draw(
    rng: np.random.Generator,
    size: tuple[int, int] | None,
    request: Request,
    spacing: tuple[float, float] = OVERLAP,
) -> tuple[Pixels, list[Stamp]]:
    """A joint notice of `request.n_seals` issuers (one at least), each seal over the date,
    neighbours `spacing` apart (`OVERLAP`, or `ROW`)."""
    width, height = sheet_size(rng, size)
    canvas = Image.fromarray(paper(rng, width, height))
    issuers = _issuers(rng, max(1, request.n_seals))
    rule = header(rng, canvas, "".join(issuers))
    body(rng, canvas, rule)
    middle = _signatures(rng, canvas, issuers)
    page = np.asarray(canvas).copy()
    if request.n_seals == 0:
        return page, []
    specs = [fitted(official_spec(rng, name, request.shape), request.diameter) for name in issuers]
    centres = _centres(rng, specs, middle, width, spacing)
    stamps = [
        stamp_at(rng, page, spec, centre, float(rng.uniform(-TILT_DEG, TILT_DEG)))
        for spec, centre in zip(specs, centres, strict=True)
    ]
    return page, stamps
