"""FastAPI dependencies, declared once as Annotated aliases; tests swap them with overrides."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request

from gateway.lifecycle import Lifecycle
from gateway.metrics import GatewayMetrics, route_template
from gateway.settings import Settings
from gateway.tracing import Tracing
from gateway.triton import TritonClient
from gateway.uploads import MULTIPART_OVERHEAD_BYTES as OVERHEAD
from gateway.uploads import ByteCaps, ImageUpload, check_declared_length, read_upload_bytes, validate_image


# Async on purpose: FastAPI runs a plain `def` dependency in a worker thread, a hop that cost
# about half of the gateway's CPU per request when these were sync (bench/frontdoor.py).
async def get_settings(request: Request) -> Settings:
    settings: Settings = request.state.settings
    return settings


async def get_triton(request: Request) -> TritonClient:
    triton: TritonClient = request.state.triton
    return triton


async def get_lifecycle(request: Request) -> Lifecycle:
    lifecycle: Lifecycle = request.state.lifecycle
    return lifecycle


async def get_metrics(request: Request) -> GatewayMetrics:
    metrics: GatewayMetrics = request.state.metrics
    return metrics


SettingsDep = Annotated[Settings, Depends(get_settings)]
TritonDep = Annotated[TritonClient, Depends(get_triton)]
MetricsDep = Annotated[GatewayMetrics, Depends(get_metrics)]
LifecycleDep = Annotated[Lifecycle, Depends(get_lifecycle)]


async def _upload(request: Request, documents: bool) -> ImageUpload:
    """The request's upload, read under the byte cap and checked; raises ClientError subclasses.

    It reads settings and metrics from the state directly rather than through sub-dependencies:
    each dependency FastAPI resolves costs tens of microseconds on the hottest path.
    """
    settings: Settings = request.state.settings
    metrics: GatewayMetrics = request.state.metrics
    tracing: Tracing = request.state.tracing
    caps = ByteCaps(settings.max_upload_bytes, settings.max_pdf_bytes if documents else None)
    with tracing.span("upload") as span:
        check_declared_length(request.headers.get("content-length"), caps.largest + OVERHEAD)
        content_type = request.headers.get("content-type", "")
        raw = await read_upload_bytes(content_type, request.stream(), caps)
        upload = validate_image(raw.data, settings.max_pixels, documents, raw.texts)
        if span is not None:
            span.set_attributes({"upload.bytes": len(raw.data), "upload.format": upload.format})
    metrics.upload_size.labels(route_template(request.scope)).observe(len(raw.data))
    return upload


async def image_upload(request: Request) -> ImageUpload:
    """An image (see `_upload`)."""
    return await _upload(request, documents=False)


async def document_upload(request: Request) -> ImageUpload:
    """An image or a PDF document (see `_upload`)."""
    return await _upload(request, documents=True)


UploadDep = Annotated[ImageUpload, Depends(image_upload)]
DocumentUploadDep = Annotated[ImageUpload, Depends(document_upload)]
