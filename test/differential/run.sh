#!/usr/bin/env bash
# ctest entry differential.validate_vs_apiserver: starts a local cluster (real
# kube-apiserver), runs validate_vs_apiserver.py in it, stops it.
#   run.sh LOCALCLUSTER GPUPOOLCTL SOURCE_DIR [SEED] [COUNT]
set -euo pipefail
localcluster=$1 ctl=$2 src=$3
state=$(mktemp -d "${TMPDIR:-/tmp}/gpupool-differential-XXXXXX")
trap 'rm -rf "$state"' EXIT
"$localcluster" run --state-dir "$state" --nodes 0 -- \
  python3 "$src/test/differential/validate_vs_apiserver.py" "$ctl" "$src" "${4:-1}" "${5:-150}"
