#!/usr/bin/env bash
# Prints a Python interpreter of the Triton image's version (deploy/bases.toml: the base that runs
# Triton) for .venv-image, where the python models' tests run under the image's pins. This machine
# kind has CPython 3.10 under pyenv; where no such interpreter runs, prints the default python3 and
# says so on stderr: the pins are then tested on another minor version than the image's.
set -euo pipefail
cd "$(dirname "$0")/.."
default="${1:-python3}"
version=$("$default" -c '
import tomllib
bases = tomllib.load(open("deploy/bases.toml", "rb"))["bases"]
print(next(base["python"] for base in bases.values() if "triton_server" in base))')
candidates=("python$version")
pyenv_root=$(pyenv root 2>/dev/null || echo "$HOME/.pyenv")
for found in "$pyenv_root"/versions/"$version".*/bin/python"$version"; do candidates+=("$found"); done
for candidate in "${candidates[@]}"; do
  if "$candidate" -c 'import sys, venv; sys.exit(sys.version_info[:2] != tuple(map(int, sys.argv[1].split("."))))' \
      "$version" 2>/dev/null; then
    command -v "$candidate"
    exit 0
  fi
done
echo "no Python $version here: the image's pins are tested on $("$default" --version)" >&2
command -v "$default"
