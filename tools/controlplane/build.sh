#!/usr/bin/env bash
# Builds the pinned control plane (kube-apiserver, kube-controller-manager,
# kube-scheduler, kubectl, etcd, kwok) from source through the Go module proxy,
# into a cache directory outside the build tree keyed by the pinned versions.
# A later run with the same pins reuses the cache and returns at once.
#
#   tools/controlplane/build.sh            build if needed, print progress on stderr
#   tools/controlplane/build.sh --bin-dir  also print the binary directory on stdout
#
# Environment: GPUPOOL_CONTROLPLANE_CACHE (default ~/.cache/gpupool-operator/controlplane).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
print_bin_dir=0
[[ "${1:-}" == "--bin-dir" ]] && print_bin_dir=1

log() { echo "controlplane: $*" >&2; }

command -v go >/dev/null || { log "go is not installed; it is needed to build the control plane"; exit 1; }
# Use the machine's Go as it is (never fetch another toolchain) and don't
# stamp VCS data: the binaries depend on the pins alone.
export GOTOOLCHAIN=local GOFLAGS=-buildvcs=false

# The key covers everything that decides the binaries: pins, this script, Go.
key=$( { cat "$here"/kubernetes/go.mod "$here"/kubernetes/go.sum \
             "$here"/etcd/go.mod "$here"/etcd/go.sum \
             "$here"/kwok/go.mod "$here"/kwok/go.sum "$0"; go version; } | sha256sum | cut -c1-16)
pinned() { awk -v m="$2" '$1 == m && $2 ~ /^v/ {print $2; exit}' "$here/$1/go.mod"; }
k8s_version=$(pinned kubernetes k8s.io/kubernetes)
etcd_version=$(pinned etcd go.etcd.io/etcd/server/v3)
kwok_version=$(pinned kwok sigs.k8s.io/kwok)

cache_root=${GPUPOOL_CONTROLPLANE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/gpupool-operator/controlplane}
dest="$cache_root/$k8s_version-$key"
mkdir -p "$cache_root"

finish() {
  [[ $print_bin_dir == 1 ]] && echo "$dest/bin"
  exit 0
}

[[ -f "$dest/complete" ]] && finish

# Parallel callers (ctest -j, two clusters) wait for one build instead of racing.
exec 9>"$cache_root/.lock"
if ! flock -n 9; then
  log "another build of the control plane is running; waiting for it"
  flock 9
fi
[[ -f "$dest/complete" ]] && finish

start=$(date +%s)
log "building Kubernetes $k8s_version, etcd $etcd_version, kwok $kwok_version into $dest"
log "the first build downloads modules and compiles: about 10 minutes on 2 cores and 6 GB of disk (Go module and build caches included); later runs reuse it"
staging="$dest.partial"
rm -rf "$staging"
mkdir -p "$staging/bin"

ver_major=${k8s_version#v}; ver_major=${ver_major%%.*}
ver_minor=${k8s_version#v*.}; ver_minor=${ver_minor%%.*}
k8s_ldflags="-s -w"
for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
  k8s_ldflags+=" -X $pkg.gitVersion=$k8s_version -X $pkg.gitMajor=$ver_major -X $pkg.gitMinor=$ver_minor"
  k8s_ldflags+=" -X $pkg.gitTreeState=clean -X $pkg.buildDate=1970-01-01T00:00:00Z"
done

build() { # component module-dir package ldflags
  local name=$1 dir=$2 pkg=$3 ldflags=$4 t0 t1 out
  t0=$(date +%s)
  log "building $name ($pkg)"
  if ! out=$(cd "$here/$dir" && CGO_ENABLED=0 go build -trimpath -ldflags "$ldflags" -o "$staging/bin/$name" "$pkg" 2>&1); then
    log "building $name failed:"
    echo "$out" | tail -40 >&2
    log "component $name did not build; the cache was left untouched"
    exit 1
  fi
  t1=$(date +%s)
  log "built $name in $((t1 - t0))s"
}

build etcd etcd go.etcd.io/etcd/server/v3 "-s -w"
build kube-apiserver kubernetes k8s.io/kubernetes/cmd/kube-apiserver "$k8s_ldflags"
build kube-controller-manager kubernetes k8s.io/kubernetes/cmd/kube-controller-manager "$k8s_ldflags"
build kube-scheduler kubernetes k8s.io/kubernetes/cmd/kube-scheduler "$k8s_ldflags"
build kubectl kubernetes k8s.io/kubernetes/cmd/kubectl "$k8s_ldflags"
build kwok kwok sigs.k8s.io/kwok/cmd/kwok "-s -w -X sigs.k8s.io/kwok/pkg/consts.Version=${kwok_version#v}"

cat > "$staging/versions.env" <<EOF
KUBERNETES_VERSION=$k8s_version
ETCD_VERSION=$etcd_version
KWOK_VERSION=$kwok_version
EOF
touch "$staging/complete"
rm -rf "$dest"
mv "$staging" "$dest"
# Keep the three newest builds (other checkouts may pin other versions).
ls -dt "$cache_root"/v*-*/ 2>/dev/null | grep -v '\.partial/$' | tail -n +4 | xargs -r rm -rf
end=$(date +%s)
log "control plane built in $(( (end - start) / 60 ))m$(( (end - start) % 60 ))s; $(du -sh "$dest" | cut -f1) of binaries in $dest"
finish
