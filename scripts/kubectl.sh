#!/usr/bin/env bash
# A pinned kubectl for rendering deploy/k8s (`kubectl kustomize`) in the tests, from Debian's
# own archive: kubernetes-client 1.20.2 (bookworm), which embeds kustomize v2.0.3. The .deb is
# checked against its pinned sha256 and unpacked into .cache/kubectl, not installed, so it
# never clashes with a kubectl the machine already has.
set -euo pipefail
cd "$(dirname "$0")/.."
version="1.20.5+really1.20.2-1.1+deb12u1"
sha256="087c42dc26c847740043cdaa8b16db666be5591a1da957f822922aa1b677494e"
target=".cache/kubectl"
[ -x "$target/kubectl" ] && exit 0
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
chmod 755 "$work"   # apt's sandbox user writes the download here
sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
download() { (cd "$work" && apt-get download -qq "kubernetes-client=$version" 2>/dev/null); }
download || { $sudo apt-get update -qq && download; }
deb="$(ls "$work"/kubernetes-client_*.deb)"
echo "$sha256  $deb" | sha256sum --check --quiet
dpkg-deb -x "$deb" "$work/root"
mkdir -p "$target"
install -m 0755 "$work/root/usr/bin/kubectl" "$target/kubectl"
echo "kubectl $("$target/kubectl" version --client --short 2>/dev/null || true) in $target"
