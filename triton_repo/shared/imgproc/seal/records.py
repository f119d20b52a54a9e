"""The records the seal reader's stages hand each other, in the order the data flows.

    page ─find─▶ WorkingInk, blobs ─fit─▶ SealRegion ─cut─▶ SealCrop ─locate─▶ Located
         ─unwrap─▶ SealStrips ─read─▶ Readings ─repair─▶ SealReading ─trust─▶ SealEvidence
         ─(the page's seals)─▶ PageReading ─(the page's lines: parties)─▶ DocumentCheck

Each stage reads the record before it and writes the one after it; nothing else passes
between stages (find and fit are one search: find hands fit each blob, docs/seal/README.md).
Coordinates: a `SealRegion` is in page pixels; `SealCrop.local` and every later record in crop
pixels. An elliptic outline's parameter `t` runs clockwise on screen
from the `a` axis; a perimeter share is the arc length from there, as a share of the whole.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from enum import Enum

from imgproc.arrays import Floats, Mask, Pixels
from imgproc.text import Decoded
from imgproc.text.ctc import Frames

from .runs import Run

Line = tuple[str, float]  # a line's text and the confidence it was read with
Box = tuple[int, int, int, int]  # x0, y0, x1, y1, exclusive ends


class Shape(str, Enum):
    """A seal's outline, and what it says about the seal's layout. Its value is the name the
    API reports."""

    ROUND = "round"
    OVAL = "oval"
    RECT = "rect"

    @property
    def is_elliptic(self) -> bool:
        """Round and oval seals carry their rim text curved along the outline."""
        return self is not Shape.RECT

    @property
    def has_axes(self) -> bool:
        """An oval's axes say where its top is, up to a half turn: its text is centred on the
        short axis. A circle's say nothing."""
        return self is Shape.OVAL

    @property
    def has_star(self) -> bool:
        """Round seals carry a star above their inner lines."""
        return self is Shape.ROUND


@dataclass(frozen=True)
class Outline:
    """An ellipse or a rectangle: centre, semi-axes (half sides) with the first the longer,
    and the first axis's angle in degrees from the image x axis (clockwise on screen). A fit
    says only ellipse (`OVAL`) or `RECT`; a found seal's `SealRegion` says round or oval."""

    shape: Shape
    center: tuple[float, float]
    axes: tuple[float, float]
    angle_deg: float

    @property
    def is_elliptic(self) -> bool:
        """True for round and oval outlines, whose rim text is curved."""
        return self.shape.is_elliptic

    def scaled(self, factor: float) -> Outline:
        """The same outline with its axes scaled about its centre."""
        return replace(self, axes=(self.axes[0] * factor, self.axes[1] * factor))


@dataclass(frozen=True)
class SealRegion(Outline):
    """One seal found on the page (fit's output): its outline in the page's pixels, its box
    clipped to the page, whether the outline leaves the image, and the share of the outline
    that carries ink."""

    box: Box
    cut: bool
    border_coverage: float


@dataclass(frozen=True)
class WorkingInk:
    """What find hands fit: the working-size ink mask; the same grown a pixel (faint, speckled
    rings read as continuous); the printed rules in it (cut out of a blob no shape fits); and
    the sheet a photo shows (`paper`) with the part of it not within the edge margin of its
    edge (`fitted`), both None where the paper fills the image."""

    ink: Mask
    thick: Mask
    rules: Mask
    paper: Mask | None = None
    fitted: Mask | None = None


@dataclass(frozen=True)
class SealCrop:
    """A seal and the pixels around it (cut's output). `region` is in page pixels, `local` in
    crop pixels."""

    region: SealRegion
    local: SealRegion
    bgr: Pixels  # the colour crop, BGR as the text models take it
    gray: Pixels  # ink image: the seal's strokes dark, paper and other print white
    mask: Mask  # seal ink
    page: Pixels | None = None  # the page it was cut from (RGB), for reading around it


@dataclass(frozen=True)
class Band:
    """A band of text along the outline, as insets (pixels inwards from the fitted outline)."""

    outer: float
    inner: float

    @property
    def height(self) -> float:
        """Radial thickness of the band in pixels."""
        return self.inner - self.outer

    @property
    def middle(self) -> float:
        """The inset halfway through the band."""
        return (self.outer + self.inner) / 2.0


@dataclass(frozen=True)
class TextArc:
    """Text along the outline: between two insets, from perimeter share `start` over `span`
    (clockwise); `turned` text has its tops towards the centre (read the strip turned)."""

    band: Band
    start: float
    span: float
    turned: bool = False
    # Where the arc's own text ends inwards, where the detector merged what lies inside with it
    # and the band reaches past that (`locate`); None: at the band's inner edge. Only the
    # inner lines are told from the arc by it: the band is what is read.
    text_inner: float | None = None

    @property
    def centre(self) -> float:
        """The arc's middle as a perimeter share."""
        return (self.start + self.span / 2.0) % 1.0

    @property
    def text_band(self) -> Band:
        """The band down to where the arc's own text ends."""
        inner = self.band.inner if self.text_inner is None else min(self.band.inner, self.text_inner)
        return Band(self.band.outer, inner)


@dataclass(frozen=True)
class SealText:
    """Where the learned detector says one seal's text is (locate's output): the rim, the
    other arcs, the inner lines (quads in crop pixels, corners tl, tr, br, bl in the seal's
    upright frame), the seal's up direction (a unit vector, image frame) and the detector's
    mean probability over its inside (`locate.detect.text_inside`)."""

    rim: TextArc
    arcs: tuple[TextArc, ...]
    inner: tuple[Floats, ...]
    up: Floats
    text_inside: float = 0.0


@dataclass(frozen=True)
class Candidate:
    """One way of reading a classically located rim: columns of the unwrapped band, whether
    the strip is turned 180 degrees, and the prior weight of its reading."""

    run: Run
    turned: bool
    prior: float


@dataclass(frozen=True)
class ClassicalText:
    """Where the ink profile says an elliptic seal's text is, when the detector found no rim
    (locate's fallback output): the rim band, that band unwrapped all round (the rim
    candidates are columns of it), the bottom-arc code (None without one), the seal's up
    direction, where no code fills the rim's gap, the rim's start and length as perimeter
    shares (the interior may reach into the gap), and the detector's mean probability over its
    inside (`locate.detect.text_inside`: the detector ran, and found no rim)."""

    band: Band
    full: Pixels
    candidates: tuple[Candidate, ...]
    code: TextArc | None
    up: Floats
    rim_shares: tuple[float, float] | None
    text_inside: float = 0.0


@dataclass(frozen=True)
class RectText:
    """A rectangular seal (locate's output for it): its inside is read whole, long side level,
    `up` first and then turned half round. The detector does not read it: `text_inside` is 0."""

    up: Floats
    text_inside: float = 0.0


Located = SealText | ClassicalText | RectText


@dataclass(frozen=True)
class Strip:
    """A candidate image of one line of text and the prior weight of its reading's score.
    Candidates of one `group` show the same text (one arc from two sources), so their
    readings are each other's alternatives."""

    image: Pixels
    prior: float = 1.0
    group: int = 0
    # The same, unwrapped further at both ends (`past_ends`): made only when asked for, since
    # only the chosen reading's strip is looked past (two to four unwraps a seal, about 4 ms each).
    beyond: Callable[[], Pixels] | None = None

    @property
    def from_ink(self) -> bool:
        """Whether it was cut from the ink image (grey: other print removed), not in colour."""
        return self.image.ndim == 2

    def past_ends(self) -> tuple[Pixels, float]:
        """The image that reaches furthest past the text's ends, and its columns before this
        strip's first (the two are unwrapped at one scale, so they differ equally at each end)."""
        if self.beyond is None:
            return self.image, 0.0
        further = self.beyond()
        return further, (further.shape[1] - self.image.shape[1]) / 2.0


@dataclass(frozen=True)
class SealStrips:
    """Everything to read of one seal (unwrap's output). `rim`: candidate images of the rim
    (the reader keeps the best prior-weighted reading); `arcs`: the candidates of each other
    arc; `lines`: inner lines; `interiors`: images whose lines must still be found (the
    classical path's interior; a rectangular seal's inside both ways up, preferred in order);
    `detected`: the seal text detector found the rim, and `text_inside`: its mean probability
    over the seal's inside (both evidence that the region is a seal)."""

    rim: tuple[Strip, ...] = ()
    arcs: tuple[tuple[Strip, ...], ...] = ()
    lines: tuple[Pixels, ...] = ()
    interiors: tuple[Pixels, ...] = ()
    detected: bool = False
    text_inside: float = 0.0


@dataclass(frozen=True)
class RimSource:
    """One rim candidate as one recogniser read it: its per-frame probabilities (what a text is
    scored on), the candidate's group (its geometry: one arc, one way up) and prior."""

    frames: Frames
    group: int
    prior: float
    recogniser: str


@dataclass(frozen=True)
class Readings:
    """What the recognisers read of one seal (read's output): the rim's reading with its
    alternatives and characters put in (None without rim candidates), every rim candidate's
    probabilities by every recogniser that read it (`sources`, the chosen reading's group
    `group`), the chosen reading of each other arc and of each inner line, in that order, and
    the lines found and read in its interiors (in the orientation that read best)."""

    rim: Decoded | None
    lines: tuple[Decoded, ...] = ()
    found: tuple[Line, ...] = ()
    sources: tuple[RimSource, ...] = ()
    group: int = 0


@dataclass(frozen=True)
class RimEvidence:
    """What a rim's reading rests on (trust's input to its score): its support (the log of how
    well its frames read it against their own best reading, at most 0), the share of its
    group's sources that agree with it, the mean probability of its characters as read, its
    length in characters, whether it ends as an organisation's name does (`words.RIM_ENDINGS`),
    whether it is a standard rim (`words.STANDARD_RIMS`) and the share of its characters that
    the word list's words cover (`words.Words.word_share`)."""

    support: float
    agreement: float
    confidence: float
    length: int
    named: bool = False
    standard: bool = False
    worded: float = 0.0


@dataclass(frozen=True)
class Match:
    """A seal's best expected name, one it carries (found: `trust.found_score`), and how sure it
    is that the seal says it."""

    text: str
    score: float


@dataclass(frozen=True)
class Verdict:
    """An expected name: whether a seal of the page says it, how sure that is, and which seal
    (its index; None when not found)."""

    text: str
    found: bool
    score: float
    seal: int | None


@dataclass(frozen=True)
class RegionSigns:
    """What a found region looks like, beside what was read in it (trust's seal score rests on
    both): its area as a share of the page's, the share of its inside that carries seal ink,
    the share of that ink lying on its ring (near the outline), whether the seal text
    detector found a rim in it and its mean probability over the inside (round and oval
    regions; a rectangle is never detected)."""

    page_share: float = 0.0
    ink_fill: float = 0.0
    ring_ink: float = 0.0
    detected: bool = False
    text_inside: float = 0.0


@dataclass(frozen=True)
class SealReading:
    """The text of one seal (repair's output, then trust's): rim, inner lines and number codes,
    with confidences (trust's calibrated probabilities once the page is answered); the rim's
    score is trust's calibrated probability that it reads exactly, with the evidence it rests
    on; `match`, the seal's best expected name where names are expected and it carries one;
    `score`, trust's probability that the region is a real seal, from what was read and the
    region's `signs`."""

    region: SealRegion
    rim_text: str
    rim_score: float
    inner: list[Line] = field(default_factory=list)
    codes: list[Line] = field(default_factory=list)
    evidence: RimEvidence | None = None
    match: Match | None = None
    score: float = 1.0  # the probability that the region is a real seal (`trust.region`)
    signs: RegionSigns = field(default_factory=RegionSigns)

    @property
    def code_texts(self) -> tuple[str, ...]:
        """The codes as read, without their scores."""
        return tuple(text for text, _ in self.codes)


@dataclass(frozen=True)
class SealEvidence:
    """trust -> the page: one seal's trusted answer and its rim's sources, what the names
    a caller expects are checked against."""

    reading: SealReading
    sources: tuple[RimSource, ...]


@dataclass(frozen=True)
class Party:
    """A party the page names (`parties`): its role ("seller", "buyer", "party_a", "party_b",
    "party_c", "issuer" or "named"), its organisation name as printed (normalized as expected
    names are), the box of the line it was read from (page pixels), the rule that found it
    ("label": a label such as 销售方名称 or 甲方 names it; "layout": an organisation name printed
    near a seal or at the page's head or foot; "rim": a seal's rim printed whole on a line near
    it), an invoice party's printed tax ID, and the
    confidence the page's reader read its line with (not answered: what a seal's link weighs)."""

    role: str
    text: str
    box: Box
    source: str
    tax_id: str | None = None
    confidence: float = 1.0


@dataclass(frozen=True)
class PartyLink:
    """A seal linked to one party of `DocumentCheck.parties` (its index and role), and the
    probability that the seal is that party's (scored as an expected name is)."""

    index: int
    role: str
    score: float


@dataclass(frozen=True)
class DocumentCheck:
    """A page's seals checked against the parties it names: the kind of document ("invoice",
    "contract", "certificate" or "other"), the parties, one link per seal of the
    `PageReading` in its order (None: the seal is none of the parties'), and the verdict in a
    word with the reasons for it in sentences."""

    kind: str
    parties: list[Party]
    links: list[PartyLink | None]
    verdict: str
    reasons: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class PageReading:
    """Every seal of a page, largest first, the verdict on each expected name, and, where it
    was asked for, the seals checked against the parties the page names."""

    seals: list[SealReading]
    expected: list[Verdict] = field(default_factory=list)
    document: DocumentCheck | None = None
