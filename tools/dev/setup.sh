#!/usr/bin/env bash
# Installs what building and testing need on a fresh Debian 12 machine (as root).
# Idempotent: packages already present are not fetched again.
set -euo pipefail

packages=(
  cmake ninja-build g++ clang libclang-rt-14-dev pkg-config git openssl ca-certificates curl
  libcurl4-openssl-dev libssl-dev rapidjson-dev libyaml-cpp-dev libspdlog-dev libfmt-dev
  libgtest-dev libgmock-dev libcli11-dev libcpp-httplib-dev libtinyxml2-dev libhowardhinnant-date-dev tzdata ccache
  libgrpc++-dev protobuf-compiler-grpc libprotobuf-dev protobuf-compiler
  prometheus python3-kubernetes python3-yaml lua5.4
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}" >&2
  if [[ $(id -u) != 0 ]]; then
    echo "setup: installing packages needs root; run as root or install: ${missing[*]}" >&2
    exit 1
  fi
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# The control plane is built from source with Go; Kubernetes v1.37 needs Go >= 1.26.
if ! command -v go >/dev/null; then
  echo "setup: Go >= 1.26 is needed to build the pinned control plane and is not installed" >&2
  exit 1
fi
go_version=$(go env GOVERSION | sed 's/^go//')
if [[ "$(printf '%s\n1.26\n' "$go_version" | sort -V | head -1)" != "1.26" ]]; then
  echo "setup: Go $go_version is too old; Kubernetes v1.37 needs Go >= 1.26" >&2
  exit 1
fi
