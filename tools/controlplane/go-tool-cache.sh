# Shared by the scripts that build one Go tool from a pinned module into a cache
# directory outside the build tree (build-helm.sh, build-baseline.sh), the way
# build.sh caches the control plane. Sourced, not run:
#
#   source "$here/go-tool-cache.sh"
#   gtc_open NAME MODULE_DIR CACHE_ROOT VERSION "$@"
#       Cache entry CACHE_ROOT/VERSION-KEY, where KEY hashes MODULE_DIR's
#       go.mod, go.sum and top-level .go files, the calling script, this file and
#       `go version`. If it is complete: prints its bin dir when the caller's
#       first argument is --bin-dir, and exits 0. Otherwise takes
#       CACHE_ROOT/.lock (a parallel caller waits for the build in progress,
#       then finds it complete) and returns with $GTC_STAGING, an empty
#       directory with bin/, and $GTC_DEST set.
#   gtc_build PACKAGE BINARY [LDFLAGS]
#       go build -trimpath (CGO_ENABLED=0) of PACKAGE, in MODULE_DIR, into
#       $GTC_STAGING/bin/BINARY; on failure shows the last lines and exits 1,
#       leaving the cache untouched.
#   (the caller may write more files into $GTC_STAGING)
#   gtc_close
#       Marks the build complete, moves it into place, keeps the three newest
#       entries of CACHE_ROOT (other checkouts may pin other versions), prints
#       the bin dir when asked and exits 0.
#   gtc_pinned GO_MOD MODULE
#       The version GO_MOD requires of MODULE (empty if none).
#
# Go's module and build caches are its defaults, shared with build.sh: the
# tools pin their k8s.io modules to the control plane's versions, so most of
# what they compile is already in the build cache.

# Use the machine's Go as it is (never fetch another toolchain) and don't
# stamp VCS data: the binaries depend on the pins alone.
export GOTOOLCHAIN=local GOFLAGS=-buildvcs=false
gtc_lib=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/$(basename "${BASH_SOURCE[0]}")

gtc_log() { echo "$gtc_name: $*" >&2; }

gtc_pinned() {
  awk -v m="$2" '$1 == m && $2 ~ /^v/ {print $2; exit} $1 == "require" && $2 == m {print $3; exit}' "$1"
}

gtc_finish() {
  [[ $gtc_print_bin_dir == 1 ]] && echo "$GTC_DEST/bin"
  exit 0
}

gtc_open() {
  gtc_name=$1 gtc_module_dir=$2 gtc_cache_root=$3
  local version=$4 key
  gtc_print_bin_dir=0
  [[ "${5:-}" == "--bin-dir" ]] && gtc_print_bin_dir=1
  command -v go >/dev/null || { gtc_log "go is not installed; it is needed to build $gtc_name"; exit 1; }
  [[ -n "$version" ]] || { gtc_log "no pinned version in $gtc_module_dir/go.mod"; exit 1; }

  # The key covers everything that decides the binary: the module's pins and
  # sources, the scripts that build it, Go.
  key=$( { (cd "$gtc_module_dir" && find . -maxdepth 1 -type f \( -name go.mod -o -name go.sum -o -name '*.go' \) \
                                    | LC_ALL=C sort | while read -r f; do echo "$f"; cat "$f"; done)
           cat "$0" "$gtc_lib"; go version; } | sha256sum | cut -c1-16)
  GTC_DEST="$gtc_cache_root/$version-$key"
  mkdir -p "$gtc_cache_root"
  [[ -f "$GTC_DEST/complete" ]] && gtc_finish

  # Parallel callers (ctest -j) wait for one build instead of racing.
  exec 9>"$gtc_cache_root/.lock"
  if ! flock -n 9; then
    gtc_log "another build of $gtc_name is running; waiting for it"
    flock 9
  fi
  [[ -f "$GTC_DEST/complete" ]] && gtc_finish

  gtc_start=$(date +%s)
  GTC_STAGING="$GTC_DEST.partial"
  rm -rf "$GTC_STAGING"
  mkdir -p "$GTC_STAGING/bin"
}

gtc_build() {
  local pkg=$1 binary=$2 ldflags=${3:-"-s -w"} out
  if ! out=$(cd "$gtc_module_dir" && CGO_ENABLED=0 go build -trimpath -ldflags "$ldflags" \
                -o "$GTC_STAGING/bin/$binary" "$pkg" 2>&1); then
    gtc_log "building $binary failed:"
    echo "$out" | tail -40 >&2
    gtc_log "$gtc_name did not build; the cache was left untouched"
    exit 1
  fi
}

gtc_close() {
  local end
  touch "$GTC_STAGING/complete"
  rm -rf "$GTC_DEST"
  mv "$GTC_STAGING" "$GTC_DEST"
  ls -dt "$gtc_cache_root"/v*-*/ 2>/dev/null | grep -v '\.partial/$' | tail -n +4 | xargs -r rm -rf
  end=$(date +%s)
  gtc_log "built in $(( (end - gtc_start) / 60 ))m$(( (end - gtc_start) % 60 ))s; $(du -sh "$GTC_DEST" | cut -f1) in $GTC_DEST"
  gtc_finish
}
