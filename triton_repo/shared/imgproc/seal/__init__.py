"""Chinese red-seal recognition for the seal BLS: a page in, every seal's text out.

The stages, each a package that reads one record and writes the next (`records`):

    page (RGB)
      │ find     balance the paper, mask red ink (or a photocopy's toner), close it into blobs
      ▼
    blobs ──fit──▶ SealRegion       an ellipse or rectangle, judged a seal by its ink (find runs
      │                             fit on each blob inside its passes: one search)
      │ cut                         the crop, its ink image and ink mask
      ▼
    SealCrop ──locate──▶ Located    where the text is: the learned detector's map read in the
      │                             seal's polar frame (rim, other arcs, inner lines), else
      │                             the ink's radial and angular profiles (classical)
      │ unwrap                      strips unwrapped along the arcs, inner lines cut upright
      ▼
    SealStrips ──read──▶ Readings   recognisers read; the best candidate wins; skipped
      │                             characters read again; codes read again stretched
      │ repair                      ends trimmed, words from the word list, legal forms and
      ▼                             standard texts restored, codes checked
    SealReading ──trust──▶ SealEvidence   calibrated scores, and the frames names are checked on
      │ (every seal of the page)
      ▼
    PageReading                     the seals kept, and each expected name's verdict

`pipeline.read_page` chains them with the models behind `pipeline.SealModels`. Below the
stages lie what they all speak: `records`, `geometry` (outlines, offset curves, unwrapping),
`runs` (columns round a band), `ink` (red ink and grey images) and `codes` (tax IDs and their
check characters). `config.SealConfig` holds every tunable, one class per stage.
"""

from .config import DEFAULT_CONFIG, SealConfig
from .find import find_seals, find_seals_in_mask
from .pipeline import SealModels, TooManySeals, read_page
from .records import SealReading, SealRegion, Shape

__all__ = [
    "DEFAULT_CONFIG",
    "SealConfig",
    "SealModels",
    "SealReading",
    "SealRegion",
    "Shape",
    "TooManySeals",
    "find_seals",
    "find_seals_in_mask",
    "read_page",
]
