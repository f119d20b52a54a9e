"""How likely a found region is a real seal at all (`SealReading.score`).

Red things that are not seals (a shop sign, a poster's title, a logo, a red date) can pass the
finding stages. What was read in a region says much of what it is: a real seal's outline
carries ink all round, and its rim reads as a name with a calibrated score, often with an inner
line or a code. The score is a logistic model of those (`seal_inputs`), fitted by `python -m
evaluation.seal.trust` on the real tuning parts, every found region a case: real where it
overlaps a labelled seal, false elsewhere (pages without a seal, red print, signs and posters).
"""

from __future__ import annotations

import math

import numpy as np

from ..geometry import render
from ..records import RegionSigns, SealCrop, SealReading
from .evidence import sigmoid
from .params import DEFAULT_TRUST, TrustParams


def region_signs(
    crop: SealCrop, detected: bool, text_inside: float, params: TrustParams = DEFAULT_TRUST
) -> RegionSigns:
    """How the found region looks (`RegionSigns`), from its crop: its area against the page's,
    and its seal ink inside the outline and on the ring (`TrustParams.ring_scales`); beside
    them what the seal text detector said of it (`detected`, `text_inside`)."""
    local = crop.local
    height, width = crop.mask.shape[:2]
    inner, outer = params.ring_scales
    inside = render(local, (height, width))
    within = render(local.scaled(outer), (height, width))
    ring = within & ~render(local.scaled(inner), (height, width))
    ink = crop.mask.astype(bool)
    inked = np.count_nonzero(ink & within)
    factor = math.pi if local.is_elliptic else 4.0  # an ellipse's area over a*b, a rectangle's
    page = crop.page.shape[0] * crop.page.shape[1] if crop.page is not None else height * width
    return RegionSigns(
        page_share=min(1.0, factor * local.axes[0] * local.axes[1] / max(1, page)),
        ink_fill=np.count_nonzero(ink & inside) / max(1, np.count_nonzero(inside)),
        ring_ink=np.count_nonzero(ink & ring) / inked if inked else 0.0,
        detected=detected,
        text_inside=text_inside,
    )


def han_chars(texts: list[str]) -> int:
    """How many of the characters read are Chinese: seals are inscribed in Chinese, a red sign
    or a badge read as 'K', '315' or 'GPANGDONG UNIVIRSHLY' is not."""
    return sum("\u4e00" <= char <= "\u9fff" for text in texts for char in text)


def han_share(texts: list[str]) -> float:
    """The share of the characters read (spaces aside) that are Chinese (0 without text)."""
    count = sum(not char.isspace() for text in texts for char in text)
    return han_chars(texts) / count if count else 0.0


def seal_inputs(reading: SealReading) -> tuple[float, ...]:
    """The region's evidence of being a seal: its outline's inked share, its rim's score (0
    without a rim text), the log of its rim's length, whether it has inner lines, whether it has
    codes, whether it is rectangular, whether it leaves the image; the Chinese share of what was
    read and the log of its Chinese characters' count; and its `signs`: its share of the page,
    its inside's inked share, its ink's share on the ring (round and oval only: a rectangle's
    frame is all ring, a seal's or not), whether the detector found a rim, and its mean text
    probability over the inside (a seal is engraved with text all through; a logo, a badge or
    an emblem inside a red ring is not: 0 for a rectangle, which it does not read)."""
    text = reading.rim_text.strip()
    texts = [reading.rim_text, *(line for line, _ in reading.inner)]
    signs = reading.signs
    elliptic = reading.region.is_elliptic
    return (
        reading.region.border_coverage,
        reading.rim_score if text else 0.0,
        math.log1p(len(text)),
        float(bool(reading.inner)),
        float(bool(reading.codes)),
        float(not elliptic),
        float(reading.region.cut),
        han_share(texts),
        math.log1p(han_chars(texts)),
        signs.page_share,
        signs.ink_fill,
        signs.ring_ink if elliptic else 0.0,
        float(signs.detected),
        signs.text_inside,
    )


def seal_score(reading: SealReading, params: TrustParams = DEFAULT_TRUST) -> float:
    """The probability that the region is a real seal (`TrustParams.seal_weights`)."""
    intercept, *weights = params.seal_weights
    inputs = seal_inputs(reading)
    return sigmoid(intercept + sum(w * x for w, x in zip(weights, inputs, strict=True)))


def has_text(reading: SealReading) -> bool:
    """Whether anything was read in the region: a rim, an inner line or a code."""
    return bool(reading.rim_text.strip() or reading.inner or reading.codes)


def kept(reading: SealReading, params: TrustParams = DEFAULT_TRUST) -> bool:
    """A region is answered as a seal from `TrustParams.min_seal_score`, or, where nothing was
    read in it, from `TrustParams.textless_seal_score` (a red mark, not a seal anyone can use)."""
    least = params.min_seal_score if has_text(reading) else params.textless_seal_score
    return reading.score >= least
