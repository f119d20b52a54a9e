"""EVALUATION: invoices stamped with another seller's seal, the negatives of the document check.

A seller's seal is lifted from one invoice (the pixels inside its labelled box that the reader
takes for red ink, in their own colour) and stamped onto another seller's invoice where that
invoice's own seal was, the page's own seals painted out first (`dataset.without_seals`). The
seal is then a real seal, read as any other, on a real invoice that names someone else: the
check must say that the seal is not the seller's.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import cv2
from imgproc.arrays import Pixels, as_pixels
from imgproc.imaging import decode_rgb
from imgproc.seal.ink import red_mask

from evaluation.seal.dataset import Box, TruthPage, TruthSeal, without_seals

STAMP_MARGIN = 0.15  # of a seal's box, taken round it when it is lifted, and given where it lands


def seller_seal(page: TruthPage) -> TruthSeal | None:
    """The page's seal whose owner is its seller, where its labels say so."""
    return next((s for s in page.seals if s.owner is not None and s.owner.role == "seller"), None)


def stamped(page: Pixels, seal: Pixels, box: Box) -> Pixels:
    """`page` with the seal's ink (an RGB crop) stamped centred on `box`, its longer side made
    the box's."""
    x0, y0, x1, y1 = box
    scale = max(x1 - x0, y1 - y0) / max(seal.shape[:2])
    width, height = max(int(seal.shape[1] * scale), 1), max(int(seal.shape[0] * scale), 1)
    ink = as_pixels(cv2.resize(seal, (width, height), interpolation=cv2.INTER_AREA))
    left, top = (x0 + x1 - width) // 2, (y0 + y1 - height) // 2
    out = page.copy()
    # The part of the stamp that falls on the page.
    px0, py0 = max(left, 0), max(top, 0)
    px1, py1 = min(left + width, page.shape[1]), min(top + height, page.shape[0])
    if px1 <= px0 or py1 <= py0:
        return out
    piece = ink[py0 - top : py1 - top, px0 - left : px1 - left]
    # The pixels the reader itself takes for red ink are lifted, in their own colour.
    lifted = red_mask(piece)
    out[py0:py1, px0:px1][lifted] = piece[lifted]
    return out


def as_png(rgb: Pixels) -> bytes:
    """An RGB page encoded as PNG (lossless: the stamp is read as it was stamped)."""
    return bytes(cv2.imencode(".png", cv2.cvtColor(rgb, cv2.COLOR_RGB2BGR))[1].tobytes())


def _grown(box: Box, by: float, width: int, height: int) -> Box:
    """`box` grown by `by` of its size on every side, within the page."""
    x0, y0, x1, y1 = box
    dx, dy = int((x1 - x0) * by), int((y1 - y0) * by)
    return max(x0 - dx, 0), max(y0 - dy, 0), min(x1 + dx, width), min(y1 + dy, height)


def _lifted(page: TruthPage, box: Box) -> Pixels:
    """The seal's crop, with a margin round its labelled box (labelled boxes are approximate,
    and a ring cut short is no seal)."""
    rgb = decode_rgb(page.image)
    x0, y0, x1, y1 = _grown(box, STAMP_MARGIN, rgb.shape[1], rgb.shape[0])
    return rgb[y0:y1, x0:x1]


def swapped(target: TruthPage, donor: TruthPage) -> TruthPage | None:
    """The target invoice without its seals, stamped with the donor's seller seal where its own
    was (None where its seals cover too much of it to paint out)."""
    own, theirs = seller_seal(target), seller_seal(donor)
    blank = without_seals(target)
    if own is None or theirs is None or blank is None:
        return None
    page = decode_rgb(blank.image)
    landing = _grown(own.box, STAMP_MARGIN, page.shape[1], page.shape[0])
    rgb = stamped(page, _lifted(donor, theirs.box), landing)
    encoded = as_png(rgb)
    name = f"{target.name} stamped with {donor.name}'s seller seal"
    seal = TruthSeal(own.box, theirs.shape, theirs.rim_text, theirs.inner_texts, theirs.codes)
    return TruthPage(
        name, target.group, target.split, encoded, (seal,), kind=target.kind, capture=target.capture
    )


def seller_swaps(pages: Sequence[TruthPage]) -> Iterator[TruthPage]:
    """Each invoice with a labelled seller's seal, stamped with the next such invoice's seal
    whose seller is another (in the part's order, round)."""
    invoices = [page for page in pages if page.kind == "invoice" and seller_seal(page) is not None]
    for n, target in enumerate(invoices):
        seller = seller_seal(target)
        assert seller is not None and seller.owner is not None
        later = [*invoices[n + 1 :], *invoices[:n]]
        donor = next((p for p in later if _seller_name(p) != seller.owner.text), None)
        page = None if donor is None else swapped(target, donor)
        if page is not None:
            yield page


def _seller_name(page: TruthPage) -> str | None:
    seal = seller_seal(page)
    return None if seal is None or seal.owner is None else seal.owner.text
