"""FAKE decoder for the tests: the real seal_seq2seq decoder, failing on purpose mid-loop.

It runs the real `decoder_model.onnx` (of `seal_seq2seq_decoder`, its sibling in the test's
repository) with ONNX Runtime, one request at a time, and answers an error instead when a
request holds exactly `FAULT_ROWS` rows of `FAULT_TOKENS` tokens: the third decoding step of
a batch of three strips, so the loop of that one request fails after two steps went well.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import onnxruntime as ort
import triton_python_backend_utils as pb_utils

FAULT_ROWS, FAULT_TOKENS = 3, 3
DECODER = Path("seal_seq2seq_decoder") / "1" / "decoder_model.onnx"


class TritonPythonModel:
    def initialize(self, args: dict[str, str]) -> None:
        path = Path(args["model_repository"]).parent / DECODER
        self._session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])

    def execute(self, requests: list[Any]) -> list[Any]:
        return [self._answer(request) for request in requests]

    def _answer(self, request: Any) -> Any:
        ids = pb_utils.get_input_tensor_by_name(request, "input_ids").as_numpy()
        states = pb_utils.get_input_tensor_by_name(request, "encoder_hidden_states").as_numpy()
        if ids.shape == (FAULT_ROWS, FAULT_TOKENS):
            return pb_utils.InferenceResponse(error=pb_utils.TritonError("fake fault injected mid-loop"))
        logits = self._session.run(["logits"], {"input_ids": ids, "encoder_hidden_states": states})[0]
        return pb_utils.InferenceResponse(output_tensors=[pb_utils.Tensor("logits", logits)])
