#!/usr/bin/env bash
# README command 1: install, build, and run the controller on the embedded
# local cluster (a real control plane with simulated GPU nodes). Ctrl-C stops
# everything. Extra arguments go to gpupool-localcluster (e.g. --nodes 8).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$root"

tools/dev/setup.sh
GPUPOOL_CONTROLPLANE_BIN=$(tools/controlplane/build.sh --bin-dir)
export GPUPOOL_CONTROLPLANE_BIN

build=${GPUPOOL_BUILD_DIR:-build/release}
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGPUPOOL_BUILD_TESTS=OFF >/dev/null
ninja -C "$build" gpupool-localcluster gpupool-controller
exec "$build/tools/localcluster/gpupool-localcluster" run --state-dir "${GPUPOOL_STATE_DIR:-$root/.cache/localcluster}" "$@" \
  -- "$build/controller/controller/gpupool-controller"
