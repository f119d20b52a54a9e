"""FAKE with-past decoder for the tests: the real seal_seq2seq with-past decoder, failing on
purpose mid-loop.

It runs the real `decoder_with_past_model.onnx` (of `seal_seq2seq_decoder_with_past`, its
sibling in the test's repository) with ONNX Runtime, one request at a time, and answers an
error instead when a request holds exactly `FAULT_ROWS` rows with `FAULT_PAST` positions of
past: the third decoding step of a batch of three strips, so the loop of that one request
fails after two steps went well.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import onnxruntime as ort
import triton_python_backend_utils as pb_utils

FAULT_ROWS, FAULT_PAST = 3, 2
DECODER = Path("seal_seq2seq_decoder_with_past") / "1" / "decoder_with_past_model.onnx"


class TritonPythonModel:
    def initialize(self, args: dict[str, str]) -> None:
        path = Path(args["model_repository"]).parent / DECODER
        self._session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
        self._inputs = [tensor["name"] for tensor in json.loads(args["model_config"])["input"]]

    def execute(self, requests: list[Any]) -> list[Any]:
        return [self._answer(request) for request in requests]

    def _answer(self, request: Any) -> Any:
        feeds = {name: pb_utils.get_input_tensor_by_name(request, name).as_numpy() for name in self._inputs}
        if feeds["past_key_values.0.decoder.key"].shape[::2] == (FAULT_ROWS, FAULT_PAST):
            return pb_utils.InferenceResponse(error=pb_utils.TritonError("fake fault injected mid-loop"))
        names = [output.name for output in self._session.get_outputs()]
        outputs = self._session.run(names, feeds)
        return pb_utils.InferenceResponse(
            output_tensors=[pb_utils.Tensor(n, v) for n, v in zip(names, outputs, strict=True)]
        )
