"""What the standard OTEL_* variables say about exporting traces, read in one place for the
gateway's OpenTelemetry SDK (gateway.tracing) and for Triton's own tracing flags.

`OTEL_TRACES_EXPORTER` is one of the standard `otlp` (the default), `console` or `none`; any
other value (`zipkin`, a list) is refused at start rather than quietly exported as OTLP. With
`otlp`, tracing is on when an OTLP endpoint is named: `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` (the
whole URL, as the specification has it) or `OTEL_EXPORTER_OTLP_ENDPOINT` (a base URL,
`/v1/traces` appended); `console` prints the gateway's spans on its standard output (Triton's
tracing stays off: it has no console). `OTEL_SDK_DISABLED=true` turns it all off. Nothing else
turns it on, so that a process without these variables builds nothing and pays nothing.

Triton (2.51) exports only OTLP/HTTP (JSON), to a URL given with `--trace-config
opentelemetry,url=`. It traces every request that arrives with a W3C context, whatever the
context's sampled flag, so it runs with `rate=0` (nothing of its own accord) and the gateway
sends a context only for the requests its sampler keeps (`OTEL_TRACES_SAMPLER`): the gateway
decides, Triton follows. Its batch processor reads `OTEL_BSP_*` itself.

Errors: `ValueError` for an exporter other than `otlp`, `console` or `none`, or a protocol
other than `http/protobuf` or `grpc`.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass

HTTP_PROTOBUF, GRPC = "http/protobuf", "grpc"
OTLP, CONSOLE_NAME, NONE = "otlp", "console", "none"  # OTEL_TRACES_EXPORTER's values
PROTOCOLS = (HTTP_PROTOBUF, GRPC)
TRACES_PATH = "/v1/traces"
GATEWAY_SERVICE = "seal-gateway"  # service.name when OTEL_SERVICE_NAME is unset
TRITON_SERVICE = "triton"


@dataclass(frozen=True)
class OtlpTarget:
    """Where and how the traces go."""

    endpoint: str  # as the variable names it
    signal_specific: bool  # from OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: already the whole URL
    protocol: str

    @property
    def traces_url(self) -> str:
        """The OTLP/HTTP URL that receives traces."""
        return self.endpoint if self.signal_specific else self.endpoint.rstrip("/") + TRACES_PATH


@dataclass(frozen=True)
class ConsoleTarget:
    """Spans printed on standard output as JSON (`OTEL_TRACES_EXPORTER=console`): to look at
    while trying something, not to collect."""


CONSOLE = ConsoleTarget()
TraceTarget = OtlpTarget | ConsoleTarget


def _first(env: Mapping[str, str], *names: str) -> str:
    return next((env[name].strip() for name in names if env.get(name, "").strip()), "")


def _disabled(env: Mapping[str, str]) -> bool:
    return env.get("OTEL_SDK_DISABLED", "").strip().lower() == "true"


def traces_exporter(env: Mapping[str, str] = os.environ) -> str:
    """`OTEL_TRACES_EXPORTER`, `otlp` when unset; raises ValueError for one the gateway lacks."""
    exporter = env.get("OTEL_TRACES_EXPORTER", "").strip().lower() or OTLP
    if exporter not in (OTLP, CONSOLE_NAME, NONE):
        raise ValueError(f"OTEL_TRACES_EXPORTER={exporter!r} is not supported; use otlp, console or none")
    return exporter


def trace_target(env: Mapping[str, str] = os.environ) -> TraceTarget | None:
    """Where the gateway's spans go, or None when tracing is off; raises ValueError."""
    if not _disabled(env) and traces_exporter(env) == CONSOLE_NAME:
        return CONSOLE
    return otlp_target(env)


def otlp_target(env: Mapping[str, str] = os.environ) -> OtlpTarget | None:
    """The OTLP target the variables name, or None when tracing is off; raises ValueError."""
    if _disabled(env) or traces_exporter(env) != OTLP:
        return None
    signal_specific = _first(env, "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")
    endpoint = signal_specific or _first(env, "OTEL_EXPORTER_OTLP_ENDPOINT")
    if not endpoint:
        return None
    protocol = (
        _first(env, "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "OTEL_EXPORTER_OTLP_PROTOCOL") or HTTP_PROTOBUF
    )
    if protocol not in PROTOCOLS:
        raise ValueError(f"OTLP protocol {protocol!r} is not supported; use one of {', '.join(PROTOCOLS)}")
    return OtlpTarget(endpoint, bool(signal_specific), protocol)


def service_name(env: Mapping[str, str] = os.environ, default: str = GATEWAY_SERVICE) -> str:
    """`OTEL_SERVICE_NAME`, or `default`."""
    return _first(env, "OTEL_SERVICE_NAME") or default


def triton_trace_args(target: OtlpTarget | None, service: str = TRITON_SERVICE) -> tuple[str, ...]:
    """tritonserver's flags for OpenTelemetry tracing to `target` (none when off).

    A gRPC target gets no Triton tracing: Triton speaks only OTLP/HTTP, and guessing its HTTP
    port from the gRPC one would be wrong as often as right (`serve` says so in its log).
    """
    if target is None or target.protocol != HTTP_PROTOBUF:
        return ()
    settings = (
        "mode=opentelemetry",
        "level=TIMESTAMPS",
        "rate=0",  # only requests that arrive with a context (see the module docstring)
        "count=-1",
        f"opentelemetry,url={target.traces_url}",
        f"opentelemetry,resource=service.name={service}",
    )
    return tuple(arg for setting in settings for arg in ("--trace-config", setting))
