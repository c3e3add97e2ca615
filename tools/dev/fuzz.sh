#!/usr/bin/env bash
# Builds the libFuzzer targets (test/fuzz/*_fuzz.cpp) with clang in their own
# build directory (-DGPUPOOL_FUZZ=ON) and fuzzes them for SECONDS in all
# (default 300), split evenly between the targets (whole seconds, at least 1
# each), one after the other, each on a scratch copy of its seed corpus and
# with its dictionary (test/fuzz/<name>.dict) if it has one. Exits non-zero
# if any target crashes; the crashing input is left under $build/artifacts/
# (add it to test/fuzz/corpus/<name>/ as a regression once fixed).
#   tools/dev/fuzz.sh [SECONDS]
# Environment: GPUPOOL_FUZZ_BUILD_DIR (default build/fuzz), CXX for the
# compiler (default clang++, else clang++-14), CMAKE_BUILD_PARALLEL_LEVEL.
set -euo pipefail
total=${1:-300}
if [[ ! $total =~ ^[0-9]+$ ]]; then
  echo "fuzz: SECONDS must be a whole number, got '$total'" >&2
  exit 2
fi
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$root"

build=${GPUPOOL_FUZZ_BUILD_DIR:-build/fuzz}
cxx=${CXX:-}
if [[ -z $cxx || $cxx != *clang* ]]; then
  cxx=$(command -v clang++ || command -v clang++-14 || true)
fi
if [[ -z $cxx ]]; then
  echo "fuzz: clang++ not found (tools/dev/setup.sh installs it)" >&2
  exit 1
fi
launcher=()
if command -v ccache >/dev/null; then launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache); fi

names=()
for src in test/fuzz/*_fuzz.cpp; do
  name=$(basename "$src" _fuzz.cpp)
  names+=("$name")
done

cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER="$cxx" \
  -DGPUPOOL_FUZZ=ON "${launcher[@]}" >/dev/null
cmake --build "$build" --target "${names[@]/#/fuzz_}"

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
mkdir -p "$build/artifacts"
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

# The budget split: the first total % n targets get one second more.
n=${#names[@]}
per=$((total / n))
extra=$((total % n))
failed=()
for i in "${!names[@]}"; do
  name=${names[$i]}
  seconds=$((per + (i < extra ? 1 : 0)))
  if ((seconds < 1)); then seconds=1; fi
  corpus="$scratch/$name"
  mkdir -p "$corpus"
  if [[ -d test/fuzz/corpus/$name ]]; then cp -r "test/fuzz/corpus/$name/." "$corpus/"; fi
  dict=()
  if [[ -f test/fuzz/$name.dict ]]; then dict=(-dict="test/fuzz/$name.dict"); fi
  echo "fuzz: $name for ${seconds}s" >&2
  if ! "$build/test/fuzz/fuzz_$name" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 "${dict[@]}" \
      -print_final_stats=1 -artifact_prefix="$build/artifacts/$name-" "$corpus" 2>"$build/artifacts/$name.log"; then
    tail -n 60 "$build/artifacts/$name.log" >&2
    failed+=("$name")
  else
    grep -E '^(stat::number_of_executed_units|stat::new_units_added)' "$build/artifacts/$name.log" >&2 || true
  fi
done

if ((${#failed[@]})); then
  echo "fuzz: crashes in: ${failed[*]} (inputs under $build/artifacts/)" >&2
  exit 1
fi
echo "fuzz: no crashes" >&2
