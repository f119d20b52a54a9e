"""Liveness, readiness and the Prometheus scrape endpoint."""

from __future__ import annotations

from fastapi import APIRouter, Request
from starlette.responses import Response

from gateway.deps import LifecycleDep, MetricsDep, SettingsDep, TritonDep
from gateway.errors import TritonUnavailable
from gateway.responses import JSONResponse

router = APIRouter(tags=["operations"])


@router.get("/healthz", summary="The process is alive")
async def healthz() -> Response:
    return JSONResponse({"status": "ok"})


@router.get("/readyz", summary="Every Triton is ready with every required model")
async def readyz(triton: TritonDep, settings: SettingsDep, lifecycle: LifecycleDep) -> Response:
    """200 when the service can answer inference requests; raises TritonUnavailable (503),
    also while the process drains before it stops."""
    if lifecycle.draining:
        raise TritonUnavailable("shutting down", retry_after_s=settings.retry_after_s)
    problems = await triton.ready(settings.ready_models)
    if problems:
        raise TritonUnavailable("; ".join(problems), retry_after_s=settings.retry_after_s)
    return JSONResponse({"status": "ready", "models": list(settings.ready_models)})


@router.get("/metrics", summary="Prometheus metrics", include_in_schema=False)
async def metrics(metrics: MetricsDep, request: Request) -> Response:
    body, content_type = metrics.render(request.headers.get("accept", ""))
    return Response(body, media_type=content_type)
