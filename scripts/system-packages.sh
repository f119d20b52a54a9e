#!/usr/bin/env bash
# Debian packages the project needs: fonts for the OCR and seal test corpora, docker-compose to
# validate the compose file, wrk and h2load (nghttp2-client) for the benchmarks, chromium for the
# page test (Playwright drives it; its own browser download is not reachable). Installs only
# what is missing, so a prepared machine costs nothing and a fresh one gets everything.
set -euo pipefail
packages=(fonts-dejavu-core fonts-liberation fonts-noto-cjk fonts-wqy-zenhei docker-compose wrk nghttp2-client chromium)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
echo "installing Debian packages: ${missing[*]}"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
