#!/usr/bin/env bash
# README command 2: install, build with sanitizers, run every test.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/prepare.sh"

# Older kube-apiservers (every minor release still supported upstream) for the
# CRD compatibility test; cached like the control plane.
GPUPOOL_COMPAT_APISERVERS=$(tools/controlplane/build-compat.sh --list)
export GPUPOOL_COMPAT_APISERVERS
# Helm, built from its Go module at the version pinned in
# tools/controlplane/helm/go.mod, for the chart tests; cached like the above.
GPUPOOL_HELM=$(tools/controlplane/build-helm.sh --bin-dir)/helm
export GPUPOOL_HELM
# The scale benchmark's client-go baseline (tools/bench/baseline), built the
# same way from the control plane's modules; bench.scale_small runs it.
GPUPOOL_CLIENT_GO_BASELINE=$(tools/controlplane/build-baseline.sh --bin-dir)/gpupool-client-go-baseline
export GPUPOOL_CLIENT_GO_BASELINE

build=${GPUPOOL_TEST_BUILD_DIR:-build/test}
# Every control plane the tests start writes an audit log here; the RBAC check
# (rbac.usage_check, after the integration tests) compares them with config/rbac.
GPUPOOL_AUDIT_DIR="$root/$build/audit"
rm -rf "$GPUPOOL_AUDIT_DIR"
export GPUPOOL_AUDIT_DIR
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Debug -DGPUPOOL_SANITIZE=ON >/dev/null
ninja -C "$build"
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
if ! ctest --test-dir "$build" --output-on-failure -j "$(nproc)" "$@"; then
  # CI keeps only the last few hundred characters of what this prints: end
  # with each failed assertion on one short line (file:line, then its message).
  echo "== failed assertions =="
  awk '/: Failure$/ { n = split($0, p, "/"); loc = p[n]; sub(/: Failure$/, "", loc); getline m; getline v
                      print loc ": " substr(m " | " v, 1, 150) }
       /^\[  FAILED  \] [A-Za-z].*\(/ { print substr($0, 14, 120) }' \
    "$build"/Testing/Temporary/LastTest*.log 2>/dev/null | sort -u | head -n 12 || true
  exit 1
fi
tools/dev/fuzz.sh 140  # seconds in all, split between the fuzz targets
