"""Local-mode stand-in for Triton's ONNX Runtime backend.

The tritonserver bundled in nvidia-pytriton has no onnxruntime backend, so the launcher
(gateway/local_triton.py) serves every `platform: "onnxruntime_onnx"` model through this
Python-backend model over the same model.onnx, tensor names and batching. Production uses
the native backend; this file is copied in as model.py only in the materialized repository.

Requests are grouped by input shape (as Triton's dynamic batcher does for non-ragged inputs)
and by the outputs they ask for (only those are computed and sent back, as the native backend
does), and each group runs as one ONNX Runtime call; if a group fails, its requests are retried
one by one so that one bad request fails only itself.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import onnxruntime as ort
import triton_python_backend_utils as pb_utils

Group = list[int]
ONNX_FILE_PARAMETER = "onnx_file"  # gateway/local_triton.py sets it from default_model_filename


def _session_options(parameters: dict[str, Any]) -> ort.SessionOptions:
    options = ort.SessionOptions()
    # Same parameter names as the native onnxruntime backend, so one config serves both.
    intra = parameters.get("intra_op_thread_count", {}).get("string_value")
    inter = parameters.get("inter_op_thread_count", {}).get("string_value")
    if intra:
        options.intra_op_num_threads = int(intra)
    if inter:
        options.inter_op_num_threads = int(inter)
    return options


CUDA = "CUDAExecutionProvider"
CPU = "CPUExecutionProvider"


def providers(kind: str | None, device_id: int, available: list[str]) -> list[Any]:
    """ONNX Runtime's execution providers for an instance of `kind` ("GPU", "CPU", as Triton
    names it): CUDA on the instance's device when Triton placed it on a GPU and this
    onnxruntime has CUDA (onnxruntime-gpu), with the CPU behind it for any operator CUDA
    lacks; the CPU alone otherwise, so one config serves machines with and without a GPU."""
    if kind == "GPU" and CUDA in available:
        return [(CUDA, {"device_id": device_id}), CPU]
    return [CPU]


class TritonPythonModel:
    """Runs one ONNX model with ONNX Runtime, batching requests of equal shape."""

    def initialize(self, args: dict[str, str]) -> None:
        config = json.loads(args["model_config"])
        self._inputs = [tensor["name"] for tensor in config["input"]]
        self._outputs = [tensor["name"] for tensor in config["output"]]
        # The config's `default_model_filename` (optimum names its files encoder_model.onnx,
        # decoder_model.onnx), which the launcher hands over as this parameter; else model.onnx.
        filename = config.get("parameters", {}).get(ONNX_FILE_PARAMETER, {}).get("string_value")
        path = Path(args["model_repository"]) / args["model_version"] / (filename or "model.onnx")
        options = _session_options(config.get("parameters", {}))
        chosen = providers(
            args.get("model_instance_kind"),
            int(args.get("model_instance_device_id", "0")),
            ort.get_available_providers(),
        )
        self._session = ort.InferenceSession(str(path), options, providers=chosen)
        pb_utils.Logger.log_info(f"{args['model_name']}: onnxruntime on {self._session.get_providers()}")
        # Without a batch dimension requests cannot be concatenated: run them one by one.
        self._batched = int(config.get("max_batch_size", 0)) > 0

    def execute(self, requests: list[Any]) -> list[Any]:
        feeds = [self._feed(request) for request in requests]
        wanted = [self._wanted(request) for request in requests]
        responses: list[Any] = [None] * len(requests)
        for group in self._groups(feeds, wanted):
            answers = self._run_group([feeds[i] for i in group], wanted[group[0]])
            for index, response in zip(group, answers, strict=True):
                responses[index] = response
        return responses

    def _wanted(self, request: Any) -> tuple[str, ...]:
        """The outputs the request asks for, in the config's order (all when it names none)."""
        asked = set(request.requested_output_names())
        return tuple(name for name in self._outputs if name in asked) or tuple(self._outputs)

    def _feed(self, request: Any) -> dict[str, np.ndarray]:
        return {name: pb_utils.get_input_tensor_by_name(request, name).as_numpy() for name in self._inputs}

    def _groups(self, feeds: list[dict[str, np.ndarray]], wanted: list[tuple[str, ...]]) -> list[Group]:
        if not self._batched:
            return [[index] for index in range(len(feeds))]
        groups: dict[tuple[object, ...], Group] = {}
        for index, feed in enumerate(feeds):
            key = (wanted[index], *(feed[name].shape[1:] for name in self._inputs))
            groups.setdefault(key, []).append(index)
        return list(groups.values())

    def _run_group(self, feeds: list[dict[str, np.ndarray]], outputs: tuple[str, ...]) -> list[Any]:
        try:
            return self._run_batched(feeds, outputs)
        except Exception as exc:  # noqa: BLE001 - isolate the failing request below
            if len(feeds) == 1:
                return [pb_utils.InferenceResponse(error=pb_utils.TritonError(f"onnxruntime: {exc}"))]
            return [self._run_group([feed], outputs)[0] for feed in feeds]

    def _run_batched(self, feeds: list[dict[str, np.ndarray]], outputs: tuple[str, ...]) -> list[Any]:
        sizes = [len(feed[self._inputs[0]]) for feed in feeds]
        if len(feeds) == 1:
            batch = feeds[0]
        else:
            batch = {name: np.concatenate([feed[name] for feed in feeds]) for name in self._inputs}
        results = dict(zip(outputs, self._session.run(list(outputs), batch), strict=True))
        if not self._batched:
            return [self._response(results, 0, None)]
        bounds = np.cumsum([0, *sizes])
        return [
            self._response(results, start, stop) for start, stop in zip(bounds[:-1], bounds[1:], strict=True)
        ]

    def _response(self, results: dict[str, np.ndarray], start: int, stop: int | None) -> Any:
        tensors = [
            pb_utils.Tensor(name, np.ascontiguousarray(value[start:stop])) for name, value in results.items()
        ]
        return pb_utils.InferenceResponse(output_tensors=tensors)
