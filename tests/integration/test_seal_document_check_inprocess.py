"""The seal checked against the document it stamps, through the seal model's own functions with
the real models in-process (`evaluation.seal.inprocess`, as `python -m evaluation.seal.document`
measures it): a real e-invoice of seals-dev, its seller's seal linked to the seller its labels
name, and the same invoice stamped with another real invoice's seller seal instead."""

from __future__ import annotations

import pytest
from imgproc.imaging import decode_rgb
from imgproc.seal.records import DocumentCheck, PageReading

from evaluation.seal.dataset import SEALS_DEV, TruthPage, TruthSeal, without_seals
from evaluation.seal.inprocess import InProcessSeal
from evaluation.seal.stamps import as_png, stamped

pytestmark = pytest.mark.integration
INVOICE = SEALS_DEV / "seal_101.png"  # an e-invoice render: 深圳市白云航空旅游有限公司's
OTHER = SEALS_DEV / "seal_104.png"  # another seller's e-invoice: 深圳市宝安区老七卤鹅餐厅's
SELLER = "深圳市白云航空旅游有限公司"


@pytest.fixture(scope="module")
def reader() -> InProcessSeal:
    return InProcessSeal()


def checked(reader: InProcessSeal, image: bytes) -> tuple[PageReading, DocumentCheck]:
    page = reader.page(image, check_document=True)
    assert page.document is not None
    return page, page.document


def test_an_invoices_seller_seal_is_linked_to_the_seller_its_labels_name(reader: InProcessSeal) -> None:
    page, document = checked(reader, INVOICE.read_bytes())
    assert document.kind == "invoice"
    seller = next(party for party in document.parties if party.role == "seller")
    assert (seller.text, seller.source, seller.tax_id) == (SELLER, "label", "91440300192478382J")
    assert len(document.links) == len(page.seals)
    linked = [j for j, link in enumerate(document.links) if link is not None and link.role == "seller"]
    assert [page.seals[j].rim_text for j in linked] == [SELLER]
    assert document.verdict == "seller_sealed", document.reasons


def test_another_sellers_seal_stamped_on_the_invoice_is_called_so(reader: InProcessSeal) -> None:
    own, _ = checked(reader, INVOICE.read_bytes())
    other, _ = checked(reader, OTHER.read_bytes())
    target = next(seal for seal in own.seals if seal.rim_text == SELLER).region.box
    donor = next(seal for seal in other.seals if "卤鹅" in seal.rim_text).region.box
    truth = TruthPage("invoice", "real", "", INVOICE.read_bytes(), (TruthSeal(target, "oval", SELLER),))
    blank = without_seals(truth)
    assert blank is not None
    x0, y0, x1, y1 = donor
    page = stamped(decode_rgb(blank.image), decode_rgb(OTHER.read_bytes())[y0:y1, x0:x1], target)
    _, document = checked(reader, as_png(page))
    assert document.verdict == "seller_seal_mismatch", document.reasons
    assert any(SELLER in reason for reason in document.reasons)
