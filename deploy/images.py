"""Checks, without Docker, that every image's pip installs resolve for the image's own Python.

No machine of this project has a Docker engine, so a Dockerfile whose `pip install` cannot work
on its base would go unnoticed until someone builds it. This module reads each
`deploy/*/Dockerfile`, takes its base image from `FROM`, looks up that base's Python and
platform in `deploy/bases.toml` (the one place those facts live, with their sources), turns every
`pip install` of a `RUN` into requirement lines (a `-r` file, a local project's pyproject
dependencies and extras, or plain specifiers) and resolves them with pip for that Python and
platform, binary wheels only, as a dry run: PyPI's metadata files let pip resolve without
downloading the wheels. pip's own configuration is set aside so that only the public index
answers, as it does in a build.

`python -m deploy.images` prints each image's resolution; `--sizes` adds the size of every
resolved wheel (one HEAD request each), the estimate of what pip adds to the base image.

Errors: `ImageCheckError` (an unknown base, an install the module cannot read, pip failing).
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import subprocess
import sys
import tempfile
import urllib.request
from dataclasses import dataclass
from pathlib import Path

import tomllib

ROOT = Path(__file__).resolve().parents[1]
BASES_FILE = ROOT / "deploy" / "bases.toml"
OLDEST_MANYLINUX_GLIBC_MINOR = 5  # manylinux1 is glibc 2.5: every manylinux wheel is at or above it
# PEP 600 names for the older PEP 513/571/599 tags that wheels still carry.
LEGACY_MANYLINUX = {17: "manylinux2014", 12: "manylinux2010", 5: "manylinux1"}
PIP_COMMANDS = {"pip", "pip3"}
PIP_MODULE_COMMANDS = [["python", "-m", "pip"], ["python3", "-m", "pip"]]
PIP_TIMEOUT_S = 300
HEAD_TIMEOUT_S = 30
PIP_LOCAL_SOURCES = ("PIP_FIND_LINKS", "PIP_EXTRA_INDEX_URL", "PIP_INDEX_URL", "PIP_NO_INDEX")


class ImageCheckError(RuntimeError):
    """A Dockerfile names an unknown base, installs something unreadable, or pip cannot resolve."""


@dataclass(frozen=True)
class Base:
    """A base image's Python and platform, as stated in deploy/bases.toml."""

    image: str
    python: str
    glibc: str
    arch: str
    os: str
    triton_server: str | None = None

    def platforms(self) -> list[str]:
        """Every manylinux tag a wheel may carry to install on this base, newest first."""
        major, newest = (int(part) for part in self.glibc.split("."))
        tags = []
        for minor in range(newest, OLDEST_MANYLINUX_GLIBC_MINOR - 1, -1):
            tags.append(f"manylinux_{major}_{minor}_{self.arch}")
            if minor in LEGACY_MANYLINUX:
                tags.append(f"{LEGACY_MANYLINUX[minor]}_{self.arch}")
        return tags


@dataclass(frozen=True)
class PipInstall:
    """One `pip install` in a Dockerfile, as requirement lines pip can read from a file."""

    dockerfile: Path
    lines: tuple[str, ...]


@dataclass(frozen=True)
class Resolved:
    """One distribution pip would install, and the wheel it would take."""

    name: str
    version: str
    url: str

    @property
    def is_wheel(self) -> bool:
        return self.url.split("#")[0].endswith(".whl")


def load_bases(path: Path = BASES_FILE) -> dict[str, Base]:
    """The bases stated in deploy/bases.toml, by image reference."""
    table = tomllib.loads(path.read_text())["bases"]
    return {
        image: Base(image, fact["python"], fact["glibc"], fact["arch"], fact["os"], fact.get("triton_server"))
        for image, fact in table.items()
    }


def local_triton_version(path: Path = BASES_FILE) -> str:
    """The Triton server version bundled in the pinned nvidia-pytriton (deploy/bases.toml)."""
    return str(tomllib.loads(path.read_text())["local_triton"]["triton_server"])


def instructions(dockerfile: Path) -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) pairs, continuation lines joined and comments dropped."""
    joined: list[str] = []
    pending = ""
    for raw in dockerfile.read_text().splitlines():
        line = raw.strip()
        if not pending and (not line or line.startswith("#")):
            continue
        if line.endswith("\\"):
            pending += line[:-1] + " "
            continue
        joined.append(pending + line)
        pending = ""
    return [(text.split(None, 1)[0].upper(), text.split(None, 1)[1]) for text in joined if " " in text]


def base_image(dockerfile: Path) -> str:
    """The image the final stage is built on (the last FROM, without `AS name`)."""
    bases = [args.split()[0] for kind, args in instructions(dockerfile) if kind == "FROM"]
    if not bases:
        raise ImageCheckError(f"{dockerfile} has no FROM")
    return bases[-1]


def _pip_arguments(command: str) -> list[list[str]]:
    """The arguments after `pip install` in each `&&`-joined part of a RUN command."""
    found = []
    for part in command.split("&&"):
        words = shlex.split(part)
        for start, word in enumerate(words):
            after = start + 1 if word in PIP_COMMANDS else start + 3
            if (word in PIP_COMMANDS or words[start : start + 3] in PIP_MODULE_COMMANDS) and (
                words[after : after + 1] == ["install"]
            ):
                found.append(words[after + 1 :])
                break
    return found


def _project_requirements(spec: str) -> list[str]:
    """A local project (`.` or `./path`, optionally `[extras]`): its pyproject dependencies."""
    path, _, extras = spec.partition("[")
    project = tomllib.loads((ROOT / path / "pyproject.toml").read_text())["project"]
    lines = list(project.get("dependencies", []))
    for extra in filter(None, extras.rstrip("]").split(",")):
        lines += project["optional-dependencies"][extra.strip()]
    return lines


def _requirement_lines(arguments: list[str]) -> list[str]:
    """pip install arguments as requirement-file lines; options that do not select packages are dropped.

    Paths are read from the repository root: each Dockerfile copies what it installs to the same
    relative path under its WORKDIR, so a path that is not in the repository fails the resolution.
    """
    lines: list[str] = []
    words = iter(arguments)
    for word in words:
        if word in {"-r", "--requirement", "-c", "--constraint"}:
            flag = "-r" if word in {"-r", "--requirement"} else "-c"
            lines.append(f"{flag} {ROOT / next(words)}")
        elif word.startswith("-"):
            continue  # --no-cache-dir and the like: how to install, not what
        elif word == "." or word.startswith(("./", ".[")):
            lines += _project_requirements(word)
        else:
            lines.append(word)
    return lines


def pip_installs(dockerfile: Path) -> list[PipInstall]:
    """Every `pip install` in the Dockerfile's RUN instructions, as requirement lines."""
    installs = []
    for kind, args in instructions(dockerfile):
        if kind == "RUN":
            for arguments in _pip_arguments(args):
                installs.append(PipInstall(dockerfile, tuple(_requirement_lines(arguments))))
    return installs


def _public_index_environment() -> dict[str, str]:
    """This process's environment without pip's local indexes and configuration files."""
    environment = {key: value for key, value in os.environ.items() if key not in PIP_LOCAL_SOURCES}
    environment["PIP_CONFIG_FILE"] = os.devnull
    return environment


def resolve(lines: list[str], base: Base) -> list[Resolved]:
    """What pip would install for `lines` on `base`, binary wheels only; raises ImageCheckError."""
    with tempfile.TemporaryDirectory() as scratch:
        requirements, report = Path(scratch, "requirements.txt"), Path(scratch, "report.json")
        requirements.write_text("\n".join(lines) + "\n")
        platforms = [arg for tag in base.platforms() for arg in ("--platform", tag)]
        command = [
            sys.executable, "-m", "pip", "install", "--dry-run", "--ignore-installed", "--quiet",
            "--only-binary=:all:", "--implementation", "cp", "--python-version", base.python,
            *platforms, "--target", str(Path(scratch, "target")), "--report", str(report),
            "--disable-pip-version-check", "-r", str(requirements),
        ]  # fmt: skip
        result = subprocess.run(
            command, capture_output=True, text=True, timeout=PIP_TIMEOUT_S,
            env=_public_index_environment(), check=False,
        )  # fmt: skip
        if result.returncode != 0:
            raise ImageCheckError(f"pip cannot install {lines} on {base.image}:\n{result.stderr}")
        items = json.loads(report.read_text())["install"]
    return [
        Resolved(item["metadata"]["name"], item["metadata"]["version"], item["download_info"]["url"])
        for item in items
    ]


def resolve_dockerfile(dockerfile: Path, bases: dict[str, Base]) -> tuple[Base, list[Resolved]]:
    """The base of `dockerfile` and everything its pip installs would put on it."""
    image = base_image(dockerfile)
    if image not in bases:
        raise ImageCheckError(f"{dockerfile}: base {image} is not in {BASES_FILE.name}: state its Python")
    resolved: list[Resolved] = []
    for install in pip_installs(dockerfile):
        if install.lines:
            resolved += resolve(list(install.lines), bases[image])
    return bases[image], resolved


def dockerfiles(root: Path = ROOT) -> list[Path]:
    """Every Dockerfile of the project's images."""
    return sorted((root / "deploy").glob("*/Dockerfile"))


def wheel_bytes(url: str) -> int:
    """The size of one file on the index, from a HEAD request."""
    request = urllib.request.Request(url, method="HEAD")
    with urllib.request.urlopen(request, timeout=HEAD_TIMEOUT_S) as response:
        return int(response.headers["Content-Length"])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", action="store_true", help="add each wheel's size (HEAD requests)")
    args = parser.parse_args(argv)
    bases = load_bases()
    for dockerfile in dockerfiles():
        base, resolved = resolve_dockerfile(dockerfile, bases)
        out = sys.stdout
        facts = f"{base.os}, Python {base.python}, {base.arch}"
        out.write(f"{dockerfile.relative_to(ROOT)}: {base.image} ({facts})\n")
        total = 0
        for item in sorted(resolved, key=lambda r: r.name.lower()):
            size = wheel_bytes(item.url) if args.sizes else 0
            total += size
            shown = f"  {size / 1e6:.1f} MB" if args.sizes else ""
            out.write(f"  {item.name}=={item.version}  {item.url.rsplit('/', 1)[-1]}{shown}\n")
        if args.sizes:
            out.write(f"  wheels in all: {total / 1e6:.1f} MB (compressed, on top of the base image)\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
