"""Calls to other Triton models (BLS): every request built in `_tensor_request`, every response
checked right after its own call (`_checked`); a model answering an error is ModelCallError."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import triton_python_backend_utils as pb_utils
from imgproc.arrays import AnyArray
from imgproc.imaging import Refused

from pymodel.boundary import _answering, check_cancelled
from pymodel.errors import ModelCallError


def _request(model_name: str, inputs: dict[str, AnyArray], outputs: Sequence[str]) -> Any:
    return _tensor_request(
        model_name, [pb_utils.Tensor(name, value) for name, value in inputs.items()], outputs
    )


def _tensor_request(model_name: str, inputs: Sequence[Any], outputs: Sequence[str], **options: Any) -> Any:
    """A BLS request, made only while the request being answered is still wanted, and traced
    as a child of it: Triton's trace of that request (the gateway's, when it sent a context)
    then shows each call with its model's queue and compute (every BLS call is built here).
    Raises RequestCancelled."""
    answering = _answering.get()
    if answering is not None:
        check_cancelled(answering)
        options["trace"] = answering.trace()
    return pb_utils.InferenceRequest(
        model_name=model_name, requested_output_names=list(outputs), inputs=list(inputs), **options
    )


def _checked(result: Any, model_name: str) -> Any:
    """The response of a BLS call, or ModelCallError where it answered an error."""
    if result.has_error():  # checked right after this call, on this response
        message = result.error().message()
        raise ModelCallError(model_name, message, Refused.is_refusal(message))
    return result


def _output_tensors(result: Any, model_name: str, outputs: Sequence[str]) -> dict[str, Any]:
    checked = _checked(result, model_name)
    return {name: pb_utils.get_output_tensor_by_name(checked, name) for name in outputs}


def _outputs(result: Any, model_name: str, outputs: Sequence[str]) -> dict[str, AnyArray]:
    return {name: tensor.as_numpy() for name, tensor in _output_tensors(result, model_name, outputs).items()}


def call_model(model_name: str, inputs: dict[str, AnyArray], output: str) -> AnyArray:
    """Run another Triton model through BLS and return one output; raises ModelCallError."""
    return _outputs(_request(model_name, inputs, [output]).exec(), model_name, [output])[output]


async def call_model_async(model_name: str, inputs: dict[str, AnyArray], output: str) -> AnyArray:
    """`call_model` without blocking: other calls of this model instance go on meanwhile."""
    return (await call_model_outputs(model_name, inputs, [output]))[output]


async def call_model_outputs(
    model_name: str, inputs: dict[str, AnyArray], outputs: Sequence[str]
) -> dict[str, AnyArray]:
    """Several outputs of another Triton model, without blocking; raises ModelCallError."""
    return _outputs(await _request(model_name, inputs, outputs).async_exec(), model_name, outputs)


def _memory(on_cpu: bool) -> dict[str, Any]:
    return {"preferred_memory": pb_utils.PreferredMemory(pb_utils.TRITONSERVER_MEMORY_CPU)} if on_cpu else {}


async def call_model_tensor(model_name: str, inputs: Sequence[Any], output: str, on_cpu: bool = False) -> Any:
    """One output of another Triton model as a `pb_utils.Tensor`, left where that model put it
    (on its GPU, say) unless `on_cpu`; the inputs are `pb_utils.Tensor`s, so one model's
    output passes on to the next by DLPack without a copy. Raises ModelCallError."""
    result = await _tensor_request(model_name, inputs, [output], **_memory(on_cpu)).async_exec()
    return _output_tensors(result, model_name, [output])[output]


async def call_model_all(model_name: str, inputs: Sequence[Any], on_cpu: bool = False) -> dict[str, Any]:
    """Every output of another Triton model (none named in the request: Triton then answers
    all), by name, as `call_model_tensor` gives one; raises ModelCallError."""
    result = await _tensor_request(model_name, inputs, [], **_memory(on_cpu)).async_exec()
    return {tensor.name(): tensor for tensor in _checked(result, model_name).output_tensors()}
