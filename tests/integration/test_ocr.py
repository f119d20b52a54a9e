"""/v1/ocr end to end: real HTTP, the real gateway, the real local Triton and PP-OCRv4 models."""

from __future__ import annotations

import io
import random
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import httpx
import pytest
from PIL import Image, ImageDraw

from evaluation.support.text_corpus import font_paths, load_font, render_line, render_page
from evaluation.text import cer, page_text
from gateway.local_triton import LocalTriton

pytestmark = pytest.mark.integration
CLEAN_CER = 0.05
CLIENT_THREADS = 4


def encode(image: Image.Image, fmt: str = "PNG", **options: Any) -> bytes:
    buffer = io.BytesIO()
    image.convert("RGB").save(buffer, fmt, **options)
    return buffer.getvalue()


def ocr(http: httpx.Client, data: bytes, **params: Any) -> httpx.Response:
    return http.post("/v1/ocr", files={"image": ("upload", data, "application/octet-stream")}, params=params)


def read(http: httpx.Client, data: bytes, **params: Any) -> dict[str, Any]:
    response = ocr(http, data, **params)
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


def assert_well_formed(body: dict[str, Any], width: int, height: int) -> None:
    """Size as uploaded; every polygon and box inside the image; text is the lines joined."""
    assert (body["width"], body["height"]) == (width, height)
    assert body["model"]["name"] in ("ocr", "ocr_line") and body["model"]["version"]
    assert body["text"] == "\n".join(line["text"] for line in body["lines"])
    for line in body["lines"]:
        assert 0 <= line["score"] <= 1
        assert len(line["polygon"]) == 4
        for x, y in line["polygon"]:
            assert 0 <= x <= width and 0 <= y <= height
        x0, y0, x1, y1 = line["box"]
        assert 0 <= x0 <= x1 <= width and 0 <= y0 <= y1 <= height


def page(language: str, seed: str) -> tuple[Image.Image, tuple[str, ...]]:
    return render_page(random.Random(seed), language)


@pytest.mark.parametrize("language", ["en", "zh"])
def test_a_page_is_read_in_reading_order(http: httpx.Client, language: str) -> None:
    image, truth = page(language, f"test-ocr-page-{language}")
    body = read(http, encode(image))
    assert_well_formed(body, image.width, image.height)
    # CER over the lines joined in the order returned: out-of-order lines would cost dearly.
    assert cer(page_text(line["text"] for line in body["lines"]), page_text(truth)) < CLEAN_CER
    tops = [min(y for _, y in line["polygon"]) for line in body["lines"]]
    assert tops[0] == pytest.approx(min(tops), abs=20)  # the first line is at the top


def test_detect_false_reads_a_line_crop(http: httpx.Client) -> None:
    image, (truth,) = render_line(random.Random("test-ocr-line"), "en")
    body = read(http, encode(image), detect="false")
    assert_well_formed(body, image.width, image.height)
    assert body["model"]["name"] == "ocr_line"
    (line,) = body["lines"]
    assert line["polygon"] == [[0, 0], [image.width, 0], [image.width, image.height], [0, image.height]]
    assert cer(line["text"], truth) < CLEAN_CER


def test_a_tiny_word_crop_with_detection(http: httpx.Client) -> None:
    image = Image.new("L", (40, 20), 255)
    font = load_font(font_paths("en")[0], 14)
    ImageDraw.Draw(image).text((3, 1), "OK", fill=0, font=font)
    body = read(http, encode(image))
    assert_well_formed(body, 40, 20)
    assert "OK" in body["text"].upper()


@pytest.mark.parametrize("shade", [255, 0], ids=["white", "black"])
def test_a_blank_image_has_no_lines(http: httpx.Client, shade: int) -> None:
    body = read(http, encode(Image.new("L", (640, 480), shade)))
    assert_well_formed(body, 640, 480)
    assert body["lines"] == [] and body["text"] == ""


def screenshot() -> Image.Image:
    """A window: dark title bar with white text, a menu row, body text and a coloured button."""
    image = Image.new("RGB", (1024, 640), (246, 246, 246))
    draw, font = ImageDraw.Draw(image), load_font(font_paths("en")[0], 22)
    draw.rectangle((0, 0, 1024, 48), fill=(40, 44, 52))
    draw.text((16, 12), "Settings - Account", fill=(255, 255, 255), font=font)
    draw.text((16, 70), "File    Edit    View    Help", fill=(20, 20, 20), font=font)
    draw.text((16, 160), "Your password was changed yesterday.", fill=(60, 60, 60), font=font)
    draw.rectangle((16, 540, 216, 600), fill=(0, 120, 215))
    draw.text((60, 556), "Save changes", fill=(255, 255, 255), font=font)
    return image


def test_a_screenshot(http: httpx.Client) -> None:
    image = screenshot()
    body = read(http, encode(image))
    assert_well_formed(body, image.width, image.height)
    text = body["text"].replace(" ", "")
    for words in ("Settings-Account", "passwordwaschanged", "Savechanges"):
        assert words in text, body["text"]


def test_a_very_large_photo(http: httpx.Client, triton: LocalTriton) -> None:
    image = Image.new("L", (8000, 6000), 250)
    font, origin, words = load_font(font_paths("en")[0], 200), (600, 2600), "Large photo of a notice"
    ImageDraw.Draw(image).text(origin, words, fill=20, font=font)
    ink = ImageDraw.Draw(image).textbbox(origin, words, font=font)
    data = encode(image, "JPEG", quality=80)
    body = read(http, data)
    assert_well_formed(body, 8000, 6000)
    assert "Largephotoofanotice" in body["text"].replace(" ", "")
    # In upload pixels (not the 2000 px working image's): the box hugs the ink.
    box = body["lines"][0]["box"]
    assert all(abs(got - want) < 60 for got, want in zip(box, ink, strict=True)), (box, ink)
    assert triton.is_running()


def test_min_score_filters_lines(http: httpx.Client) -> None:
    image, _ = page("en", "test-ocr-min-score")
    data = encode(image)
    scores = sorted(line["score"] for line in read(http, data)["lines"])
    assert len(scores) >= 2
    threshold = (scores[0] + scores[-1]) / 2
    kept = read(http, data, min_score=threshold)["lines"]
    assert kept and all(line["score"] >= threshold for line in kept) and len(kept) < len(scores)
    assert ocr(http, data, min_score=2).status_code == 422


def test_raw_body(http: httpx.Client) -> None:
    image, truth = render_line(random.Random("test-ocr-raw"), "zh")
    response = http.post(
        "/v1/ocr", content=encode(image), headers={"content-type": "application/octet-stream"}
    )
    assert response.status_code == 200, response.text
    assert cer(response.json()["text"], truth[0]) < CLEAN_CER


def test_a_bad_image_fails_only_itself(http: httpx.Client) -> None:
    good = [encode(render_line(random.Random(f"test-ocr-mixed-{i}"), "en")[0]) for i in range(12)]
    uploads = [data[:60] + b"\x00" * 200 if i % 3 == 0 else data for i, data in enumerate(good)]
    with ThreadPoolExecutor(CLIENT_THREADS) as pool:
        responses = list(pool.map(lambda data: ocr(http, data), uploads))
    for i, response in enumerate(responses):
        if i % 3 == 0:
            assert response.status_code == 422, response.text
            assert response.json()["error"]["code"] == "invalid_image"
        else:
            assert response.status_code == 200 and response.json()["lines"], response.text


@pytest.mark.parametrize(
    ("data", "status", "code"),
    [
        (b"", 400, "empty_upload"),
        (b"just some text, not an image", 415, "unsupported_media_type"),
        (b"\xff\xd8\xff\xe0\x00\x10JFIF", 422, "invalid_image"),
    ],
    ids=["empty", "unsupported", "truncated"],
)
def test_error_classes(http: httpx.Client, data: bytes, status: int, code: str) -> None:
    for detect in ("true", "false"):
        response = ocr(http, data, detect=detect)
        assert response.status_code == status, response.text
        assert response.json()["error"]["code"] == code
