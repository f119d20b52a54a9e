"""FastAPI dependencies, declared once as Annotated aliases; tests swap them with overrides."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Annotated

from fastapi import Depends, Request

from gateway.errors import Overloaded
from gateway.metrics import GatewayMetrics, route_template
from gateway.settings import Settings
from gateway.triton import TritonClient
from gateway.uploads import MULTIPART_OVERHEAD_BYTES as OVERHEAD
from gateway.uploads import ImageUpload, check_declared_length, read_upload_bytes, validate_image


def get_settings(request: Request) -> Settings:
    settings: Settings = request.state.settings
    return settings


def get_triton(request: Request) -> TritonClient:
    triton: TritonClient = request.state.triton
    return triton


def get_metrics(request: Request) -> GatewayMetrics:
    metrics: GatewayMetrics = request.state.metrics
    return metrics


SettingsDep = Annotated[Settings, Depends(get_settings)]
TritonDep = Annotated[TritonClient, Depends(get_triton)]
MetricsDep = Annotated[GatewayMetrics, Depends(get_metrics)]


class InFlightLimiter:
    """Counts inference requests in progress; past the limit, new ones get 429 at once."""

    def __init__(self, limit: int, retry_after_s: int) -> None:
        self.limit, self.retry_after_s, self.current = limit, retry_after_s, 0

    async def slot(self) -> AsyncIterator[None]:
        if self.current >= self.limit:
            raise Overloaded(f"more than {self.limit} requests in flight", retry_after_s=self.retry_after_s)
        self.current += 1
        try:
            yield
        finally:
            self.current -= 1


async def inference_slot(request: Request) -> AsyncIterator[None]:
    """Hold one of the limited inference slots for the duration of the request."""
    limiter: InFlightLimiter = request.state.limiter
    async for _ in limiter.slot():
        yield


async def image_upload(request: Request, settings: SettingsDep, metrics: MetricsDep) -> ImageUpload:
    """The request's image, read under the byte cap and checked; raises ClientError subclasses."""
    cap = settings.max_upload_bytes
    check_declared_length(request.headers.get("content-length"), cap + OVERHEAD)
    content_type = request.headers.get("content-type", "")
    data = await read_upload_bytes(content_type, request.stream(), cap)
    upload = validate_image(data, settings.max_pixels)
    metrics.upload_size.labels(route_template(request.scope)).observe(len(data))
    return upload


InferenceSlot = Annotated[None, Depends(inference_slot)]
UploadDep = Annotated[ImageUpload, Depends(image_upload)]
