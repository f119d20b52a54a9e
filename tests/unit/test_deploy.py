"""The deploy files are valid and agree with the code (no Docker engine here, so no builds)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import yaml

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
