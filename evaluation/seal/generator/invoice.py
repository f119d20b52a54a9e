"""Invoice pages (增值税发票), paper and electronic, with their supervision and seller seals.

The form is printed in one red-brown (orange-brown) ink: title, the double rule under it,
table rules and labels. The 全国统一发票监制章 is printed in the header under the title, which
overlaps it. The data (buyer, goods, amounts, seller) is machine-printed in blue or black, on
paper often out of register with the form (`invoice_form` draws both). The seller stamps the
发票专用章 near 销售方：（章） at the bottom right, over the table's rules and labels, or in the
goods area or the remarks box. An e-invoice is the same form rendered: white, sharp, and its
seals are solid e-seal images.
"""

from __future__ import annotations

import numpy as np
from imgproc.arrays import Pixels
from PIL import Image

from . import invoice_text, vocab
from .designs import CODE_PATTERN, INVOICE_SEMI_MAJOR_MM, invoice_spec, random_spec, supervision_spec
from .document import Request, fitted, paper
from .invoice_data import draw_data
from .invoice_form import Form, draw_form, draw_title, new_form
from .placement import ANYWHERE, STAMP_PAD, Box, Ink, Spot, Stamp, stamp_seal
from .render import SealSpec
from .texture import Finish, digital_colour, ink_colour

PAPER_WIDTH_MM = 240.0  # a VAT invoice sheet; its scan spans the sheet
SCREEN_WIDTH_MM = 210.0  # an e-invoice renders an A5-landscape page
SUPERVISION_ONLY_PROBABILITY = 0.3  # of one-seal invoices: the header seal and no seller seal yet
SUPERVISION_IN_FORM_INK = 0.35  # the 监制章 is printed red, or in the form's own brown
SUPERVISION_DROP = (0.7, 1.2)  # its centre below the title's middle, in title sizes
SUPERVISION_SHIFT = (-0.03, 0.08)  # its centre right of the page's middle, in page widths
SELLER_SPOTS = (  # (x, y) in page fractions, weight: where sellers stamp
    ((0.8, 0.92), 0.65),  # over 销售方：（章） and the table's bottom rule
    ((0.3, 0.5), 0.15),  # in the goods area
    ((0.78, 0.8), 0.2),  # in the remarks box (备注)
)
SELLER_JITTER = 0.04  # of the page width around the spot
SELLER_TILT_DEG = 25.0  # sellers stamp by hand, sometimes well askew
NATURAL_PPM = 6.0  # the scale `random_spec` sizes are drawn at (a 1400 px scan of an A4-ish page)


def _ppm(form: Form, request: Request) -> float:
    """Pixels per millimetre of the seals: the form's scale, or what the request's size asks."""
    if request.diameter is not None:
        return request.diameter / (2.0 * INVOICE_SEMI_MAJOR_MM)
    return form.width / (SCREEN_WIDTH_MM if form.electronic else PAPER_WIDTH_MM)


def _wants_supervision(rng: np.random.Generator, request: Request) -> bool:
    if request.n_seals == 0 or request.shape not in (None, "oval"):
        return False
    return request.n_seals > 1 or bool(rng.random() < SUPERVISION_ONLY_PROBABILITY)


def _seller_spec(rng: np.random.Generator, ppm: float, shape: str | None) -> SealSpec:
    if shape in (None, "oval"):
        return invoice_spec(rng, ppm)
    return fitted(random_spec(rng, shape), 2.0 * INVOICE_SEMI_MAJOR_MM * ppm)


def _extra_spec(rng: np.random.Generator, ppm: float, shape: str | None) -> SealSpec:
    """Another seal on the invoice: a 现金付讫 box, a receiver's company seal, and the like."""
    spec = random_spec(rng, shape)
    return fitted(spec, 2.0 * max(spec.axes) * ppm / NATURAL_PPM)


def _seller_spot(rng: np.random.Generator, form: Form) -> Spot:
    weights = np.array([weight for _, weight in SELLER_SPOTS])
    (x, y), _ = SELLER_SPOTS[int(rng.choice(len(SELLER_SPOTS), p=weights / weights.sum()))]
    target = (x * form.width, y * form.height)
    return Spot(target, SELLER_JITTER * form.width, SELLER_TILT_DEG, cut_probability=0.0)


def _supervision_spot(rng: np.random.Generator, form: Form) -> Spot:
    title_x, title_y = form.title_centre
    x = title_x + rng.uniform(*SUPERVISION_SHIFT) * form.width
    return Spot((x, title_y + rng.uniform(*SUPERVISION_DROP) * form.title_size), 0.0, 0.0, 0.0)


def _supervision_ink(rng: np.random.Generator, form: Form) -> Ink:
    """The 监制章 is printed with the form: red, or the form's own brown."""
    finish = Finish.DIGITAL if form.electronic else Finish.PRINTED
    if rng.random() < SUPERVISION_IN_FORM_INK:
        return Ink(form.ink, finish)
    return Ink(tuple(digital_colour(rng) if form.electronic else ink_colour(rng)), finish)


def _stamp_ink(rng: np.random.Generator, form: Form) -> Ink:
    """A seal stamped on paper, or an e-seal on an e-invoice."""
    if form.electronic:
        return Ink(tuple(digital_colour(rng)), Finish.DIGITAL)
    return STAMP_PAD


def _seller_identity(rng: np.random.Generator, spec: SealSpec | None) -> tuple[str, str]:
    """The seller's name and tax ID as printed: those on its seal, where the seal has them."""
    if spec is None or spec.shape == "rect":
        return invoice_text.seller(rng), vocab.tax_id(rng)
    ids = [text for text in spec.inner_texts if CODE_PATTERN.fullmatch(text)]
    return spec.rim_text, ids[0] if ids else vocab.tax_id(rng)


def _specs(rng: np.random.Generator, form: Form, request: Request) -> tuple[SealSpec | None, list[SealSpec]]:
    """The 监制章 (if any), then the seller's seal and any others."""
    ppm = _ppm(form, request)
    supervision = supervision_spec(rng, ppm, form.place) if _wants_supervision(rng, request) else None
    count = request.n_seals - (supervision is not None)
    if count <= 0:
        return supervision, []
    others = [_extra_spec(rng, ppm, request.shape) for _ in range(count - 1)]
    return supervision, [_seller_spec(rng, ppm, request.shape), *others]


def _printed(
    rng: np.random.Generator, form: Form, supervision: SealSpec | None, taken: list[Box]
) -> tuple[Pixels, list[Stamp | None]]:
    """The sheet with the form printed and the 监制章 printed under where the title goes."""
    sheet = (
        np.full((form.height, form.width, 3), 255, np.uint8) if form.electronic else paper(rng, *form.size)
    )
    canvas = Image.fromarray(sheet)
    draw_form(rng, canvas, form)
    page = np.asarray(canvas).copy()
    if supervision is None:
        return page, []
    spot = _supervision_spot(rng, form)
    return page, [stamp_seal(rng, page, supervision, taken, _supervision_ink(rng, form), spot)]


def draw(
    rng: np.random.Generator, size: tuple[int, int] | None, request: Request, electronic: bool
) -> tuple[Pixels, list[Stamp]]:
    """An invoice with `request.n_seals` seals: the printed 监制章, the seller's, and any more."""
    form = new_form(rng, size, electronic)
    supervision, sellers = _specs(rng, form, request)
    taken: list[Box] = []
    page, stamps = _printed(rng, form, supervision, taken)
    canvas = Image.fromarray(page)
    draw_title(canvas, form)
    draw_data(rng, canvas, form, _seller_identity(rng, sellers[0] if sellers else None))
    page = np.asarray(canvas).copy()
    for index, spec in enumerate(sellers):
        spot = _seller_spot(rng, form) if index == 0 else ANYWHERE
        stamps.append(stamp_seal(rng, page, spec, taken, _stamp_ink(rng, form), spot))
    return page, [stamp for stamp in stamps if stamp is not None]
