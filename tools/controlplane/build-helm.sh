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
# Helm compiles is already in the build cache after build.sh.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
print_bin_dir=0
[[ "${1:-}" == "--bin-dir" ]] && print_bin_dir=1

log() { echo "helm: $*" >&2; }

command -v go >/dev/null || { log "go is not installed; it is needed to build Helm"; exit 1; }
# Use the machine's Go as it is (never fetch another toolchain) and don't
# stamp VCS data: the binary depends on the pins alone.
export GOTOOLCHAIN=local GOFLAGS=-buildvcs=false

# The key covers everything that decides the binary: pins, this script, Go.
key=$( { cat "$here"/helm/go.mod "$here"/helm/go.sum "$0"; go version; } | sha256sum | cut -c1-16)
pinned() { awk -v m="$1" '$1 == m && $2 ~ /^v/ {print $2; exit}' "$here/helm/go.mod"; }
helm_version=$(pinned helm.sh/helm/v3)
client_go_version=$(pinned k8s.io/client-go)
[[ -n "$helm_version" && -n "$client_go_version" ]] || { log "helm.sh/helm/v3 or k8s.io/client-go is not pinned in $here/helm/go.mod"; exit 1; }

cache_root=${GPUPOOL_HELM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/gpupool-operator/helm}
dest="$cache_root/$helm_version-$key"
mkdir -p "$cache_root"

finish() {
  [[ $print_bin_dir == 1 ]] && echo "$dest/bin"
  exit 0
}

[[ -f "$dest/complete" ]] && finish

# Parallel callers wait for one build instead of racing.
exec 9>"$cache_root/.lock"
if ! flock -n 9; then
  log "another build of Helm is running; waiting for it"
  flock 9
fi
[[ -f "$dest/complete" ]] && finish

start=$(date +%s)
log "building Helm $helm_version (k8s.io/client-go $client_go_version) into $dest"
log "about 30 seconds on 2 cores after the control plane's build (under 2 minutes with an empty Go build cache); later runs reuse it"
staging="$dest.partial"
rm -rf "$staging"
mkdir -p "$staging/bin"

# What Helm's Makefile stamps: the version, a clean tree, and the Kubernetes
# version `helm template` and `helm lint` assume without a cluster, derived
# from client-go as upstream does (client-go v0.37.x -> Kubernetes 1.37).
k8s_minor=${client_go_version#v0.}; k8s_minor=${k8s_minor%%.*}
ldflags="-s -w -X helm.sh/helm/v3/internal/version.version=$helm_version"
ldflags+=" -X helm.sh/helm/v3/internal/version.metadata= -X helm.sh/helm/v3/internal/version.gitTreeState=clean"
for pkg in helm.sh/helm/v3/pkg/lint/rules helm.sh/helm/v3/pkg/chartutil; do
  ldflags+=" -X $pkg.k8sVersionMajor=1 -X $pkg.k8sVersionMinor=$k8s_minor"
done

if ! out=$(cd "$here/helm" && CGO_ENABLED=0 go build -trimpath -ldflags "$ldflags" -o "$staging/bin/helm" helm.sh/helm/v3/cmd/helm 2>&1); then
  log "building helm failed:"
  echo "$out" | tail -40 >&2
  log "Helm did not build; the cache was left untouched"
  exit 1
fi

cat > "$staging/versions.env" <<EOF
HELM_VERSION=$helm_version
HELM_KUBERNETES_VERSION=v1.$k8s_minor
EOF
touch "$staging/complete"
rm -rf "$dest"
mv "$staging" "$dest"
# Keep the three newest builds (other checkouts may pin other versions).
ls -dt "$cache_root"/v*-*/ 2>/dev/null | grep -v '\.partial/$' | tail -n +4 | xargs -r rm -rf
end=$(date +%s)
log "Helm built in $(( (end - start) / 60 ))m$(( (end - start) % 60 ))s; $(du -sh "$dest" | cut -f1) in $dest"
finish
