#!/usr/bin/env bash
# Builds the kube-apiserver of each older Kubernetes minor release pinned under
# tools/controlplane/compat/ (those still supported upstream below the main
# pin), cached like build.sh's control plane. The CRD compatibility test
# installs the CRDs and samples on each of them.
#
#   tools/controlplane/build-compat.sh          build what is missing
#   tools/controlplane/build-compat.sh --list   also print VERSION=PATH lines, oldest first
#
# Environment: GPUPOOL_CONTROLPLANE_CACHE (default ~/.cache/gpupool-operator/controlplane).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
print_list=0
[[ "${1:-}" == "--list" ]] && print_list=1
log() { echo "controlplane-compat: $*" >&2; }
command -v go >/dev/null || { log "go is not installed; it is needed to build kube-apiserver"; exit 1; }
export GOTOOLCHAIN=local GOFLAGS=-buildvcs=false

cache_root=${GPUPOOL_CONTROLPLANE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/gpupool-operator/controlplane}
mkdir -p "$cache_root/compat"
exec 9>"$cache_root/.compat-lock"
flock 9

list=()
for dir in $(ls -d "$here"/compat/v*/ | sort -V); do
  version=$(awk '$1 == "require" && $2 == "k8s.io/kubernetes" {print $3; exit}' "$dir/go.mod")
  key=$( { cat "$dir/go.mod" "$dir/go.sum" "$0"; go version; } | sha256sum | cut -c1-16)
  dest="$cache_root/compat/$version-$key"
  if [[ ! -f "$dest/complete" ]]; then
    log "building kube-apiserver $version (about 6 minutes on 2 cores the first time)"
    t0=$(date +%s)
    ver_major=${version#v}; ver_major=${ver_major%%.*}
    ver_minor=${version#v*.}; ver_minor=${ver_minor%%.*}
    ldflags="-s -w"
    for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
      ldflags+=" -X $pkg.gitVersion=$version -X $pkg.gitMajor=$ver_major -X $pkg.gitMinor=$ver_minor"
      ldflags+=" -X $pkg.gitTreeState=clean -X $pkg.buildDate=1970-01-01T00:00:00Z"
    done
    rm -rf "$dest.partial"; mkdir -p "$dest.partial"
    if ! out=$(cd "$dir" && CGO_ENABLED=0 go build -trimpath -ldflags "$ldflags" \
                 -o "$dest.partial/kube-apiserver" k8s.io/kubernetes/cmd/kube-apiserver 2>&1); then
      log "kube-apiserver $version did not build:"; echo "$out" | tail -40 >&2; exit 1
    fi
    touch "$dest.partial/complete"
    rm -rf "$dest"; mv "$dest.partial" "$dest"
    log "built kube-apiserver $version in $(( $(date +%s) - t0 ))s"
  fi
  list+=("$version=$dest/kube-apiserver")
done
# Drop builds no pin refers to any more.
for old in "$cache_root"/compat/v*/; do
  keep=0
  for entry in "${list[@]}"; do [[ "${entry#*=}" == "${old%/}/kube-apiserver" ]] && keep=1; done
  [[ $keep == 1 ]] || rm -rf "$old"
done
if [[ $print_list == 1 ]]; then printf '%s\n' "${list[@]}"; fi
