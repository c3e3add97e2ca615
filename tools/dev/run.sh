#!/usr/bin/env bash
# README command 1, the local demo: installs what is missing, builds, and runs
# `gpupool-localcluster demo`: the local control plane (state in
# .cache/localcluster, reused by the next run), simulated GPU nodes of four
# models each with its own gpupool-agent, gpupool-controller, the manifests in
# tools/dev/demo (pools, policy, quotas, then the tenants' workloads), and a
# screen that refreshes until Ctrl-C, which stops everything.
# Extra arguments go to gpupool-localcluster demo: --nodes N (per model,
# default 1), --gpus-per-node M (2..16, default 8), --state-dir DIR.
# GPUPOOL_BUILD_DIR (default build/release) and GPUPOOL_STATE_DIR move the build
# and the state.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/prepare.sh"

build=${GPUPOOL_BUILD_DIR:-build/release}
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGPUPOOL_BUILD_TESTS=OFF >/dev/null
# gpupoolctl brings the kubectl plugin (kubectl-gpupool beside it) the screen's hints use.
ninja -C "$build" gpupool-localcluster gpupool-controller gpupool-agent gpupoolctl
exec "$build/tools/localcluster/gpupool-localcluster" demo --state-dir "${GPUPOOL_STATE_DIR:-$root/.cache/localcluster}" \
  --agent "$build/controller/agent/gpupool-agent" --controller "$build/controller/controller/gpupool-controller" \
  --gpupoolctl "$build/tools/gpupoolctl/gpupoolctl" \
  --manifests tools/dev/demo --workloads tools/dev/demo/workloads "$@"
