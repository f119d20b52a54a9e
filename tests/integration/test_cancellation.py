"""Work nobody waits for stops (REAL Triton, real seal model, real gateway over HTTP).

A page of more seals than one request reads is refused before any is read; a request whose
client hangs up, or whose deadline passes, is cancelled in the seal model too, which says so
in Triton's log under the request's id. Before, a page of 100 seals held the seal model past
its 504, and a page sent 2 s after it got its own 504 after 30 s; a page of 24 seals past a
5 s deadline had its 104 strips read for nobody (10 now: the calls already in flight).
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator

import httpx
import pytest
from PIL import Image

from evaluation.support.servers import serve_gateway
from gateway.local_triton import LocalTriton
from gateway.settings import Settings
from tests.support.seal_pages import as_pdf, png, seal_grid

pytestmark = pytest.mark.integration
MAX_SEALS = 24  # SealConfig.max_seals, the seal model's default
# Twenty seals take the seal model about 11 s on two cores: long enough to hang up within.
LONG_PAGE = (4, 5)
HANG_UP_S = 1.0
# The gateway's own deadline is 30 s: a cancellation logged well before it is the hang-up's.
CANCEL_SEEN_WITHIN_S = 15.0


@pytest.fixture(scope="module")
def long_page() -> bytes:
    return png(seal_grid(*LONG_PAGE))


def cancelled_in_triton(triton: LocalTriton, request_id: str, within_s: float) -> bool:
    """Whether Triton's log says the request was cancelled, polled for `within_s` seconds."""
    deadline = time.monotonic() + within_s
    while time.monotonic() < deadline:
        said = f"request {request_id} trace "  # pymodel.failed: `request <id> trace <id>: cancelled`
        if any(
            said in line and ": cancelled" in line
            for line in triton.log_path.read_text(errors="replace").splitlines()
        ):
            return True
        time.sleep(0.2)
    return False


def upload(data: bytes, kind: str = "image/png") -> dict[str, tuple[str, bytes, str]]:
    return {"image": ("page", data, kind)}


def test_a_page_of_more_seals_than_are_read_is_refused_before_any_is_read(http: httpx.Client) -> None:
    response = http.post("/v1/seal", files=upload(png(seal_grid(5, 6))))
    assert response.status_code == 422, response.text
    message = response.json()["error"]["message"]
    assert message.startswith("refused: 30 seals found on one page") and f"at most {MAX_SEALS}" in message


def test_a_pdf_page_of_too_many_seals_is_refused_with_its_page_number(http: httpx.Client) -> None:
    pages = [Image.fromarray(seal_grid(1, 1)[..., ::-1]), Image.fromarray(seal_grid(5, 6)[..., ::-1])]
    response = http.post("/v1/seal", files=upload(as_pdf(pages), "application/pdf"), timeout=120)
    assert response.status_code == 422, response.text  # the page's content, not a model down (503)
    assert response.json()["error"]["message"].startswith("page 2: refused: 30 seals found")


def test_a_client_that_hangs_up_stops_its_seal_request_in_triton(
    triton: LocalTriton, gateway_url: str, http: httpx.Client, long_page: bytes
) -> None:
    request_id = f"hang-up-{uuid.uuid4().hex[:8]}"
    with pytest.raises(httpx.ReadTimeout):
        httpx.post(
            f"{gateway_url}/v1/seal",
            files=upload(long_page),
            headers={"X-Request-ID": request_id},
            timeout=httpx.Timeout(60.0, read=HANG_UP_S),
        )
    assert cancelled_in_triton(triton, request_id, CANCEL_SEEN_WITHIN_S)
    metrics = http.get("/metrics").text
    assert 'gateway_triton_request_duration_seconds_count{model="seal",outcome="cancelled"}' in metrics
    assert 'route="/v1/seal",status_class="4xx"' in metrics  # recorded as 499, not as a 5xx


@pytest.fixture
def impatient_gateway(triton: LocalTriton) -> Iterator[str]:
    settings = Settings(triton_url=triton.grpc_url, ready_models=("seal",), request_timeout_s=HANG_UP_S)
    with serve_gateway(settings) as url:
        yield url


def test_a_request_past_its_deadline_is_cancelled_in_the_seal_model_too(
    triton: LocalTriton, impatient_gateway: str, long_page: bytes
) -> None:
    request_id = f"deadline-{uuid.uuid4().hex[:8]}"
    headers = {"X-Request-ID": request_id}
    url = f"{impatient_gateway}/v1/seal"
    response = httpx.post(url, files=upload(long_page), headers=headers, timeout=60)
    assert response.status_code == 504
    assert cancelled_in_triton(triton, request_id, CANCEL_SEEN_WITHIN_S)
