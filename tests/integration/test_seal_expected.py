"""The seal model checks expected names on the real Triton (the `EXPECTED` input): a seal's
true name is found on it, the same name with a character changed and another organisation's
name are not, and a request without names answers as before."""

from __future__ import annotations

import numpy as np
import pytest
import tritonclient.grpc as grpcclient
from tritonclient.utils import InferenceServerException

from evaluation.seal.dataset import generated_pages
from gateway.local_triton import LocalTriton

pytestmark = pytest.mark.integration
SEED = 20261127  # a generated page no tuning run used: one plain seal, read exactly


def _infer(triton: LocalTriton, image: bytes, names: list[str] | None) -> grpcclient.InferResult:
    client = grpcclient.InferenceServerClient(triton.grpc_url)
    inputs = [grpcclient.InferInput("IMAGE", [1, len(image)], "UINT8")]
    inputs[0].set_data_from_numpy(np.frombuffer(image, np.uint8)[None])
    if names is not None:
        inputs.append(grpcclient.InferInput("EXPECTED", [len(names)], "BYTES"))
        inputs[1].set_data_from_numpy(np.array([name.encode() for name in names], np.object_))
    return client.infer("seal", inputs)


def _page() -> tuple[bytes, str]:
    page = next(p for p in generated_pages(SEED, 8, 0, style="plain") if len(p.seals) == 1)
    (seal,) = page.seals
    assert seal.rim_text
    return page.image, seal.rim_text


def test_a_seals_true_name_is_found_and_a_changed_one_is_not(triton: LocalTriton) -> None:
    image, name = _page()
    changed = name[:2] + ("龙" if name[2] != "龙" else "虎") + name[3:]
    result = _infer(triton, image, [name, changed, "北京市朝阳区教育委员会"])
    assert result.as_numpy("EXPECTED_FOUND").tolist() == [True, False, False]
    assert result.as_numpy("EXPECTED_SEALS").tolist() == [0, -1, -1]
    scores = result.as_numpy("EXPECTED_SCORES")
    assert scores[0] > 0.9 > 0.5 > scores[1] and scores[2] < 0.5
    assert [t.decode() for t in result.as_numpy("MATCH_TEXTS")] == [name]


def test_without_names_the_answer_is_as_before(triton: LocalTriton) -> None:
    image, _ = _page()
    result = _infer(triton, image, None)
    assert result.as_numpy("EXPECTED_FOUND").tolist() == []
    assert [t.decode() for t in result.as_numpy("MATCH_TEXTS")] == [""]
    assert 0.0 <= float(result.as_numpy("RIM_SCORES")[0]) <= 1.0


def test_too_many_or_empty_names_are_refused(triton: LocalTriton) -> None:
    image, name = _page()
    for names in ([name] * 21, [""], ["字" * 65]):
        with pytest.raises(InferenceServerException, match="expected name"):
            _infer(triton, image, names)
