#!/usr/bin/env bash
# Installs the Debian 12 packages the build and the tests need (idempotent; root or sudo).
set -euo pipefail
packages=(
  build-essential cmake binutils pkg-config
  libboost1.81-dev libboost-json1.81-dev libboost-log1.81-dev libboost-test1.81-dev
  libboost-filesystem1.81-dev libboost-thread1.81-dev
  libyaml-cpp-dev libssl-dev libsqlite3-dev
  openssl openssh-client curl sqlite3 python3 python3-jsonschema
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  echo "setup: installing ${missing[*]}" >&2
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
