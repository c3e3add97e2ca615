#!/usr/bin/env bash
# Builds gpupool-client-go-baseline (tools/bench/baseline: a client-go program
# holding SharedInformers on pods and nodes, the scale benchmark's baseline)
# from its pinned modules into a cache directory outside the build tree, keyed
# by its pins and sources, like build-helm.sh. A later run with the same pins
# and sources reuses the cache and returns at once.
#
#   tools/controlplane/build-baseline.sh            build if needed, print progress on stderr
#   tools/controlplane/build-baseline.sh --bin-dir  also print the binary directory on stdout
#
# Environment: GPUPOOL_BASELINE_CACHE (default ~/.cache/gpupool-operator/client-go-baseline).
# The Go module and build caches are Go's defaults, shared with build.sh and
# build-helm.sh: the baseline pins k8s.io/client-go and every module it needs
# to the control plane's versions, so after build.sh nothing is downloaded and
# client-go is already compiled; only main and the link remain.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source "$here/go-tool-cache.sh"

module_dir=$(cd "$here/../bench/baseline" && pwd)
client_go_version=$(gtc_pinned "$module_dir/go.mod" k8s.io/client-go)

gtc_open client-go-baseline "$module_dir" \
  "${GPUPOOL_BASELINE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/gpupool-operator/client-go-baseline}" \
  "$client_go_version" "$@"
gtc_log "building gpupool-client-go-baseline (k8s.io/client-go $client_go_version) into $GTC_DEST"
gtc_log "about 10 seconds after the control plane's build (several minutes on 2 cores with an empty Go build cache: client-go's clientsets and API types); later runs reuse it"
gtc_build . gpupool-client-go-baseline
gtc_close
