"""The seal score's fit and report (evaluation.seal.regions) on hand-made regions: pure."""

from __future__ import annotations

from dataclasses import replace

from imgproc.seal.records import SealEvidence, SealReading, SealRegion, Shape
from imgproc.seal.trust import DEFAULT_TRUST

from evaluation.seal.cases import Cases, Region
from evaluation.seal.regions import fit_regions, region_report

RING = SealRegion(Shape.ROUND, (50.0, 50.0), (40.0, 40.0), 0.0, (10, 10, 90, 90), False, 0.9)


def _region(real: bool, page: str, text: str, coverage: float) -> Region:
    reading = SealReading(replace(RING, border_coverage=coverage), text, 0.95 if text else 0.0)
    return Region(SealEvidence(reading, ()), real, page, page)


def _cases() -> Cases:
    real = [_region(True, f"seal{i}", "上海星辰科技有限公司", 0.8 + 0.01 * i) for i in range(12)]
    false = [_region(False, f"sign{i}", "", 0.1 + 0.01 * i) for i in range(12)]
    return Cases(regions=real + false, empty_pages=[f"sign{i}" for i in range(12)])


def test_the_fitted_weights_score_read_seals_above_empty_marks() -> None:
    fitted = fit_regions(_cases().regions, _cases().empty_pages, lambda line: None)
    params = replace(DEFAULT_TRUST, seal_weights=fitted.weights, min_seal_score=fitted.min_seal_score)
    report = "\n".join(region_report(_cases(), params))
    assert "| **at least 0.90** | 12 of 12 | 12 | 1.000 (95% 0.76-1.00) |" in report
    assert "Pages without a seal: 0 of 12 answered with any seal" in report
    assert "0 of 0 regions there at 0.5 or more. Regions left out as unlikely seals: 12." in report


def test_with_every_region_at_one_half_the_empty_pages_are_answered() -> None:
    zeros = replace(DEFAULT_TRUST, seal_weights=(0.0,) * len(DEFAULT_TRUST.seal_weights))
    report = "\n".join(region_report(_cases(), zeros))
    assert "Pages without a seal: 12 of 12 answered with any seal; highest seal score there 0.500" in report
    assert "12 of 12 regions there at 0.5 or more" in report
    # the hand-made pages are all real ones, none painted out
    assert "real pages without a seal: 12 of 12 answered with any seal, 12 regions there at 0.5" in report
