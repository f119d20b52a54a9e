"""The deploy files are valid and agree with the code (no Docker engine here, so no builds)."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import yaml

from gateway.otlp import otlp_target, triton_trace_args

ROOT = Path(__file__).resolve().parents[2]


def test_compose_file_is_valid() -> None:
    compose = shutil.which("docker-compose")
    assert compose, "docker-compose is missing: `make setup` installs it"
    result = subprocess.run(
        [compose, "-f", str(ROOT / "docker-compose.yml"), "config", "-q"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stderr


def test_compose_wires_health_gpu_and_metrics() -> None:
    services = yaml.safe_load((ROOT / "docker-compose.yml").read_text())["services"]
    triton, gateway = services["triton"], services["gateway"]
    assert gateway["depends_on"]["triton"]["condition"] == "service_healthy"
    assert "/v2/health/ready" in " ".join(triton["healthcheck"]["test"])
    assert triton["deploy"]["resources"]["reservations"]["devices"][0]["capabilities"] == ["gpu"]
    assert triton["shm_size"]
    prometheus = yaml.safe_load((ROOT / "deploy/prometheus/prometheus.yml").read_text())
    targets = {t for job in prometheus["scrape_configs"] for c in job["static_configs"] for t in c["targets"]}
    assert targets == {"gateway:8080", "triton:8002"}


def dockerfile_cmd(path: Path) -> list[str]:
    """The exec-form CMD of a Dockerfile (continued lines joined)."""
    text = path.read_text().replace("\\\n", " ")
    (line,) = [line for line in text.splitlines() if line.startswith("CMD [")]
    command: list[str] = json.loads(line.removeprefix("CMD "))
    return command


def test_compose_traces_the_gateway_and_triton_into_a_pinned_jaeger() -> None:
    services = yaml.safe_load((ROOT / "docker-compose.yml").read_text())["services"]
    name, _, digest = services["jaeger"]["image"].partition("@sha256:")
    assert name.startswith("jaegertracing/all-in-one:") and re.fullmatch(r"[0-9a-f]{64}", digest)
    gateway_env = services["gateway"]["environment"]
    target = otlp_target(gateway_env)
    assert target is not None and target.endpoint == "http://jaeger:4318"  # Jaeger's OTLP/HTTP
    assert "jaeger" in services["gateway"]["depends_on"]
    # Triton: the image's own command plus the flags `serve` derives from the same variables.
    image_command = dockerfile_cmd(ROOT / "deploy" / "triton" / "Dockerfile")
    assert services["triton"]["command"] == [*image_command, *triton_trace_args(target)]
    assert "--enable-feature=exemplar-storage" in services["prometheus"]["command"]
