"""/v1/mnist end to end: real HTTP, the real gateway, the real local Triton and models."""

from __future__ import annotations

import io
import time
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor

import cv2
import httpx
import numpy as np
import pytest
import tritonclient.grpc as grpcclient
from PIL import Image

from evaluation.support.digits import load_mnist, photo_style
from evaluation.support.servers import free_port, serve_gateway
from gateway.local_triton import LocalTriton
from gateway.settings import Settings

pytestmark = pytest.mark.integration
CLIENT_THREADS = 8
HELDOUT_TARGET = 0.99
PHOTO_TARGET = 0.97


def png(array: np.ndarray) -> bytes:
    ok, encoded = cv2.imencode(".png", array)
    assert ok
    return encoded.tobytes()


def post_image(http: httpx.Client, data: bytes, name: str = "digit.png") -> httpx.Response:
    return http.post("/v1/mnist", files={"image": (name, data, "application/octet-stream")})


def labels_of(http: httpx.Client, uploads: Iterable[bytes]) -> list[int]:
    """Post concurrently (so Triton batches) and return the predicted labels in order."""

    def one(data: bytes) -> int:
        response = post_image(http, data)
        assert response.status_code == 200, response.text
        return int(response.json()["label"])

    with ThreadPoolExecutor(CLIENT_THREADS) as pool:
        return list(pool.map(one, uploads))


def accuracy(predicted: list[int], truth: np.ndarray) -> float:
    return float(np.mean(np.asarray(predicted) == truth))


@pytest.fixture(scope="module")
def heldout() -> tuple[np.ndarray, np.ndarray]:
    return load_mnist("heldout")


def test_heldout_digits_at_99_percent(http: httpx.Client, heldout: tuple[np.ndarray, np.ndarray]) -> None:
    images, labels = heldout
    score = accuracy(labels_of(http, (png(image) for image in images)), labels)
    print(f"held-out accuracy through the full stack: {score:.4f} on {len(labels)} digits")  # noqa: T201
    assert score >= HELDOUT_TARGET


def test_photo_style_digits_at_97_percent(http: httpx.Client, heldout: tuple[np.ndarray, np.ndarray]) -> None:
    images, labels = heldout
    rng = np.random.default_rng(20261122)
    photos = [photo_style(image, rng) for image in images]
    score = accuracy(labels_of(http, photos), labels)
    print(f"photo-style accuracy through the full stack: {score:.4f} on {len(labels)} photos")  # noqa: T201
    assert score >= PHOTO_TARGET


def test_response_shape(http: httpx.Client, heldout: tuple[np.ndarray, np.ndarray]) -> None:
    body = post_image(http, png(heldout[0][0])).json()
    assert body["label"] == int(heldout[1][0])
    assert len(body["probabilities"]) == 10 and abs(sum(body["probabilities"]) - 1) < 1e-4
    assert body["model"] == {"name": "mnist", "version": "1"}


def test_every_decodable_format(http: httpx.Client, heldout: tuple[np.ndarray, np.ndarray]) -> None:
    digit, label = heldout[0][1], int(heldout[1][1])
    for fmt in ("PNG", "JPEG", "WEBP", "BMP", "TIFF", "GIF"):
        buffer = io.BytesIO()
        Image.fromarray(digit).resize((112, 112)).save(buffer, fmt)
        response = post_image(http, buffer.getvalue())
        assert response.status_code == 200, (fmt, response.text)
        assert response.json()["label"] == label, fmt


def test_exif_orientation_is_honoured(http: httpx.Client, heldout: tuple[np.ndarray, np.ndarray]) -> None:
    images, labels = heldout
    index = int(np.flatnonzero(labels == 7)[0])  # a 7 rotated a quarter turn is not a 7
    rotated = Image.fromarray(np.rot90(images[index], k=1).copy())  # stored turned 90 CCW
    exif = Image.Exif()
    exif[0x0112] = 6  # "rotate 90 CW to view": the viewer turns it back upright
    buffer = io.BytesIO()
    rotated.resize((112, 112)).save(buffer, "JPEG", exif=exif.tobytes(), quality=95)
    assert post_image(http, buffer.getvalue()).json()["label"] == 7


def test_concurrent_requests_are_batched(
    http: httpx.Client, triton: LocalTriton, heldout: tuple[np.ndarray, np.ndarray]
) -> None:
    def counts() -> tuple[int, int]:
        with grpcclient.InferenceServerClient(triton.grpc_url) as client:
            stats = client.get_inference_statistics("mnist_classifier").model_stats[0]
        return stats.inference_count, stats.execution_count

    before = counts()
    labels_of(http, (png(image) for image in heldout[0][:400]))
    # A backend reports a request's statistics just after sending its response: the last
    # requests may be counted a moment after the gateway has answered.
    deadline = time.monotonic() + 5.0
    while (after := counts())[0] - before[0] < 400 and time.monotonic() < deadline:
        time.sleep(0.1)
    inferences, executions = (now - prior for now, prior in zip(after, before, strict=True))
    assert inferences == 400
    assert executions < inferences, "dynamic batching never combined two requests"


def test_a_bad_image_fails_only_itself(http: httpx.Client, heldout: tuple[np.ndarray, np.ndarray]) -> None:
    good = [png(image) for image in heldout[0][:24]]
    corrupt = good[0][:60] + b"\x00" * 200  # a valid PNG header over broken pixel data
    uploads = [corrupt if i % 4 == 0 else data for i, data in enumerate(good)]
    with ThreadPoolExecutor(CLIENT_THREADS) as pool:
        responses = list(pool.map(lambda data: post_image(http, data), uploads))
    for i, response in enumerate(responses):
        if i % 4 == 0:
            assert response.status_code == 422 and response.json()["error"]["code"] == "invalid_image"
        else:
            assert response.status_code == 200 and response.json()["label"] == int(heldout[1][i])


def big_blank_png(width: int, height: int) -> bytes:
    buffer = io.BytesIO()
    Image.new("1", (width, height)).save(buffer, "PNG")
    return buffer.getvalue()


ERROR_CASES: dict[str, tuple[Callable[[httpx.Client], httpx.Response], int, str]] = {
    "empty": (lambda h: post_image(h, b""), 400, "empty_upload"),
    "missing field": (lambda h: h.post("/v1/mnist", files={"file": ("a.png", b"x")}), 422, "missing_field"),
    "no body": (lambda h: h.post("/v1/mnist"), 415, "unsupported_media_type"),
    "text": (lambda h: post_image(h, b"just some text, not an image"), 415, "unsupported_media_type"),
    "svg": (
        lambda h: post_image(h, b"<svg xmlns='http://www.w3.org/2000/svg'/>"),
        415,
        "unsupported_media_type",
    ),
    "too large": (
        lambda h: post_image(h, b"\x89PNG\r\n\x1a\n" + bytes(11 * 2**20)),
        413,
        "payload_too_large",
    ),
    "truncated": (lambda h: post_image(h, b"\xff\xd8\xff\xe0\x00\x10JFIF"), 422, "invalid_image"),
    "pixel bomb": (lambda h: post_image(h, big_blank_png(8000, 7000)), 422, "invalid_image"),
}


@pytest.mark.parametrize("case", ERROR_CASES)
def test_error_classes(http: httpx.Client, case: str) -> None:
    send, status, code = ERROR_CASES[case]
    response = send(http)
    assert response.status_code == status, response.text
    error = response.json()["error"]
    assert (error["status"], error["code"]) == (status, code) and error["message"]
    assert http.get("/healthz").status_code == 200


def test_the_service_survives_hostile_input(http: httpx.Client, triton: LocalTriton) -> None:
    rng = np.random.default_rng(7)
    for _ in range(30):
        junk = (
            b"\x89PNG\r\n\x1a\n" + rng.integers(0, 256, int(rng.integers(0, 5000)), dtype=np.uint8).tobytes()
        )
        assert post_image(http, junk).status_code in (400, 415, 422)
    assert triton.is_running()
    assert http.get("/readyz").status_code == 200


def test_triton_down_is_503(gateway_settings: Settings, heldout: tuple[np.ndarray, np.ndarray]) -> None:
    nowhere = gateway_settings.model_copy(
        update={"triton_url": f"127.0.0.1:{free_port()}", "request_timeout_s": 2}
    )
    with serve_gateway(nowhere) as url, httpx.Client(base_url=url) as http:
        response = post_image(http, png(heldout[0][0]))
        assert response.status_code == 503 and response.headers["retry-after"]
        assert http.get("/readyz").status_code == 503
        assert http.get("/healthz").status_code == 200


def test_deadline_exceeded_is_504(gateway_settings: Settings, heldout: tuple[np.ndarray, np.ndarray]) -> None:
    impatient = gateway_settings.model_copy(update={"request_timeout_s": 0.0005})
    with serve_gateway(impatient) as url, httpx.Client(base_url=url) as http:
        response = post_image(http, png(heldout[0][0]))
        assert response.status_code == 504
        assert response.json()["error"]["code"] == "upstream_timeout"


def test_metrics_after_requests(http: httpx.Client, heldout: tuple[np.ndarray, np.ndarray]) -> None:
    post_image(http, png(heldout[0][0]))
    post_image(http, b"")
    text = http.get("/metrics").text
    assert (
        'gateway_http_request_duration_seconds_count{method="POST",route="/v1/mnist",status_class="2xx"}'
        in text
    )
    assert 'gateway_triton_request_duration_seconds_count{model="mnist",outcome="ok"}' in text
    assert "gateway_http_requests_in_flight" in text
    assert 'gateway_upload_size_bytes_count{route="/v1/mnist"}' in text
    assert 'gateway_rejections_total{reason="empty_upload"}' in text


@pytest.mark.parametrize("page", ["/docs", "/redoc"])
def test_docs_work_offline(http: httpx.Client, page: str) -> None:
    html = http.get(page).text
    assert "https://" not in html and "http://" not in html
    assets = [part.split('"')[0] for part in html.split('="/static/')[1:]]
    assert assets, "the docs page loads no local assets"
    for asset in assets:
        assert http.get(f"/static/{asset}").status_code == 200, asset
    spec = http.get("/openapi.json").json()
    assert "multipart/form-data" in spec["paths"]["/v1/mnist"]["post"]["requestBody"]["content"]


def test_the_ensemble_is_callable_by_any_triton_client(
    triton: LocalTriton, heldout: tuple[np.ndarray, np.ndarray]
) -> None:
    data = np.frombuffer(png(heldout[0][2]), dtype=np.uint8)[None]
    tensor = grpcclient.InferInput("IMAGE", list(data.shape), "UINT8")
    tensor.set_data_from_numpy(data)
    with grpcclient.InferenceServerClient(triton.grpc_url) as client:
        probabilities = client.infer("mnist", [tensor]).as_numpy("PROBABILITIES")
    assert probabilities.shape == (1, 10)
    assert int(probabilities.argmax()) == int(heldout[1][2])
