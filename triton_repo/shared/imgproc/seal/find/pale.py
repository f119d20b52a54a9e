"""Pale orange-red seals: a faint or blurred impression whose ink drifts towards orange.

A small seal on a thumbnail, blurred and pale, has a ring of hue 5-12 at saturation 50-70:
half of it falls in the mask's vermilion band, which takes only strongly saturated ink
(invoice forms' brownish-orange print lies there), so the ring breaks into pieces no shape
fits. Such seals are sought once more in the red mask with a lower vermilion floor, held to
stricter checks than red ones: ellipses only, inked almost all round, (nearly) whole on the sheet,
and ink whose median hue is red rather than orange (a brown emblem's ring and an orange
rosette pass the lower floor too, at median hue 11-13; these seals' at 7-8).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from ..ink import InkParams


@dataclass(frozen=True)
class PaleParams:
    """The pass for pale orange-red seals on a coloured page, and its stricter checks."""

    # Off: measured on the corpus tuning part (docs/seal/README.md, "Tried and not kept").
    enabled: bool = False
    # Vermilion ink counts from this saturation (the red mask's floor: 120); the rings of
    # blurred thumbnail seals run at 50-70.
    vermilion_min_saturation: int = 50
    min_coverage: float = 0.93  # of the outline inked (red seals: 0.9)
    # Of the outline on the sheet, at least: a brown desk at a photo's edge, cut by it, shows
    # half a ring (red seals: `FitParams.min_visible_fraction`, 0.4).
    min_visible: float = 0.9
    # The ink's median hue at most this: the seals this pass is for lie at 7-8, a brown
    # emblem's ring and an orange rosette at 11-13 (red seals: `FindParams.max_median_hue`).
    max_median_hue: float = 10.0


DEFAULT_PALE = PaleParams()


def pale_ink(ink: InkParams, params: PaleParams) -> InkParams:
    """The red-ink definition with the pale pass's vermilion floor."""
    return replace(ink, vermilion_min_saturation=params.vermilion_min_saturation)
