# Sourced by run.sh and test.sh: installs what is missing, builds (or finds in
# the cache) the pinned control plane, and exports GPUPOOL_CONTROLPLANE_BIN.
# Leaves the working directory at the repository root.
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$root"
tools/dev/setup.sh
GPUPOOL_CONTROLPLANE_BIN=$(tools/controlplane/build.sh --bin-dir)
export GPUPOOL_CONTROLPLANE_BIN
