"""The gateway's configuration: one pydantic-settings class, environment prefix GATEWAY_."""

from __future__ import annotations

from pathlib import Path

from pydantic import Field, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from gateway.balancing import validate_triton_url

MIB = 1024 * 1024


class Settings(BaseSettings):
    """Every knob of the gateway, typed and validated at start-up."""

    model_config = SettingsConfigDict(env_prefix="GATEWAY_", frozen=True)

    triton_url: str = Field(
        "127.0.0.1:8001", description="Triton gRPC endpoints: host:port[,host:port...] or dns:///name:port"
    )
    request_timeout_s: float = Field(30.0, gt=0, description="deadline for one Triton call")
    max_upload_bytes: int = Field(10 * MIB, gt=0, description="largest accepted image upload")
    max_pdf_bytes: int = Field(100 * MIB, gt=0, description="largest accepted PDF upload")
    # A page shares the page model with the pages in flight beside it (pages_in_flight: 4 for
    # ocr), so it takes a few times an image's time: dense text pages took over 30 s each on two
    # shared cores at a load of 10 (bench `fresh`), where an image has request_timeout_s.
    page_timeout_s: float = Field(
        60.0, gt=0, description="deadline of each page of a PDF: a page past it is answered 504"
    )
    # A dense page of text took 6.5 s on two shared cores at a load of 10 (bench `fresh`).
    document_page_s: float = Field(
        15.0, gt=0, description="a PDF's JSON answer's deadline grows by this per page"
    )
    max_document_timeout_s: float = Field(
        3600.0, gt=0, description="a PDF's JSON answer's deadline grows up to this"
    )
    max_pixels: int = Field(50_000_000, gt=0, description="largest accepted width x height")
    max_in_flight: int = Field(256, gt=0, description="concurrent inference requests before 429")
    retry_after_s: int = Field(1, ge=0, description="Retry-After sent with 429 and 503")
    ready_models: tuple[str, ...] = Field(
        ("mnist", "ocr", "ocr_line", "seal", "ocr_document", "seal_document"),
        description="models /readyz requires",
    )
    drain_s: float = Field(
        1.0, ge=0, description="after SIGTERM, readiness is 503 this long before accepting stops"
    )
    shutdown_grace_s: float = Field(
        30.0, gt=0, description="how long requests in flight may take to finish at shutdown"
    )
    api_keys: tuple[str, ...] = Field((), description="keys /v1/* accepts as Bearer (none: open)")
    api_keys_file: Path | None = Field(None, description="a file of more keys, one per line")

    def document_timeout_s(self, pages: int) -> float:
        """The deadline of a PDF's JSON answer: the request's own, growing with its pages."""
        return min(self.max_document_timeout_s, self.request_timeout_s + self.document_page_s * pages)

    @property
    def stream_gap_s(self) -> float:
        """The longest a PDF's stream may go without an answer from Triton (a page's deadline,
        and one call's worth for its wait behind other documents' pages) before it is 504."""
        return self.page_timeout_s + self.request_timeout_s

    @property
    def largest_upload_bytes(self) -> int:
        return max(self.max_upload_bytes, self.max_pdf_bytes)

    @field_validator("triton_url")
    @classmethod
    def _endpoints(cls, value: str) -> str:
        return validate_triton_url(value)
