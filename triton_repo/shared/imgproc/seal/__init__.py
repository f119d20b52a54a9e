"""Chinese red-seal recognition for the seal BLS: the stages, pure, with the models behind an
interface.

The modules follow the data (`pipeline.read_page` chains them):

- find: `ink` (the red-ink mask and the ink image without other print), `balance` (white
  balance), `rules` (long printed rules), `find`, `checks` and `fit` (seal regions and their
  outline, thresholds in `params`), on `shapes` (the region record, outline sampling);
- cut: `crop` (one seal's crop, ink image and ink mask);
- locate: `detect` (the learned seal text detector's tensors) and `locate` (the rim, the arcs
  in its gap and the inner lines, read from its map); `classical` (the fallback: `unwrap`'s
  band, `layout`'s gaps, `inner`'s interior), and rectangular seals;
- unwrap: `unwrap` (elliptic unwrapping) and `strips` (what the recognisers read);
- read: `read` (choosing among readings);
- repair: `repair` (ends, word list, legal forms, standard texts).

`config.SealConfig` gathers every tunable; the seal model's config.pbtxt may override them.
"""

from .find import find_seals, find_seals_in_mask
from .pipeline import SealModels, SealReading, read_page
from .shapes import SealRegion, Shape

__all__ = [
    "SealModels",
    "SealReading",
    "SealRegion",
    "Shape",
    "find_seals",
    "find_seals_in_mask",
    "read_page",
]
