"""The encoder-decoder BLS loop (`seq2seq_recognition`) against a plain reference, on real Triton.

The reference is greedy decoding written out here with ONNX Runtime, one strip at a time, over
the same committed encoder_model.onnx and decoder_model.onnx the server runs: the BLS loop
(batched, through Triton, the encoder's states passed by DLPack, the decoder's past key/values
kept between steps as its config says) must produce the same tokens, which shows in the same
texts and the same scores. With the past it must also read as without it and as a plain
with-past reference (decoder_with_past_model.onnx fed its own presents, as optimum runs it);
beam search likewise against the same search over plain ONNX Runtime, with and without the
past. The seal model, with the encoder-decoder as its only recogniser, reads a page through
it as the in-process harness does. The server loads only these models (and, for the fault
tests, FAKE decoders that fail on purpose mid-loop, without and with the past, each with a
BLS model over it), so it starts in seconds.
"""

from __future__ import annotations

import asyncio
import json
import shutil
import time
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from functools import cache
from pathlib import Path

import numpy as np
import onnxruntime as ort
import pytest
import tritonclient.grpc as grpcclient
from imgproc.seal.config import DEFAULT_CONFIG, with_overrides
from imgproc.text.seq2seq import (
    VOCAB_FILE,
    Seq2SeqSpec,
    beam_search,
    fit_strip,
    padded_batch,
    pixel_values,
    row_score,
)
from PIL import Image, ImageDraw
from tritonclient.utils import InferenceServerException

from evaluation.seal.dataset import generated_pages
from evaluation.seal.inprocess import InProcessSeal
from evaluation.seal.seq2seq import variant, with_parameters
from evaluation.support.text_corpus import font_paths, load_font
from gateway.local_triton import TRITON_REPO, LocalTriton

pytestmark = pytest.mark.integration
MODELS = TRITON_REPO / "models"
FAKES = Path(__file__).resolve().parents[1] / "support" / "triton_models"
ENCODER, DECODER, BLS = "seal_seq2seq_encoder", "seal_seq2seq_decoder", "seq2seq_recognition"
STATS_WAIT_S = 5.0  # how long Triton's request counts are polled for (`_successes`)
WITH_PAST = "seal_seq2seq_decoder_with_past"  # the served BLS model keeps the past (its config)
BEAM_BLS, BEAMS = "seq2seq_recognition_beam", 3  # the same BLS model with num_beams set
# ... and both without the past: every step re-reads the whole prefix through DECODER
NO_PAST_BLS, NO_PAST_BEAM_BLS = "seq2seq_recognition_without_past", "seq2seq_recognition_beam_without_past"
NO_PAST = {"decoder_with_past_model": ""}
# FAKE decoders failing mid-loop, without the past and with it, each with a BLS model over it
FAKE_DECODER, FAKE_WITH_PAST = (
    "seal_seq2seq_decoder_with_fake_fault",
    "seal_seq2seq_decoder_with_past_with_fake_fault",
)
FAKE_BLS, FAKE_PAST_BLS = "seq2seq_recognition_with_fake_fault", "seq2seq_recognition_past_with_fake_fault"
SPEC = Seq2SeqSpec()  # the served config sets no spec parameter: the defaults are the model's
RIMS = ("上海星辰科技有限公司", "北京", "全国统一发票监制章", "深圳市宏图文化传媒有限公司合同专用章")


def _strip(text: str, height: int = 48) -> np.ndarray:
    """A rim-like strip: `text` in red on white, BGR."""
    font = load_font(font_paths("zh")[0], 32)
    image = Image.new("RGB", (max(1, 34 * len(text) + 24), height), "white")
    ImageDraw.Draw(image).text((12, 6), text, font=font, fill=(200, 30, 30))
    return np.ascontiguousarray(np.asarray(image)[:, :, ::-1])


@cache
def _sessions() -> tuple[ort.InferenceSession, ort.InferenceSession, list[str]]:
    encoder = ort.InferenceSession(str(MODELS / ENCODER / "1" / "encoder_model.onnx"))
    decoder = ort.InferenceSession(str(MODELS / DECODER / "1" / "decoder_model.onnx"))
    table: dict[str, int] = json.loads((MODELS / DECODER / "1" / VOCAB_FILE).read_text(encoding="utf-8"))
    return encoder, decoder, sorted(table, key=table.__getitem__)


def reference(strip: np.ndarray, limit: int = SPEC.max_length) -> tuple[list[int], str, float]:
    """Plain greedy decoding of one strip: (tokens, text, mean token probability)."""
    encoder, decoder, _ = _sessions()
    states = encoder.run(None, {"pixel_values": pixel_values(fit_strip(strip, SPEC)[None], SPEC)})[0]
    ids, probs = [SPEC.decoder_start_token_id], []
    while len(ids) - 1 < limit:
        logits = decoder.run(
            ["logits"], {"input_ids": np.array([ids], np.int64), "encoder_hidden_states": states}
        )
        last = logits[0][0, -1].astype(np.float64)
        chances = np.exp(last - last.max()) / np.exp(last - last.max()).sum()
        ids.append(int(last.argmax()))
        probs.append(float(chances[ids[-1]]))
        if ids[-1] == SPEC.eos_token_id:
            break
    return ids[1:], _text(ids[1:]), float(np.mean(probs))


def _repository(target: Path) -> Path:
    """The four real models, the BLS model's variants, and the FAKE decoders with BLS models of
    their own over them."""
    for name in (ENCODER, DECODER, WITH_PAST, BLS):
        shutil.copytree(MODELS / name, target / name)
    for name in (FAKE_DECODER, FAKE_WITH_PAST):
        shutil.copytree(FAKES / name, target / name)
    shutil.copy(MODELS / DECODER / "1" / VOCAB_FILE, target / FAKE_DECODER / "1" / VOCAB_FILE)
    variant(target, MODELS / BLS, BEAM_BLS, {"num_beams": str(BEAMS)})
    variant(target, MODELS / BLS, NO_PAST_BLS, NO_PAST)
    variant(target, MODELS / BLS, NO_PAST_BEAM_BLS, {**NO_PAST, "num_beams": str(BEAMS)})
    variant(target, MODELS / BLS, FAKE_BLS, {**NO_PAST, "decoder_model": FAKE_DECODER})
    variant(target, MODELS / BLS, FAKE_PAST_BLS, {"decoder_with_past_model": FAKE_WITH_PAST})
    return target


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[grpcclient.InferenceServerClient]:
    repository = _repository(tmp_path_factory.mktemp("seq2seq") / "models")
    with LocalTriton(model_repository=repository) as triton:
        yield grpcclient.InferenceServerClient(triton.grpc_url)


def recognise(
    client: grpcclient.InferenceServerClient,
    strips: list[np.ndarray],
    model: str = BLS,
    widths: np.ndarray | None = None,
    max_length: int | None = None,
) -> tuple[list[str], np.ndarray]:
    images, own = padded_batch(strips)
    tensors = {"IMAGES": images, "WIDTHS": own if widths is None else widths}
    if max_length is not None:
        tensors["MAX_LENGTH"] = np.array([max_length], np.int32)
    inputs = []
    for name, value in tensors.items():
        tensor = grpcclient.InferInput(name, list(value.shape), "UINT8" if name == "IMAGES" else "INT32")
        tensor.set_data_from_numpy(value)
        inputs.append(tensor)
    result = client.infer(model, inputs)
    return [t.decode() for t in result.as_numpy("TEXTS")], result.as_numpy("SCORES")


def _assert_matches_reference(
    texts: list[str], scores: np.ndarray, strips: list[np.ndarray], limit: int
) -> None:
    for text, score, strip in zip(texts, scores, strips, strict=True):
        _, expected, mean = reference(strip, limit)
        assert text == expected
        assert score == pytest.approx(mean, abs=1e-4)


def test_the_bls_loop_decodes_exactly_as_plain_greedy_decoding(
    client: grpcclient.InferenceServerClient,
) -> None:
    strips = [_strip(text) for text in RIMS] + [np.full((48, 200, 3), 255, np.uint8)]
    lengths = {len(reference(strip)[0]) for strip in strips}
    assert len(lengths) > 1, "the batch should hold sequences that end at different steps"
    texts, scores = recognise(client, strips)
    _assert_matches_reference(texts, scores, strips, SPEC.max_length)


def test_an_empty_row_reads_as_nothing_and_the_others_as_alone(
    client: grpcclient.InferenceServerClient,
) -> None:
    strips = [_strip(RIMS[0]), _strip(RIMS[2]), _strip(RIMS[1])]
    widths = np.array([strips[0].shape[1], 0, strips[2].shape[1]], np.int32)
    texts, scores = recognise(client, strips, widths=widths)
    assert (texts[1], float(scores[1])) == ("", 0.0)
    _assert_matches_reference([texts[0], texts[2]], scores[[0, 2]], [strips[0], strips[2]], SPEC.max_length)


def test_an_empty_batch_answers_empty(client: grpcclient.InferenceServerClient) -> None:
    texts, scores = recognise(client, [])
    assert texts == [] and scores.shape == (0,)


def test_the_maximum_length_cuts_every_row(client: grpcclient.InferenceServerClient) -> None:
    strips = [_strip(text) for text in RIMS]
    assert any(len(reference(strip)[0]) > 2 for strip in strips)
    texts, scores = recognise(client, strips, max_length=2)
    _assert_matches_reference(texts, scores, strips, 2)
    assert all(len(text) <= 2 for text in texts)


@pytest.mark.parametrize(("bls", "faulty"), [(FAKE_BLS, FAKE_DECODER), (FAKE_PAST_BLS, FAKE_WITH_PAST)])
def test_a_decoder_failing_mid_loop_fails_only_its_request(
    client: grpcclient.InferenceServerClient, bls: str, faulty: str
) -> None:
    batches = [[_strip(RIMS[0])], [_strip(t) for t in RIMS[:3]], [_strip(RIMS[2]), _strip(RIMS[3])]]
    assert any(len(reference(strip)[0]) >= 3 for strip in batches[1]), "the fault comes at the third token"
    with ThreadPoolExecutor(len(batches)) as pool:
        futures = [pool.submit(recognise, client, batch, bls) for batch in batches]
        with pytest.raises(InferenceServerException, match=f"{faulty} is unavailable"):
            futures[1].result()
        answered = [futures[0].result(), futures[2].result()]
    for (texts, scores), batch in zip(answered, [batches[0], batches[2]], strict=True):
        _assert_matches_reference(texts, scores, batch, SPEC.max_length)


def test_widths_that_do_not_fit_are_a_bad_request(client: grpcclient.InferenceServerClient) -> None:
    strips = [_strip(RIMS[0]), _strip(RIMS[1])]
    with pytest.raises(InferenceServerException, match="WIDTHS must give one width"):
        recognise(client, strips, widths=np.array([5000, 10], np.int32))
    assert recognise(client, strips[:1])[0] == [reference(strips[0])[1]]  # and it still answers


def _text(ids: Sequence[int]) -> str:
    """What a token sequence says, in the committed vocabulary (special tokens left out)."""
    tokens = _sessions()[2]
    specials = {SPEC.decoder_start_token_id, SPEC.eos_token_id, SPEC.pad_token_id}
    return "".join(tokens[t] for t in ids if t not in specials and not tokens[t].startswith("<"))


def beam_reference(strip: np.ndarray) -> tuple[str, float]:
    """`imgproc.text.seq2seq.beam_search` over plain ONNX Runtime sessions of the same models,
    one strip alone: (text, mean token probability)."""
    encoder, decoder, _ = _sessions()
    states = encoder.run(None, {"pixel_values": pixel_values(fit_strip(strip, SPEC)[None], SPEC)})[0]

    async def decode(ids: np.ndarray, _parents: np.ndarray) -> np.ndarray:
        inputs = {"input_ids": ids, "encoder_hidden_states": np.repeat(states, len(ids), axis=0)}
        return np.asarray(decoder.run(["logits"], inputs)[0][:, -1])

    row = asyncio.run(beam_search(decode, 1, replace(SPEC, num_beams=BEAMS)))[0]
    return _text(row.tokens), row_score(row)


def test_the_bls_beam_search_decodes_as_the_reference_beam_search_batched(
    client: grpcclient.InferenceServerClient,
) -> None:
    strips = [_strip(text) for text in RIMS]
    texts, scores = recognise(client, strips, BEAM_BLS)
    expected = [beam_reference(strip) for strip in strips]
    assert texts == [text for text, _ in expected]
    assert list(scores) == [pytest.approx(score, abs=1e-4) for _, score in expected]
    print(f"beam {BEAMS}: {texts}; greedy: {[reference(strip)[1] for strip in strips]}")  # noqa: T201


@cache
def _with_past_session() -> ort.InferenceSession:
    return ort.InferenceSession(str(MODELS / WITH_PAST / "1" / "decoder_with_past_model.onnx"))


def past_reference(strip: np.ndarray, limit: int = SPEC.max_length) -> tuple[list[int], str, float]:
    """Plain greedy decoding of one strip with the past key/values, as optimum's ORTModel runs
    the two decoder graphs: the start token through decoder_model.onnx, then each token alone
    through decoder_with_past_model.onnx with the previous call's `present.*` as
    `past_key_values.*` (the encoder's from the first call, carried over)."""
    encoder, decoder, _ = _sessions()
    states = encoder.run(None, {"pixel_values": pixel_values(fit_strip(strip, SPEC)[None], SPEC)})[0]
    start = np.array([[SPEC.decoder_start_token_id]], np.int64)
    logits, cache = _logits_and_past(decoder, {"input_ids": start, "encoder_hidden_states": states}, {})
    tokens: list[int] = []
    probs: list[float] = []
    while not tokens or (tokens[-1] != SPEC.eos_token_id and len(tokens) < limit):
        last = logits.astype(np.float64)
        chances = np.exp(last - last.max()) / np.exp(last - last.max()).sum()
        tokens.append(int(last.argmax()))
        probs.append(float(chances[tokens[-1]]))
        feeds = {"input_ids": np.array([[tokens[-1]]], np.int64), **cache}
        logits, cache = _logits_and_past(_with_past_session(), feeds, cache)
    return tokens, _text(tokens), float(np.mean(probs))


def _logits_and_past(
    session: ort.InferenceSession, feeds: dict[str, np.ndarray], cache: dict[str, np.ndarray]
) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """One decoder call: its last position's logits, and the cache with its presents as pasts."""
    outputs = dict(
        zip([output.name for output in session.get_outputs()], session.run(None, feeds), strict=True)
    )
    presents = {n.replace("present.", "past_key_values."): v for n, v in outputs.items() if n != "logits"}
    return outputs["logits"][0, -1], {**cache, **presents}


@pytest.mark.parametrize("limit", [SPEC.max_length, 3])
def test_the_bls_loop_with_past_decodes_as_without_and_as_the_plain_past_reference(
    client: grpcclient.InferenceServerClient, limit: int
) -> None:
    strips = [_strip(text) for text in RIMS] + [np.full((48, 200, 3), 255, np.uint8)]
    expected = [past_reference(strip, limit) for strip in strips]
    calls = _successes(client, WITH_PAST)
    texts, scores = recognise(client, strips, BLS, max_length=limit)
    steps = max(len(tokens) for tokens, _, _ in expected)
    # Each step after the first calls the with-past decoder once.
    assert _successes(client, WITH_PAST, calls + steps - 1) - calls == steps - 1
    assert (texts, list(scores)) == _approx(recognise(client, strips, NO_PAST_BLS, max_length=limit))
    for text, score, strip, (tokens, want, mean) in zip(texts, scores, strips, expected, strict=True):
        assert tokens == reference(strip, limit)[0]  # the two plain references agree token for token
        assert (text, score) == (want, pytest.approx(mean, abs=1e-4))


def test_the_bls_beam_search_with_past_is_the_beam_search_without(
    client: grpcclient.InferenceServerClient,
) -> None:
    strips = [_strip(text) for text in RIMS]
    widths = np.array([strip.shape[1] for strip in strips[:2]] + [0] + [strips[3].shape[1]], np.int32)
    for given in (None, widths):
        texts, scores = recognise(client, strips, BEAM_BLS, widths=given)
        assert (texts, list(scores)) == _approx(recognise(client, strips, NO_PAST_BEAM_BLS, widths=given))
    assert texts[2] == "" and texts[0] == beam_reference(strips[0])[0]


def _successes(client: grpcclient.InferenceServerClient, model: str, awaited: int | None = None) -> int:
    """`model`'s count of successful requests once it has reached `awaited` (or, with None,
    stopped changing), polled for up to `STATS_WAIT_S`: Triton counts a request a BLS model
    made once that request is released, which may be just after the BLS model has answered
    (a CI run once read one call short)."""
    deadline, last = time.monotonic() + STATS_WAIT_S, -1
    while True:
        stats = client.get_inference_statistics(model, as_json=True)["model_stats"][0]
        count = int(stats["inference_stats"]["success"].get("count", 0))
        settled = count >= awaited if awaited is not None else count == last
        if settled or time.monotonic() > deadline:
            return count
        last = count
        time.sleep(0.1)


def _approx(answer: tuple[list[str], np.ndarray]) -> tuple[list[str], list[object]]:
    return answer[0], [pytest.approx(float(score), abs=1e-5) for score in answer[1]]


# The seal model with the encoder-decoder as its only recogniser, and what it calls.
SEAL_MODELS = ("seal", "seal_text_detection", "text_detection", "text_direction", "text_recognition")
SEAL_OVERRIDES = {"read.recognisers.first": BLS, "read.recognisers.others": ""}


def _seal_repository(target: Path) -> Path:
    """The seal model and what it calls, its recognisers replaced by `SEAL_OVERRIDES`."""
    for name in (*SEAL_MODELS, ENCODER, DECODER, WITH_PAST, BLS):
        shutil.copytree(MODELS / name, target / name)
    config = (target / "seal" / "config.pbtxt").read_text()
    (target / "seal" / "config.pbtxt").write_text(with_parameters(config, SEAL_OVERRIDES))
    return target


def test_the_seal_model_reads_rims_through_the_encoder_decoder_as_in_process(
    tmp_path: Path,
) -> None:
    page = next(iter(generated_pages(20261124, 1, 0, style="plain")))
    config = with_overrides(DEFAULT_CONFIG, SEAL_OVERRIDES)
    expected = [reading.rim_text for reading in InProcessSeal(MODELS, config=config).readings(page.image)]
    with LocalTriton(model_repository=_seal_repository(tmp_path / "models")) as triton:
        client = grpcclient.InferenceServerClient(triton.grpc_url)
        image = grpcclient.InferInput("IMAGE", [1, len(page.image)], "UINT8")
        image.set_data_from_numpy(np.frombuffer(page.image, np.uint8)[None])
        result = client.infer("seal", [image])
    rims = [text.decode() for text in result.as_numpy("RIM_TEXTS")]
    assert expected and rims == expected
