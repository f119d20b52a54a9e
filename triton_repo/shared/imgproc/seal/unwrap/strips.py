"""What the recognisers read for one seal: strips unwrapped along its arcs of text, and its
inner lines cut out upright.

An arc is unwrapped twice, from the ink image (red strokes dark, other print removed) and
from the colour crop: print or a signature across the ring reads better once removed, while
the recognisers, trained on colour photographs, read clean renders and pale impressions best
in colour, where the ink image can lose thin strokes; the reader keeps the surer reading,
the colour one's confidence weighed down a little (`UnwrapParams.colour_prior`). Strips get a frame
of white around them (the recogniser drops wide-spaced characters that touch the edges) and
are narrowed (`squeeze`): unwrapped rim characters stand wide apart, and seal fonts are often
condensed. A rim facing down the page is read turned as well (`rim_strips`). Inner lines are
the detector's boxes (`locate.lines`) cut from the colour crop.
"""

from __future__ import annotations

from dataclasses import replace
from functools import partial

import cv2
import numpy as np

from imgproc.arrays import Floats, Pixels, as_pixels
from imgproc.imaging import WHITE
from imgproc.text import crop_quad

from ..geometry import arc_length, unwrap_band
from ..ink import stretch_contrast
from ..records import SealCrop, SealStrips, SealText, Strip, TextArc
from .params import DEFAULT_UNWRAP, UnwrapParams


def framed(image: Pixels, params: UnwrapParams = DEFAULT_UNWRAP) -> Pixels:
    """`image` with a white frame, scaled to the strip height and narrowed by `squeeze`."""
    scale = image.shape[0]
    rows, cols = round(params.blank_rows * scale), round(params.blank * scale)
    pad = ((rows, rows), (cols, cols)) + (((0, 0),) if image.ndim == 3 else ())
    padded = np.pad(image, pad, constant_values=WHITE)
    width = max(1, round(padded.shape[1] * params.squeeze * params.height / padded.shape[0]))
    return as_pixels(cv2.resize(padded, (width, params.height), interpolation=cv2.INTER_AREA))


def stretch_colour(image: Pixels, params: UnwrapParams = DEFAULT_UNWRAP) -> Pixels:
    """A colour strip with the same linear stretch on every channel, read off its darkest
    channel: pale ink darker, paper white, hues kept (see `ink.stretch_contrast`)."""
    darkest = image.min(axis=2)
    dark, light = (
        float(v) for v in np.percentile(darkest, [params.dark_percentile, params.light_percentile])
    )
    if light - dark < 1.0:
        return image
    scaled = (image.astype(np.float32) - dark) * (WHITE / (light - dark))
    return scaled.clip(0, WHITE).astype(np.uint8)


def stretched(image: Pixels, params: UnwrapParams = DEFAULT_UNWRAP) -> Pixels:
    """An ink (gray) or colour image stretched to dark text on white paper."""
    if image.ndim == 3:
        return stretch_colour(image, params)
    return stretch_contrast(image, params.dark_percentile, params.light_percentile)


def arc_strip(image: Pixels, crop: SealCrop, arc: TextArc, params: UnwrapParams = DEFAULT_UNWRAP) -> Pixels:
    """The arc unwrapped from `image` (the colour crop or the ink image), tops up."""
    strip = unwrap_band(image, crop.local, arc.band, params.height, start=arc.start, span=arc.span)
    if arc.turned:
        strip = np.ascontiguousarray(strip[::-1, ::-1])
    return framed(stretched(strip, params), params)


def arc_strips(
    crop: SealCrop, arc: TextArc, params: UnwrapParams = DEFAULT_UNWRAP, group: int = 0
) -> tuple[Strip, ...]:
    """The arc from the ink image and from the colour crop."""
    return (
        Strip(arc_strip(crop.gray, crop, arc, params), 1.0, group),
        Strip(arc_strip(crop.bgr, crop, arc, params), params.colour_prior, group),
    )


def extended(crop: SealCrop, arc: TextArc, params: UnwrapParams = DEFAULT_UNWRAP) -> TextArc:
    """`arc` with `beyond` band heights more at each end, short of the middle of its gap."""
    more = params.beyond * arc.band.height / arc_length(crop.local, arc.band.middle)
    more = max(0.0, min(more, (1.0 - arc.span) / 2.0 - params.gap_kept))
    return replace(arc, start=(arc.start - more) % 1.0, span=arc.span + 2.0 * more)


def _reaching_past(crop: SealCrop, arc: TextArc, strip: Strip, params: UnwrapParams) -> Strip:
    """A strip with its arc unwrapped further too (`Strip.beyond`)."""
    longer = extended(crop, arc, params)
    if longer.span <= arc.span:
        return strip
    source = crop.gray if strip.from_ink else crop.bgr
    return replace(strip, beyond=partial(arc_strip, source, crop, longer, params))


def rim_strips(crop: SealCrop, text: SealText, params: UnwrapParams = DEFAULT_UNWRAP) -> tuple[Strip, ...]:
    """The rim's strips, and where the rim faces down the page, its strips turned too.

    Seals are stamped roughly upright, so a rim below the centre is most often a lower line
    whose tops face inwards (the supervision seal's 国家税务总局监制 under an invoice title
    that hides the rim above it); a seal stamped upside down reads the other way. The
    recognisers' confidence decides between them.
    """
    arcs = [text.rim]
    if float(text.up[1]) >= params.faces_down:  # image y grows down the page
        arcs.append(replace(text.rim, turned=not text.rim.turned))
    return tuple(
        _reaching_past(crop, arc, strip, params)
        for group, arc in enumerate(arcs)
        for strip in arc_strips(crop, arc, params, group)
    )


def _line(image: Pixels, quad: Floats, min_px: int) -> Pixels | None:
    try:
        cut = crop_quad(image, quad)
    except ValueError:  # a degenerate box
        return None
    return cut if min(cut.shape[:2]) >= min_px else None


def line_images(
    crop: SealCrop, quads: tuple[Floats, ...], params: UnwrapParams = DEFAULT_UNWRAP
) -> tuple[Pixels, ...]:
    """The inner lines cut upright from the colour crop, specks left out."""
    return tuple(line for quad in quads if (line := _line(crop.bgr, quad, params.min_line_px)) is not None)


def located_strips(crop: SealCrop, text: SealText, params: UnwrapParams = DEFAULT_UNWRAP) -> SealStrips:
    """What to read of a seal whose text the detector located."""
    return SealStrips(
        rim=rim_strips(crop, text, params),
        arcs=tuple(arc_strips(crop, arc, params) for arc in text.arcs),
        lines=line_images(crop, text.inner, params),
    )
