"""What the recognisers read for one seal: strips unwrapped along its arcs of text, and its
inner lines cut out upright.

An arc is unwrapped twice, from the ink image (red strokes dark, other print removed) and
from the colour crop: print or a signature across the ring reads better once removed, while
the recognisers, trained on colour photographs, read clean renders and pale impressions best
in colour, where the ink image can lose thin strokes; the reader keeps the surer reading,
the colour one's confidence weighed down a little (`StripParams.colour_prior`). Strips get a frame
of white around them (the recogniser drops wide-spaced characters that touch the edges) and
are narrowed (`squeeze`): unwrapped rim characters stand wide apart, and seal fonts are often
condensed. A rim facing down the page is read turned as well (`rim_strips`). Inner lines are
the detector's boxes (`locate.inner_quads`) cut from the colour crop.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import partial

import cv2
import numpy as np

from imgproc.text import crop_quad

from .crop import SealCrop
from .ink import stretch_contrast
from .locate import SealText
from .unwrap import TextArc, arc_length, unwrap_band

WHITE = 255
MIN_LINE_PX = 4  # an inner line's crop smaller than this on a side is a speck
STRETCH_DARK, STRETCH_LIGHT = 3.0, 90.0  # percentiles made black and white (as the ink image's)
GAP_KEPT = 0.005  # perimeter share left between the two ends of an extended arc


@dataclass(frozen=True)
class StripParams:
    """Strip geometry; shares are of the strip height."""

    height: int = 48  # the recognisers' input height
    # Dev seeds 3000-6000, 414 round/oval seals exact: 321 at 1.0, 327 at 0.85, 325 at 0.75.
    squeeze: float = 0.85
    blank: float = 0.25  # white columns at each end
    blank_rows: float = 0.2  # white rows above and below
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


DEFAULT_STRIP = StripParams()


@dataclass(frozen=True)
class Strip:
    """A candidate image of one line of text and the prior weight of its reading's score.
    Candidates of one `group` show the same text (one arc from two sources), so their
    readings are each other's alternatives."""

    image: np.ndarray
    prior: float = 1.0
    group: int = 0
    # The same, unwrapped further at both ends (`past_ends`): made only when asked for, since
    # only the chosen reading's strip is looked past (two to four unwraps a seal, about 4 ms each).
    beyond: Callable[[], np.ndarray] | None = None

    @property
    def from_ink(self) -> bool:
        """Whether it was cut from the ink image (grey: other print removed), not in colour."""
        return self.image.ndim == 2

    def past_ends(self) -> tuple[np.ndarray, float]:
        """The image that reaches furthest past the text's ends, and its columns before this
        strip's first (the two are unwrapped at one scale, so they differ equally at each end)."""
        if self.beyond is None:
            return self.image, 0.0
        further = self.beyond()
        return further, (further.shape[1] - self.image.shape[1]) / 2.0


@dataclass(frozen=True)
class SealStrips:
    """Everything to read for one seal. `rim`: candidate images of the rim (the reader keeps
    the best prior-weighted reading); `arcs`: the candidates of each other arc; `lines`: inner
    lines; `interiors`: images whose lines must still be found (the fallbacks: the classical
    path's interior, a rectangular seal's inside in both 180-degree orientations, preferred in
    order)."""

    rim: tuple[Strip, ...] = ()
    arcs: tuple[tuple[Strip, ...], ...] = ()
    lines: tuple[np.ndarray, ...] = ()
    interiors: tuple[np.ndarray, ...] = ()


def framed(image: np.ndarray, params: StripParams = DEFAULT_STRIP) -> np.ndarray:
    """`image` with a white frame, scaled to the strip height and narrowed by `squeeze`."""
    scale = image.shape[0]
    rows, cols = round(params.blank_rows * scale), round(params.blank * scale)
    pad = ((rows, rows), (cols, cols)) + (((0, 0),) if image.ndim == 3 else ())
    padded = np.pad(image, pad, constant_values=WHITE)
    width = max(1, round(padded.shape[1] * params.squeeze * params.height / padded.shape[0]))
    return cv2.resize(padded, (width, params.height), interpolation=cv2.INTER_AREA)


def stretch_colour(image: np.ndarray) -> np.ndarray:
    """A colour strip with the same linear stretch on every channel, read off its darkest
    channel: pale ink darker, paper white, hues kept (see `ink.stretch_contrast`)."""
    darkest = image.min(axis=2)
    dark, light = (float(v) for v in np.percentile(darkest, [STRETCH_DARK, STRETCH_LIGHT]))
    if light - dark < 1.0:
        return image
    scaled = (image.astype(np.float32) - dark) * (WHITE / (light - dark))
    return scaled.clip(0, WHITE).astype(np.uint8)


def arc_strip(
    image: np.ndarray, crop: SealCrop, arc: TextArc, params: StripParams = DEFAULT_STRIP
) -> np.ndarray:
    """The arc unwrapped from `image` (the colour crop or the ink image), tops up."""
    strip = unwrap_band(image, crop.local, arc.band, params.height, start=arc.start, span=arc.span)
    if arc.turned:
        strip = np.ascontiguousarray(strip[::-1, ::-1])
    return framed(stretch_contrast(strip) if strip.ndim == 2 else stretch_colour(strip), params)


def arc_strips(
    crop: SealCrop, arc: TextArc, params: StripParams = DEFAULT_STRIP, group: int = 0
) -> tuple[Strip, ...]:
    """The arc from the ink image and from the colour crop."""
    return (
        Strip(arc_strip(crop.gray, crop, arc, params), 1.0, group),
        Strip(arc_strip(crop.bgr, crop, arc, params), params.colour_prior, group),
    )


def extended(crop: SealCrop, arc: TextArc, params: StripParams = DEFAULT_STRIP) -> TextArc:
    """`arc` with `beyond` band heights more at each end, short of the middle of its gap."""
    middle = (arc.band.outer + arc.band.inner) / 2.0
    more = params.beyond * arc.band.height / arc_length(crop.local, middle)
    more = max(0.0, min(more, (1.0 - arc.span) / 2.0 - GAP_KEPT))
    return replace(arc, start=(arc.start - more) % 1.0, span=arc.span + 2.0 * more)


def _reaching_past(crop: SealCrop, arc: TextArc, strip: Strip, params: StripParams) -> Strip:
    """A strip with its arc unwrapped further too (`Strip.beyond`)."""
    longer = extended(crop, arc, params)
    if longer.span <= arc.span:
        return strip
    source = crop.gray if strip.from_ink else crop.bgr
    return replace(strip, beyond=partial(arc_strip, source, crop, longer, params))


def rim_strips(crop: SealCrop, text: SealText, params: StripParams = DEFAULT_STRIP) -> tuple[Strip, ...]:
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


def _line(image: np.ndarray, quad: np.ndarray) -> np.ndarray | None:
    try:
        cut = crop_quad(image, quad)
    except ValueError:  # a degenerate box
        return None
    return cut if min(cut.shape[:2]) >= MIN_LINE_PX else None


def line_images(crop: SealCrop, quads: tuple[np.ndarray, ...]) -> tuple[np.ndarray, ...]:
    """The inner lines cut upright from the colour crop, specks left out."""
    return tuple(line for quad in quads if (line := _line(crop.bgr, quad)) is not None)


def located_strips(crop: SealCrop, text: SealText, params: StripParams = DEFAULT_STRIP) -> SealStrips:
    """What to read of a seal whose text the detector located."""
    return SealStrips(
        rim=rim_strips(crop, text, params),
        arcs=tuple(arc_strips(crop, arc, params) for arc in text.arcs),
        lines=line_images(crop, text.inner),
    )
