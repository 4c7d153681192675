#!/usr/bin/env bash
# Installs the Debian 12 packages the build and the tests need (idempotent; root or sudo).
set -euo pipefail
packages=(
  build-essential cmake binutils lld pkg-config
  libboost1.81-dev libboost-json1.81-dev libboost-log1.81-dev libboost-test1.81-dev
  libboost-filesystem1.81-dev libboost-thread1.81-dev
  libyaml-cpp-dev libssl-dev libsqlite3-dev libtcmalloc-minimal4
  nettle-dev  # test/bench: P1's MPI bound times the P-521 key in Nettle as well as OpenSSL
  openssl openssh-client curl sqlite3 python3 python3-jsonschema python3-yaml python3-kubernetes
  python3-jwt  # PyJWT: an independent check of the service-account tokens (test/core/auth)
  # The local executor (core/executor) and the training examples it runs (examples/local):
  # iproute2's ip (the network tests check the executor's namespaces and links with it),
  # nsenter for exec probes, PyTorch (gloo), OpenMPI over ssh.
  iproute2 util-linux procps python3-torch python3-numpy openmpi-bin python3-mpi4py openssh-server
  # scripts/fuzz.sh: clang and its libFuzzer, ASan and UBSan runtimes (libclang_rt.fuzzer-x86_64.a is in
  # libclang-rt-16-dev). Not clang-14: it lacks std::source_location and lambda captures of structured bindings.
  clang-16 libclang-rt-16-dev
)
missing=()
for p in "${packages[@]}"; do
  [ "$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)" = "install ok installed" ] || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  echo "setup: installing ${missing[*]}" >&2
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# kubectl v1.32 comes preinstalled on these machines; Debian's own kubernetes-client (1.20) is too
# old for server-side apply and the watch and table protocol the tests drive.
if ! command -v kubectl >/dev/null 2>&1; then
  echo "setup: kubectl not found on PATH: the API tests need kubectl >= 1.27 (v1.32 is expected on these machines;" \
       "Debian's kubernetes-client 1.20 is too old)" >&2
  exit 1
fi
minor=$(kubectl version --client -o json 2>/dev/null | /usr/bin/python3 -c 'import json,sys; print(int("".join(c for c in json.load(sys.stdin)["clientVersion"]["minor"] if c.isdigit())))' || echo 0)
if [ "$minor" -lt 27 ]; then
  echo "setup: kubectl client minor version $minor is too old: the API tests need kubectl >= 1.27 (v1.32 expected)" >&2
  exit 1
fi
