"""POST /v1/mnist: a handwritten digit in, its label and class probabilities out."""

from __future__ import annotations

from fastapi import APIRouter
from pydantic import BaseModel, Field
from starlette.responses import Response

from gateway.deps import TritonDep, UploadDep
from gateway.responses import JSONResponse
from gateway.routers.common import ERROR_RESPONSES, IMAGE_REQUEST_BODY, ModelRef

MODEL = "mnist"
OUTPUT = "PROBABILITIES"  # the model's output tensor (triton_repo/models/mnist/config.pbtxt)
router = APIRouter(prefix="/v1", tags=["mnist"])


class MnistResult(BaseModel):
    label: int = Field(ge=0, le=9, description="the most probable digit")
    probabilities: list[float] = Field(min_length=10, max_length=10, description="P(digit) for 0..9")
    model: ModelRef


@router.post(
    "/mnist",
    response_model=MnistResult,
    responses=ERROR_RESPONSES,
    openapi_extra=IMAGE_REQUEST_BODY,
    summary="Read a handwritten digit",
)
async def classify_digit(upload: UploadDep, triton: TritonDep) -> Response:
    """Classify one digit: a scan, a photo of paper, or an MNIST-style image."""
    result = await triton.infer_image(MODEL, upload.data, [OUTPUT])
    probabilities = result.outputs[OUTPUT][0]
    return JSONResponse(
        {
            "label": int(probabilities.argmax()),
            "probabilities": probabilities.tolist(),
            "model": result.model_ref(),
        }
    )
