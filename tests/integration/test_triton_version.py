"""The local Triton is the server version the production image runs (deploy/bases.toml)."""

from __future__ import annotations

import json
import urllib.request

import pytest

from deploy.images import base_image, load_bases, local_triton_version
from gateway.local_triton import PROJECT_ROOT, LocalTriton

pytestmark = pytest.mark.integration


def test_the_bundled_server_is_the_version_the_triton_image_runs(triton: LocalTriton) -> None:
    with urllib.request.urlopen(f"{triton.http_url}/v2", timeout=10) as response:
        metadata = json.load(response)
    production = load_bases()[base_image(PROJECT_ROOT / "deploy/triton/Dockerfile")]
    assert metadata["version"] == local_triton_version() == production.triton_server
