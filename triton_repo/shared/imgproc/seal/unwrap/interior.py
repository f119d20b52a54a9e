"""The inside of a seal, cut out upright for text detection and recognition.

Round and oval seals carry horizontal lines inside the rim band (合同专用章, a tax ID) and
round ones a star above them. Once the rim text has told us where the seal's top is, the
interior is warped upright, everything outside the inner ellipse is whitened (rim-text
remnants would otherwise be detected as text), and for round seals the part above the
bottom of the star is dropped. Oval seals keep their whole interior: the tax ID sits at the
centre. In the gap between the rim text's ends there are no rim characters to keep out,
and the bottom line of a real seal (发票专用章 on invoice seals) often reaches into the band
there, so the interior reaches further out in a gap that holds no bottom-arc code. A
rectangular seal's interior is its whole inside, long side horizontal, offered in both
180-degree orientations because a rectangle does not tell which way is up: the one nearer
the page's own upright first, since documents are stamped roughly upright.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from imgproc.arrays import Floats, Ints, Mask, Pixels, as_pixels
from imgproc.imaging import WHITE

from ..geometry import TWO_PI, rotation, share_at
from ..records import Band, SealRegion


@dataclass(frozen=True)
class InteriorParams:
    """The interior's crop, its star and a rectangle's border; fractions are of the crop."""

    # A round seal's star is a blob of ink this tall (of the interior), centred to within
    # `star_max_offset` of its width, about as wide as tall, in the upper half.
    star_min_height: float = 0.2
    star_max_height: float = 0.75
    star_max_offset: float = 0.15
    star_max_aspect: float = 1.4
    star_margin: float = 0.02  # the interior is cut this far below the star's bottom
    rect_border: float = 0.12  # of the short half side, trimmed as the border
    # In the rim's gap (when no bottom-arc code fills it) the interior reaches this share of
    # the band's height further out, short of the ring's rough inner edge.
    gap_reach: float = 0.75
    gap_ink: float = 0.01  # ...when at least this share of the added area is ink
    ink_level: int = 128  # an interior pixel darker than this is ink (the interior is stretched)
    min_side_px: int = 8  # an interior is at least this many pixels on a side (a degenerate seal)


DEFAULT_INTERIOR = InteriorParams()


def _upright_frame(centre: Floats, up: Floats, size: tuple[int, int]) -> Floats:
    """2x3 matrix from a width x height upright crop's pixels to the image's."""
    width, height = size
    right, down = np.array([-up[1], up[0]]), -up
    offset = centre - right * width / 2.0 - down * height / 2.0
    return np.array([[right[0], down[0], offset[0]], [right[1], down[1], offset[1]]])


def _upright(image: Pixels, centre: Floats, up: Floats, size: tuple[int, int]) -> Pixels:
    """A width x height crop centred at `centre` whose top faces the image direction `up`."""
    fill = (WHITE,) * (image.shape[2] if image.ndim == 3 else 1)
    return as_pixels(
        cv2.warpAffine(
            image,
            _upright_frame(centre, up, size),
            size,
            flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
            borderMode=cv2.BORDER_CONSTANT,
            borderValue=fill,
        )
    )


def _axes_at(region: SealRegion, inset: float, up: Floats, min_side: int) -> tuple[float, float]:
    """Horizontal and vertical semi-axes of the outline moved `inset` inwards, upright frame."""
    a, b = (max(axis - inset, min_side / 2.0) for axis in region.axes)
    if not region.shape.has_axes:
        return a, b
    major = rotation(region.angle_deg) @ np.array([1.0, 0.0])
    return (b, a) if abs(float(major @ up)) > abs(float(major @ np.array([-up[1], up[0]]))) else (a, b)


def _inside(size: tuple[int, int], axes: tuple[float, float]) -> Mask:
    """Pixels of a width x height crop inside the centred ellipse with semi-axes `axes`."""
    width, height = size
    ys, xs = np.mgrid[0:height, 0:width]
    inside: Mask = ((xs + 0.5 - width / 2.0) / axes[0]) ** 2 + (
        (ys + 0.5 - height / 2.0) / axes[1]
    ) ** 2 <= 1.0
    return inside


def _in_gap(
    region: SealRegion, band: Band, frame: Floats, size: tuple[int, int], rim: tuple[float, float]
) -> Mask:
    """Pixels of the upright crop whose direction from the centre lies outside the rim arc
    (`rim` = its start and length as shares of the perimeter, clockwise from parameter 0)."""
    width, height = size
    ys, xs = np.mgrid[0:height, 0:width]
    page = np.stack([xs + 0.5, ys + 0.5, np.ones_like(xs, np.float64)], axis=-1) @ frame.T
    local = (page - np.asarray(region.center)) @ rotation(region.angle_deg)  # into the seal frame
    t = np.mod(np.arctan2(local[..., 1] / region.axes[1], local[..., 0] / region.axes[0]), TWO_PI)
    share = share_at(region, band.middle, t)
    start, length = rim
    gap: Mask = np.mod(share - start, 1.0) >= length
    return gap


def _size(axes: tuple[float, float], min_side: int) -> tuple[int, int]:
    return max(min_side, round(2 * axes[0])), max(min_side, round(2 * axes[1]))


def _reaching_into_gap(
    image: Pixels,
    region: SealRegion,
    band: Band,
    up: Floats,
    rim: tuple[float, float],
    params: InteriorParams,
) -> Pixels | None:
    """The interior grown into the rim's gap, or None when no line reaches into the gap (an
    empty gap, or the ring's speckle, would only make the crop larger and its text smaller)."""
    side = params.min_side_px
    reach = _axes_at(region, band.inner - params.gap_reach * band.height, up, side)
    size, centre = _size(reach, side), np.asarray(region.center, dtype=np.float64)
    crop = _upright(image, centre, up, size)
    keep = _inside(size, _axes_at(region, band.inner, up, side))
    extra = _inside(size, reach) & _in_gap(region, band, _upright_frame(centre, up, size), size, rim) & ~keep
    if not extra.any() or float((crop[extra] < params.ink_level).mean()) < params.gap_ink:
        return None
    keep |= extra
    crop[~keep] = WHITE
    # Only as large as what is kept, for the same reason.
    rows, cols = np.nonzero(keep.any(axis=1))[0], np.nonzero(keep.any(axis=0))[0]
    return crop[rows[0] : rows[-1] + 1, cols[0] : cols[-1] + 1]


def inner_region(
    image: Pixels,
    region: SealRegion,
    band: Band,
    up: Floats,
    rim: tuple[float, float] | None = None,
    params: InteriorParams = DEFAULT_INTERIOR,
) -> Pixels:
    """The upright interior of an elliptic seal inside the rim band, outside whitened; where
    `rim` (the rim text's start and length as perimeter shares) is given and a line reaches
    into its gap, the interior reaches further out there (`InteriorParams.gap_reach`)."""
    if rim and (reached := _reaching_into_gap(image, region, band, up, rim, params)) is not None:
        return reached
    axes = _axes_at(region, band.inner, up, params.min_side_px)
    size = _size(axes, params.min_side_px)
    crop = _upright(image, np.asarray(region.center, dtype=np.float64), up, size)
    crop[~_inside(size, axes)] = WHITE
    return crop


def _is_star(stats: Ints, width: int, height: int, params: InteriorParams) -> bool:
    x, y, w, h = (int(v) for v in stats[:4])
    centred = abs(x + w / 2.0 - width / 2.0) <= params.star_max_offset * width
    sized = params.star_min_height * height <= h <= params.star_max_height * height
    return centred and sized and max(w, h) <= params.star_max_aspect * min(w, h) and y < height / 2.0


def star_bottom(gray: Pixels, params: InteriorParams = DEFAULT_INTERIOR) -> int | None:
    """Row just below the star of an upright round-seal interior, or None if there is no star."""
    height, width = gray.shape[:2]
    ink = (gray < params.ink_level).astype(np.uint8)
    count, _, stats, _ = cv2.connectedComponentsWithStats(ink, connectivity=8)
    stars = [s for s in stats[1:count] if _is_star(s, width, height, params)]
    if not stars:
        return None
    star = max(stars, key=lambda s: int(s[cv2.CC_STAT_AREA]))
    return min(height - 1, int(star[1] + star[3] + params.star_margin * height))


def below_star(gray: Pixels, params: InteriorParams = DEFAULT_INTERIOR) -> Pixels:
    """The part of an upright round-seal interior below its star (all of it if no star)."""
    row = star_bottom(gray, params)
    return gray if row is None else gray[row:]


def rect_interior(
    image: Pixels, region: SealRegion, up: Floats, params: InteriorParams = DEFAULT_INTERIOR
) -> list[Pixels]:
    """Inside of a rectangular seal, long side horizontal, in both 180-degree orientations,
    `up` first."""
    border = params.rect_border * region.axes[1]
    width = max(params.min_side_px, round(2 * (region.axes[0] - border)))
    height = max(params.min_side_px, round(2 * (region.axes[1] - border)))
    crop = _upright(image, np.asarray(region.center, dtype=np.float64), up, (width, height))
    return [crop, np.ascontiguousarray(crop[::-1, ::-1])]
