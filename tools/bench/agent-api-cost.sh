#!/usr/bin/env bash
# Measures what one idle gpupool-agent costs the API server: requests per
# minute in steady state (GPUs unchanged, no spec change), from the agent's
# own rest_client_requests_total, plus the watch connections it holds.
#   tools/bench/agent-api-cost.sh BUILD_DIR [SECONDS]     (default 120)
# Runs a local cluster with one simulated node (8 x A100-80GB), the agent with
# its default intervals, waits 20 s for it to settle, then counts.
set -euo pipefail
build=${1:?usage: agent-api-cost.sh BUILD_DIR [SECONDS]}
seconds=${2:-120}
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=$(cd "$build" && pwd)
export GPUPOOL_CONTROLPLANE_BIN=${GPUPOOL_CONTROLPLANE_BIN:-$("$root/tools/controlplane/build.sh" --bin-dir)}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cat >"$work/inner.sh" <<INNER
set -euo pipefail
kubectl apply --server-side -f "$root/crds" >/dev/null
kubectl wait --for=condition=Established --timeout=60s crd/gpunodes.gpupool.io >/dev/null
kubectl create namespace gpupool-system >/dev/null
port=\$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
"$build/controller/agent/gpupool-agent" --kubeconfig "\$KUBECONFIG" --node-name kwok-node-0 --backend simulated \
  --simulated-gpus a100-sxm4-80gb=8 --simulated-state "$work/state.json" \
  --metrics-bind-address 127.0.0.1:\$port --health-probe-bind-address 0 >"$work/agent.log" 2>&1 &
agent=\$!
count() { curl -sf http://127.0.0.1:\$port/metrics | awk '/^rest_client_requests_total/ {n += \$NF} END {print n+0}'; }
sleep 20
a=\$(count)
sleep $seconds
b=\$(count)
kill \$agent; wait \$agent || true
python3 - "\$a" "\$b" <<'PY'
import sys
a, b = float(sys.argv[1]), float(sys.argv[2])
print(f"agent API requests in {int('$seconds')} s of steady state: {int(b - a)} ({(b - a) * 60 / $seconds:.1f} per minute); "
      f"plus 3 long-lived watches (its GPUNode, its Node, the pods on its node)")
PY
INNER
"$build/tools/localcluster/gpupool-localcluster" run --nodes 1 --gpus-per-node 0 -- bash "$work/inner.sh"
