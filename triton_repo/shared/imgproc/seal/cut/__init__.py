"""cut: a seal found on the page in (`SealRegion`), its crop out (`SealCrop`): the colour
pixels around it, its ink image and ink mask (`ink_image`, thresholds adapted to its own
ink), and its outline in crop pixels (`crop`). `CutParams` holds every threshold.
"""

from .crop import beside, crop_box, cut_seal, surroundings
from .ink_image import DEFAULT_CUT, CutParams, ink_gray_hsv

__all__ = ["DEFAULT_CUT", "CutParams", "beside", "crop_box", "cut_seal", "ink_gray_hsv", "surroundings"]
