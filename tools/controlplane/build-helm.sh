#!/usr/bin/env bash
# Builds Helm from its Go module (helm.sh/helm/v3) at the version pinned in
# tools/controlplane/helm/go.mod, into a cache directory outside the build tree
# keyed by the pins, like build.sh's control plane. The tests run it on the
# chart in helm/gpupool-operator. A later run with the same pins reuses the
# cache and returns at once.
#
#   tools/controlplane/build-helm.sh            build if needed, print progress on stderr
#   tools/controlplane/build-helm.sh --bin-dir  also print the binary directory on stdout
#
# Environment: GPUPOOL_HELM_CACHE (default ~/.cache/gpupool-operator/helm).
# The Go module and build caches are Go's defaults, shared with build.sh: Helm's
# k8s.io modules are pinned to the control plane's versions, so most of what
# Helm compiles is already in the build cache after build.sh. The cache key,
# lock and pruning are go-tool-cache.sh's (shared with build-baseline.sh).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source "$here/go-tool-cache.sh"

helm_version=$(gtc_pinned "$here/helm/go.mod" helm.sh/helm/v3)
client_go_version=$(gtc_pinned "$here/helm/go.mod" k8s.io/client-go)
[[ -n "$client_go_version" ]] || { echo "helm: k8s.io/client-go is not pinned in $here/helm/go.mod" >&2; exit 1; }

gtc_open helm "$here/helm" "${GPUPOOL_HELM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/gpupool-operator/helm}" \
  "$helm_version" "$@"
gtc_log "building Helm $helm_version (k8s.io/client-go $client_go_version) into $GTC_DEST"
gtc_log "about 30 seconds on 2 cores after the control plane's build (under 2 minutes with an empty Go build cache); later runs reuse it"

# What Helm's Makefile stamps: the version, a clean tree, and the Kubernetes
# version `helm template` and `helm lint` assume without a cluster, derived
# from client-go as upstream does (client-go v0.37.x -> Kubernetes 1.37).
k8s_minor=${client_go_version#v0.}; k8s_minor=${k8s_minor%%.*}
ldflags="-s -w -X helm.sh/helm/v3/internal/version.version=$helm_version"
ldflags+=" -X helm.sh/helm/v3/internal/version.metadata= -X helm.sh/helm/v3/internal/version.gitTreeState=clean"
for pkg in helm.sh/helm/v3/pkg/lint/rules helm.sh/helm/v3/pkg/chartutil; do
  ldflags+=" -X $pkg.k8sVersionMajor=1 -X $pkg.k8sVersionMinor=$k8s_minor"
done
gtc_build helm.sh/helm/v3/cmd/helm helm "$ldflags"

cat > "$GTC_STAGING/versions.env" <<EOF
HELM_VERSION=$helm_version
HELM_KUBERNETES_VERSION=v1.$k8s_minor
EOF
gtc_close
