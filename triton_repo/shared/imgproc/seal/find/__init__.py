"""find: a page in, every seal on it out (`SealRegion`s, largest first), fitted by fit.

The page's paper is made white (`balance`); red ink is masked without the tinted edges of
dark print (`fringes`), on the sheet a photo shows (`paper`), or, on a page without colour,
its toner is (`grey`); long printed rules are found (`rules`); the mask is closed into blobs
(`blobs`), each handed to fit, in three passes (`search`); a red shape with neighbouring
characters is a letter of a red title, not a seal (`textline`). `FindParams` holds every
threshold of the search; fit's own are in `fit.FitParams`.
"""

from .params import DEFAULT_FIND, FindParams
from .search import find_on_page, find_seals, find_seals_in_mask

__all__ = ["DEFAULT_FIND", "FindParams", "find_on_page", "find_seals", "find_seals_in_mask"]
