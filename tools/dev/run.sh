#!/usr/bin/env bash
# README command 1: install, build, and run the controller on the embedded
# local cluster (a real control plane with simulated GPU nodes). Ctrl-C stops
# everything. Extra arguments go to gpupool-localcluster (e.g. --nodes 8).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/prepare.sh"

build=${GPUPOOL_BUILD_DIR:-build/release}
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGPUPOOL_BUILD_TESTS=OFF >/dev/null
ninja -C "$build" gpupool-localcluster gpupool-controller gpupool-agent
exec "$build/tools/localcluster/gpupool-localcluster" run --state-dir "${GPUPOOL_STATE_DIR:-$root/.cache/localcluster}" \
  --agent "$build/controller/agent/gpupool-agent" "$@" -- "$build/controller/controller/gpupool-controller"
