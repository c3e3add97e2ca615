// Small catalogs written for the tests (in the format of
// lib/gpu/data/gpu-models.yaml), independent of the built-in data.
#pragma once

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <variant>

#include "gpupool/gpu/catalog.h"
#include "gpupool/gpu/mig_planner.h"

namespace gpupool::gpu::testing {

// A100-SXM4-40GB as nvidia-smi mig -lgip/-lgipp report it; the same with
// only the profiles of the first MIG user guide; A30-24GB as nvidia-smi mig
// -lgipp reports it; a made-up toy whose starts can refuse what its sums
// allow (no real table found does); a T4 without MIG; an MI300X with modes.
inline constexpr const char* kFixtureCatalog = R"(
models:
  - id: a100-sxm4-40gb
    vendor: nvidia
    displayName: NVIDIA A100-SXM4-40GB
    names: ["NVIDIA A100-SXM4-40GB", "NVIDIA A100-PCIE-40GB"]
    pciDeviceIds: ["0x20B0", "0x20F1"]
    memoryMiB: 40960
    architecture: Ampere
    mig:
      computeSlices: 7
      memorySlices: 8
      profiles:
        - {name: 1g.5gb,    id: 19, computeSlices: 1, memorySlices: 1, memoryMiB: 4864,  maxCount: 7, placements: "{0,1,2,3,4,5,6}:1"}
        - {name: 1g.5gb+me, id: 20, computeSlices: 1, memorySlices: 1, memoryMiB: 4864,  maxCount: 1, placements: "{0,1,2,3,4,5,6}:1"}
        - {name: 1g.10gb,   id: 15, computeSlices: 1, memorySlices: 2, memoryMiB: 9856,  maxCount: 4, placements: "{0,2,4,6}:2"}
        - {name: 2g.10gb,   id: 14, computeSlices: 2, memorySlices: 2, memoryMiB: 9856,  maxCount: 3, placements: "{0,2,4}:2"}
        - {name: 3g.20gb,   id: 9,  computeSlices: 3, memorySlices: 4, memoryMiB: 19968, maxCount: 2, placements: "{0,4}:4"}
        - {name: 4g.20gb,   id: 5,  computeSlices: 4, memorySlices: 4, memoryMiB: 19968, maxCount: 1, placements: "{0}:4"}
        - {name: 7g.40gb,   id: 0,  computeSlices: 7, memorySlices: 8, memoryMiB: 40192, maxCount: 1, placements: "{0}:8"}
    sources: ["test fixture"]
  - id: a100-classic
    vendor: nvidia
    displayName: NVIDIA A100 Classic
    names: ["NVIDIA A100 Classic"]
    pciDeviceIds: ["0xFFF0"]
    memoryMiB: 40960
    architecture: Ampere
    mig:
      computeSlices: 7
      memorySlices: 8
      profiles:
        - {name: 1g.5gb,    id: 19, computeSlices: 1, memorySlices: 1, memoryMiB: 4864,  maxCount: 7, placements: "{0,1,2,3,4,5,6}:1"}
        - {name: 2g.10gb,   id: 14, computeSlices: 2, memorySlices: 2, memoryMiB: 9856,  maxCount: 3, placements: "{0,2,4}:2"}
        - {name: 3g.20gb,   id: 9,  computeSlices: 3, memorySlices: 4, memoryMiB: 19968, maxCount: 2, placements: "{0,4}:4"}
        - {name: 4g.20gb,   id: 5,  computeSlices: 4, memorySlices: 4, memoryMiB: 19968, maxCount: 1, placements: "{0}:4"}
        - {name: 7g.40gb,   id: 0,  computeSlices: 7, memorySlices: 8, memoryMiB: 40192, maxCount: 1, placements: "{0}:8"}
    sources: ["test fixture: the A100-40GB profiles of the first MIG user guide"]
  - id: a30-24gb
    vendor: nvidia
    displayName: NVIDIA A30
    names: ["NVIDIA A30"]
    pciDeviceIds: ["0x20B7"]
    memoryMiB: 24576
    architecture: Ampere
    mig:
      computeSlices: 4
      memorySlices: 4
      profiles:
        - {name: 1g.6gb,     id: 14, computeSlices: 1, memorySlices: 1, memoryMiB: 5836,  maxCount: 4, placements: "{0,1,2,3}:1"}
        - {name: 1g.6gb+me,  id: 21, computeSlices: 1, memorySlices: 1, memoryMiB: 5836,  maxCount: 1, placements: "{0,1,2,3}:1"}
        - {name: 2g.12gb,    id: 5,  computeSlices: 2, memorySlices: 2, memoryMiB: 11672, maxCount: 2, placements: "{0,2}:2"}
        - {name: 2g.12gb+me, id: 6,  computeSlices: 2, memorySlices: 2, memoryMiB: 11672, maxCount: 1, placements: "{0,2}:2"}
        - {name: 4g.24gb,    id: 0,  computeSlices: 4, memorySlices: 4, memoryMiB: 23344, maxCount: 1, placements: "{0}:4"}
    sources: ["test fixture"]
  - id: toy-4gb
    vendor: nvidia
    displayName: NVIDIA Toy-4GB
    names: ["NVIDIA Toy-4GB"]
    pciDeviceIds: ["0xFFF1"]
    memoryMiB: 4096
    architecture: Toy
    mig:
      computeSlices: 4
      memorySlices: 4
      profiles:
        - {name: 1g.5gb,  id: 1, computeSlices: 1, memorySlices: 1, memoryMiB: 1024, maxCount: 2, placements: "{0,2}:1"}
        - {name: 2g.10gb, id: 2, computeSlices: 2, memorySlices: 2, memoryMiB: 2048, maxCount: 1, placements: "{1}:2"}
        - {name: 4g.20gb, id: 3, computeSlices: 4, memorySlices: 4, memoryMiB: 4096, maxCount: 1, placements: "{0}:4"}
    sources: ["test fixture: a made-up table where sums fit and starts do not"]
  - id: t4
    vendor: nvidia
    displayName: Tesla T4
    names: ["Tesla T4", "NVIDIA T4"]
    pciDeviceIds: ["0x1EB8"]
    memoryMiB: 15360
    architecture: Turing
    sources: ["test fixture"]
  - id: mi300x
    vendor: amd
    displayName: AMD Instinct MI300X
    names: ["AMD Instinct MI300X", "AMD Instinct MI300X OAM"]
    pciDeviceIds: ["0x74A1"]
    memoryMiB: 196608
    architecture: CDNA3
    amdPartitions:
      compute: [SPX, DPX, QPX, CPX]
      memory: [NPS1, NPS4]
      combinations: [[SPX, NPS1], [DPX, NPS1], [QPX, NPS1], [CPX, NPS1], [CPX, NPS4]]
    sources: ["test fixture"]
)";

// A file of the shared real tool outputs (the folder next to the checkout,
// or $GPUPOOL_SHARED_TESTDATA), or "" when it is absent: tests skip then.
inline std::string shared_testdata(const std::string& relative) {
  const char* env = std::getenv("GPUPOOL_SHARED_TESTDATA");
  const std::string dir = env != nullptr && *env != '\0' ? env : GPUPOOL_SOURCE_DIR "/../shared/testdata";
  const std::string path = dir + "/" + relative;
  std::FILE* f = std::fopen(path.c_str(), "r");
  if (f == nullptr) return "";
  std::fclose(f);
  return path;
}

inline const Catalog& fixture_catalog() {
  static const Catalog catalog = Catalog::parse(kFixtureCatalog, "fixture");
  return catalog;
}

inline const GpuModel& fixture_model(const char* id) {
  const GpuModel* m = fixture_catalog().find(id);
  if (m == nullptr) throw std::runtime_error(std::string("no fixture model ") + id);
  return *m;
}

// The layout of a PlanResult, failing the test with the error otherwise.
template <typename T>
T value_of(const PlanResult<T>& r) {
  if (const auto* e = std::get_if<PlanError>(&r)) {
    ADD_FAILURE() << "unexpected error: " << e->message;
    return T{};
  }
  return std::get<T>(r);
}

// The message of a PlanResult that must be an error ("" after failing the test otherwise).
template <typename T>
std::string error_of(const PlanResult<T>& r) {
  if (const auto* e = std::get_if<PlanError>(&r)) return e->message;
  ADD_FAILURE() << "expected an error";
  return "";
}

inline bool ok(const PlanResult<std::monostate>& r) { return std::holds_alternative<std::monostate>(r); }

inline std::string contains_message(const std::string& text, const std::string& part) {
  return "\"" + text + "\" should contain \"" + part + "\"";
}
#define GPUPOOL_EXPECT_CONTAINS(text, part)                                        \
  EXPECT_NE(std::string(text).find(part), std::string::npos)                       \
      << ::gpupool::gpu::testing::contains_message(std::string(text), std::string(part))

}  // namespace gpupool::gpu::testing
