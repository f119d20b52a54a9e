"""The try-it page at `/` in a real browser (Debian's chromium driven by Playwright) against
the real stack: a seal page and a text page uploaded through the file input, what is shown
checked against what the API answers (expected names found or not too), the API's error
message shown, no request leaving the host. Screenshots are kept in `test-artifacts/` for a
person to look at."""

from __future__ import annotations

import io
import random
import re
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import httpx
import pytest
from playwright.sync_api import Browser, Page, expect, sync_playwright

from evaluation.seal.dataset import generated_pages
from evaluation.support.pdf import as_pdf
from evaluation.support.servers import serve_gateway
from evaluation.support.text_corpus import render_page
from gateway.settings import Settings
from tests.integration import test_seal_document_check as document_check

pytestmark = pytest.mark.integration
CHROMIUM = Path(
    "/usr/bin/chromium"
)  # Debian's (scripts/system-packages.sh); Playwright's own is not reachable
# Flags for a closed network: no background services that phone home (see the env notes).
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"
ANSWER_TIMEOUT_MS = 120_000
ANSWERED = re.compile(r"answered in|^\d{3}: ")  # what the status says once an answer is in
SEAL_SEED = 20261124


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    assert CHROMIUM.exists(), "chromium is missing: run scripts/system-packages.sh"
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield browser
        browser.close()


@pytest.fixture
def page(browser: Browser, gateway_url: str) -> Iterator[tuple[Page, list[str]]]:
    """A fresh page and the URL of every request it makes."""
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    requests: list[str] = []
    page.on("request", lambda request: requests.append(request.url))
    yield page, requests
    context.close()
    hosts = {urlsplit(url).hostname for url in requests if not url.startswith(("blob:", "data:"))}
    assert hosts <= {urlsplit(gateway_url).hostname}, f"requests left the host: {hosts}"


def upload(page: Page, path: Path) -> None:
    """Pick a file (which runs the task) and wait for the answer or the error."""
    page.eval_on_selector("#status", "status => { status.textContent = ''; }")
    page.set_input_files("#file", str(path))
    expect(page.locator("#status")).to_have_text(ANSWERED, timeout=ANSWER_TIMEOUT_MS)


def test_a_seal_page_shows_its_seals_on_the_picture(
    page: tuple[Page, list[str]], gateway_url: str, http: httpx.Client, tmp_path: Path
) -> None:
    browser_page, requests = page
    truth = next(generated_pages(SEAL_SEED, 1, 0, style="plain"))
    image = tmp_path / "contract.png"
    image.write_bytes(truth.image)
    browser_page.goto(f"{gateway_url}/?task=seal")
    expect(browser_page.locator('input[value="seal"]')).to_be_checked()
    upload(browser_page, image)
    expect(browser_page.locator("#status")).to_contain_text("seal: answered in")
    answer = http.post("/v1/seal", files={"image": ("contract.png", truth.image)}, timeout=300).json()
    assert answer["seals"], "the generated page has a seal the service finds"
    shown = browser_page.locator(".seal-text .rim").all_inner_texts()
    assert shown == [seal["rim_text"] or "(no rim text)" for seal in answer["seals"]]
    width, height = browser_page.eval_on_selector("#canvas", "c => [c.width, c.height]")
    assert width > 0 and height > 0
    assert any(url.endswith("/v1/seal") for url in requests)
    ARTIFACTS.mkdir(exist_ok=True)
    browser_page.screenshot(path=str(ARTIFACTS / "page-seal.png"), full_page=True)


def test_expected_names_are_sent_and_shown_found_or_not_as_the_api_says(
    page: tuple[Page, list[str]], gateway_url: str, http: httpx.Client, tmp_path: Path
) -> None:
    browser_page, _ = page
    truth = next(generated_pages(SEAL_SEED, 1, 0, style="plain"))
    names = [next(seal.rim_text for seal in truth.seals if seal.rim_text), "北京某某某科技发展有限公司"]
    image = tmp_path / "contract.png"
    image.write_bytes(truth.image)
    browser_page.goto(f"{gateway_url}/?task=ocr")
    expect(browser_page.locator("#expect-label")).to_be_hidden()  # a seal's field only
    browser_page.check('input[value="seal"]')
    browser_page.fill("#expect", "\n".join(names) + "\n\n")
    upload(browser_page, image)
    files = [("image", ("contract.png", truth.image)), *(("expect", (None, name)) for name in names)]
    answer = http.post("/v1/seal", files=files, timeout=300).json()
    found = [verdict["found"] for verdict in answer["expected"]]
    assert found == [True, False], answer["expected"]
    shown = browser_page.locator("#verdicts li")
    expect(shown).to_have_count(2)  # one per name the answer holds: the blank lines were not sent
    assert [cls for cls in shown.evaluate_all("items => items.map(i => i.className)")] == ["found", "missing"]
    assert shown.nth(0).inner_text().startswith(f"✓ {names[0]}: found")
    assert shown.nth(1).inner_text().startswith(f"✗ {names[1]}: not found")
    ARTIFACTS.mkdir(exist_ok=True)
    browser_page.screenshot(path=str(ARTIFACTS / "page-seal-expected.png"), full_page=True)


def test_the_document_check_is_asked_for_and_its_verdict_and_parties_shown_as_the_api_says(
    page: tuple[Page, list[str]], gateway_url: str, http: httpx.Client, tmp_path: Path
) -> None:
    browser_page, _ = page
    invoice, _ = document_check.invoice()
    image = tmp_path / "invoice.jpg"
    image.write_bytes(invoice.image)
    browser_page.goto(f"{gateway_url}/?task=seal")
    browser_page.check("#check-document")
    upload(browser_page, image)
    files = {"image": ("invoice.jpg", invoice.image)}
    answer = http.post("/v1/seal", files=files, data={"check": "document"}, timeout=300).json()
    verdict = browser_page.locator("#verdicts li.verdict")
    expect(verdict).to_have_text(f"Verdict: {answer['verdict']['verdict']} ({answer['verdict']['kind']})")
    shown = browser_page.locator(".document-check .party").all_inner_texts()
    assert len(shown) == max(1, len(answer["parties"]))
    assert all(party["text"] in line for party, line in zip(answer["parties"], shown, strict=False))
    ARTIFACTS.mkdir(exist_ok=True)
    browser_page.screenshot(path=str(ARTIFACTS / "page-seal-document-check.png"), full_page=True)


def test_a_text_page_shows_selectable_text(
    page: tuple[Page, list[str]], gateway_url: str, http: httpx.Client, tmp_path: Path
) -> None:
    browser_page, _ = page
    rendered, _ = render_page(random.Random(7), "en")
    buffer = io.BytesIO()
    rendered.save(buffer, format="PNG")
    image = tmp_path / "letter.png"
    image.write_bytes(buffer.getvalue())
    browser_page.goto(f"{gateway_url}/?task=ocr")
    upload(browser_page, image)
    expect(browser_page.locator("#status")).to_contain_text("ocr: answered in")
    answer = http.post("/v1/ocr", files={"image": ("letter.png", buffer.getvalue())}, timeout=300).json()
    assert answer["text"]
    assert browser_page.locator("#text").inner_text() == answer["text"]
    ARTIFACTS.mkdir(exist_ok=True)
    browser_page.screenshot(path=str(ARTIFACTS / "page-ocr.png"), full_page=True)


def test_an_api_error_is_shown_as_the_api_says_it(
    page: tuple[Page, list[str]], gateway_url: str, tmp_path: Path
) -> None:
    browser_page, _ = page
    junk = tmp_path / "notes.png"
    junk.write_bytes(b"this is not an image")
    browser_page.goto(f"{gateway_url}/?task=mnist")
    upload(browser_page, junk)
    expect(browser_page.locator("#status")).to_have_class("error")
    expect(browser_page.locator("#status")).to_contain_text("415:")


def test_with_api_keys_the_page_asks_for_one_and_uses_it(
    browser: Browser, gateway_settings: Settings, tmp_path: Path
) -> None:
    key = "page-test-key-0123456789"
    settings = gateway_settings.model_copy(update={"api_keys": (key,)})
    rendered, _ = render_page(random.Random(5), "en")
    image = tmp_path / "letter.png"
    rendered.save(image)
    with serve_gateway(settings) as url:
        context = browser.new_context()
        browser_page = context.new_page()
        browser_page.goto(f"{url}/?task=ocr")
        upload(browser_page, image)
        expect(browser_page.locator("#status")).to_contain_text("401:")
        expect(browser_page.locator("#status")).to_contain_text("enter an API key")
        expect(browser_page.locator("#key-label")).to_have_class("wanted")
        browser_page.fill("#key", key)
        browser_page.dispatch_event("#key", "change")
        upload(browser_page, image)
        expect(browser_page.locator("#status")).to_contain_text("ocr: answered in")
        assert browser_page.evaluate("localStorage.getItem('gateway-api-key')") == key
        context.close()


STATUS_LOG = """() => {
  window.statusSeen = [];
  new MutationObserver(() => window.statusSeen.push(document.getElementById("status").textContent))
    .observe(document.getElementById("status"), { childList: true, characterData: true, subtree: true });
}"""


def test_a_pdf_shows_its_pages_as_they_are_read_with_a_count(
    page: tuple[Page, list[str]], gateway_url: str, tmp_path: Path
) -> None:
    browser_page, _ = page
    document = tmp_path / "scan.pdf"
    document.write_bytes(as_pdf([render_page(random.Random(seed), "en")[0] for seed in (9, 10, 11)]))
    browser_page.goto(f"{gateway_url}/?task=ocr")
    browser_page.evaluate(STATUS_LOG)
    with browser_page.expect_request(lambda request: request.url.endswith("/v1/ocr")) as sent:
        upload(browser_page, document)
    assert sent.value.headers["accept"].startswith("application/x-ndjson")
    expect(browser_page.locator("#status")).to_contain_text("ocr: 3 pages answered in")
    assert browser_page.locator("#text h3").all_inner_texts() == ["Page 1", "Page 2", "Page 3"]
    expect(browser_page.locator("#picture")).to_be_hidden()  # nothing to draw on: text takes the width
    seen = browser_page.evaluate("window.statusSeen")
    assert "ocr: 0 of 3 pages read..." in seen and "ocr: 1 of 3 pages read..." in seen, seen
    ARTIFACTS.mkdir(exist_ok=True)
    browser_page.screenshot(path=str(ARTIFACTS / "page-pdf.png"), full_page=True)
