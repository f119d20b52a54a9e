"""Command line: `serve` (local Triton + gateway), `triton` (the local Triton alone) and `models`.

python -m gateway serve [--host H] [--port P] [--triton-url URL] [--workers N] [--models A,B]
python -m gateway triton [--http-port P] [--grpc-port P] [--metrics-port P] [--model NAME ...]
python -m gateway models
"""

from __future__ import annotations

import argparse
import contextlib
import logging
import os
import signal
import sys
import time
from collections.abc import Iterator, Sequence
from types import FrameType

from gateway.local_triton import (
    PROJECT_ROOT,
    TRITON_REPO,
    LocalTriton,
    TritonPorts,
    TritonStartError,
    only_models,
)
from gateway.logs import configure_logging
from gateway.otlp import GRPC, TRITON_SERVICE, otlp_target, service_name, triton_trace_args
from gateway.server import run_gateway
from gateway.settings import Settings
from gateway.supervisor import TritonSupervisor

logger = logging.getLogger("gateway")
CACHE_DIR = PROJECT_ROOT / ".cache"
# How often the foreground `triton` command looks whether the server is still alive.
TRITON_WATCH_INTERVAL_S = 0.5


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m gateway", description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    serve = commands.add_parser("serve", help="run the gateway, with a local Triton unless --triton-url")
    serve.add_argument("--host", default="0.0.0.0")
    serve.add_argument("--port", type=int, default=8080)
    serve.add_argument(
        "--triton-url",
        help="use these Tritons (gRPC host:port[,host:port...] or dns:///name:port), start none",
    )
    serve.add_argument("--workers", type=int, default=1, help="uvicorn worker processes")
    serve.add_argument(
        "--models", help="comma-separated: load only these models into the local Triton (default all)"
    )
    _add_triton_parser(commands)
    commands.add_parser("models", help="download and verify the third-party ONNX models")
    return parser


def _add_triton_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    triton = commands.add_parser("triton", help="run the bundled Triton alone, in the foreground")
    for name in ("http", "grpc", "metrics"):
        triton.add_argument(f"--{name}-port", type=int, help=f"{name} port (default: a free one)")
    triton.add_argument(
        "--model", action="append", dest="models", metavar="NAME", help="load only this model (repeatable)"
    )


def _tracing_args(service: str) -> tuple[str, ...]:
    """Triton's tracing flags, from the same OTEL_* variables as the gateway's (gateway.otlp)."""
    target = otlp_target()
    if target is not None and target.protocol == GRPC:
        logger.warning("Triton exports traces over OTLP/HTTP only: its spans are off with protocol grpc")
    return triton_trace_args(target, service)


@contextlib.contextmanager
def _triton(url: str | None, models: str | None) -> Iterator[str]:
    """Yield the gRPC URL of the Triton to use, starting (and finally stopping) a local one,
    restarted whenever it dies (gateway.supervisor)."""
    if url:
        yield url
        return
    extra_args = (*(only_models(models.split(",")) if models else ()), *_tracing_args(TRITON_SERVICE))
    with TritonSupervisor(LocalTriton(extra_args=extra_args)) as supervisor:
        triton = supervisor.triton
        urls = f"http {triton.http_url}  grpc {triton.grpc_url}"
        print(f"Triton  : {urls}  pid {triton.pid}  log {triton.log_path}")  # noqa: T201
        yield triton.grpc_url


def _exit_on_sigterm(signum: int, frame: FrameType | None) -> None:
    raise SystemExit(0)


def serve(args: argparse.Namespace) -> int:
    """Run until SIGINT/SIGTERM; the gateway drains (gateway.server), then Triton is stopped.

    uvicorn re-raises the signal it caught once it has shut down. SIGTERM's default action
    would then kill this process on the spot and orphan Triton, so SIGTERM (what Docker and
    Kubernetes send) is turned into a normal exit that unwinds through LocalTriton.stop().
    """
    signal.signal(signal.SIGTERM, _exit_on_sigterm)
    try:
        with _triton(args.triton_url, args.models) as url:
            # Settings come from the environment, so worker processes see the same values.
            os.environ["GATEWAY_TRITON_URL"] = url
            print(f"Gateway : http://{args.host}:{args.port}  (docs at /docs)")  # noqa: T201
            run_gateway(args.host, args.port, args.workers, Settings())
    except TritonStartError as exc:
        logger.error("%s", exc)
        return 1
    return 0


def _triton_ports(args: argparse.Namespace) -> TritonPorts:
    free = TritonPorts.free()
    return TritonPorts(
        http=args.http_port or free.http,
        grpc=args.grpc_port or free.grpc,
        metrics=args.metrics_port or free.metrics,
    )


def triton(args: argparse.Namespace) -> int:
    """Run the local Triton until SIGINT/SIGTERM (exit 0) or until it dies (exit 1)."""
    signal.signal(signal.SIGTERM, _exit_on_sigterm)
    tracing = _tracing_args(service_name(default=TRITON_SERVICE))  # Triton is this process's service
    extra_args = (*(only_models(args.models) if args.models else ()), *tracing)
    server = LocalTriton(ports=_triton_ports(args), extra_args=extra_args)
    try:
        with server:
            urls = f"http {server.http_url}  grpc {server.grpc_url}  metrics :{server.ports.metrics}"
            print(f"Triton  : {urls}  pid {server.pid}  log {server.log_path}", flush=True)  # noqa: T201
            while server.is_running():
                time.sleep(TRITON_WATCH_INTERVAL_S)
            logger.error("tritonserver exited on its own\n%s", server.log_tail())
            return 1
    except TritonStartError as exc:
        logger.error("%s", exc)
        return 1
    except KeyboardInterrupt:
        return 0


def models() -> int:
    # Provisioning is a build step beside the model repository (triton_repo/provision), installed
    # into the project's environment; the gateway's own image has neither it nor onnx.
    from provision import ProvisionError, provision_models  # noqa: PLC0415

    try:
        for path in provision_models(TRITON_REPO / "models", CACHE_DIR / "wheels"):
            print(f"ok {path.relative_to(PROJECT_ROOT)}")  # noqa: T201
    except ProvisionError as exc:
        logger.error("%s", exc)
        return 1
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    configure_logging()
    args = _parser().parse_args(argv)
    if args.command == "triton":
        return triton(args)
    return serve(args) if args.command == "serve" else models()


if __name__ == "__main__":
    sys.exit(main())
