// The GPU model catalog: what each supported GPU model is called by the tools
// that report it, how much memory it has, and how it can be partitioned.
// The data lives in lib/gpu/data/gpu-models.yaml (with the public source of
// every table); it is compiled into the binaries, and Catalog::load reads
// another copy of the same format for tests and overrides.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace gpupool::gpu {

// A catalog file that does not parse or breaks an invariant (overlapping ids,
// a placement outside the slices, ...). what() names the model and field:
// "gpu catalog <origin>: model a100-sxm4-40gb: mig.profiles[3g.20gb].placements: start 6 + size 4 exceeds the 8 memory slices".
// Unknown fields are errors too (a misspelt optional field would otherwise vanish).
class CatalogError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

enum class Vendor { nvidia, amd };
std::string_view to_string(Vendor v);

// One place a GPU-instance profile may start: memory-slice index `start`,
// occupying `size` memory slices (nvidia-smi mig -lgipp prints "{0,4}:4").
struct MigPlacement {
  int start = 0;
  int size = 0;
  bool operator==(const MigPlacement&) const = default;
};

struct MigProfile {
  std::string name;            // "3g.40gb", "1g.10gb+me"
  int profile_id = 0;          // NVML GPU-instance profile id (nvidia-smi mig -lgip "ID")
  int compute_slices = 0;      // the "3" of 3g
  int memory_slices = 0;       // of the model's memory_slices
  int memory_mib = 0;          // instance memory as nvidia-smi reports it
  int max_count = 0;           // most instances of this profile on one GPU
  std::vector<MigPlacement> placements;  // every valid start (size = memory_slices... as reported)
  // "+me" or "+me.all" in the name: the instance holds the GPU's media
  // extensions (its one JPEG decoder and OFA; with me.all every video engine
  // too). A GPU has one set, so at most one such instance fits on it (NVIDIA's
  // MIG user guide: "a single 1g profile can include media extensions"; on A30
  // the whole GPU has 1 JPEG and 1 OFA). Derived from the name when read.
  bool media_extensions = false;
};

struct MigCapability {
  int compute_slices = 0;      // 7 on A100/H100, 4 on A30
  int memory_slices = 0;       // 8 on A100/H100, 4 on A30
  std::vector<MigProfile> profiles;
  const MigProfile* profile(std::string_view name) const;  // nullptr if unknown
};

// AMD partition modes (amd-smi set --compute-partition / --memory-partition).
struct AmdPartitionModes {
  std::vector<std::string> compute;   // "SPX", "DPX", "QPX", "CPX"
  std::vector<std::string> memory;    // "NPS1", "NPS4"
  // Supported (compute, memory) pairs; empty = any combination of the above.
  std::vector<std::pair<std::string, std::string>> combinations;
  bool supports(std::string_view compute_mode, std::string_view memory_mode) const;
};

struct GpuModel {
  std::string id;                      // stable catalog id: "a100-sxm4-80gb"
  Vendor vendor = Vendor::nvidia;
  std::string display_name;            // "NVIDIA A100-SXM4-80GB"
  std::vector<std::string> names;      // every product name NVML / nvidia-smi / amd-smi report for it
  std::vector<std::uint32_t> pci_device_ids;  // 0x20B2 (device id only; vendor id from `vendor`)
  std::int64_t memory_mib = 0;         // total memory as reported
  std::string architecture;            // "Ampere", "Hopper", "Blackwell", "CDNA3", ...
  std::optional<MigCapability> mig;    // NVIDIA MIG, when supported
  std::optional<AmdPartitionModes> amd_partitions;  // AMD partition modes, when supported
  std::vector<std::string> sources;    // public sources of the tables, as cited in the file
};

// The name used in messages: the display name without a leading "NVIDIA "
// ("A100-SXM4-80GB", "Tesla T4", "AMD Instinct MI300X").
std::string short_name(const GpuModel& model);

class Catalog {
 public:
  // The catalog compiled into the binary (lib/gpu/data/gpu-models.yaml),
  // parsed once; an invalid one is a build bug and throws CatalogError.
  static const Catalog& builtin();
  // Parses and checks a catalog in the same YAML format. Throws CatalogError.
  static Catalog parse(std::string_view yaml_text, std::string_view origin);
  static Catalog load(const std::string& path);

  const std::vector<GpuModel>& models() const { return models_; }
  // By catalog id, display name or any reported name, case-insensitively,
  // ignoring leading "NVIDIA " / "AMD " / "Tesla " / "Instinct ", reading
  // '-' and '_' as spaces and collapsing repeated spaces: "A100-SXM4-80GB",
  // GPU Feature Discovery's "NVIDIA-A100-SXM4-80GB", "Tesla T4" and "T4" work.
  // nullptr if none.
  const GpuModel* find(std::string_view id_or_name) const;
  const GpuModel* find_by_pci_device_id(Vendor vendor, std::uint32_t device_id) const;
  // Every MIG profile name any model has (for resource-name checks), sorted, once each.
  std::vector<std::string> all_mig_profile_names() const;

 private:
  std::vector<GpuModel> models_;
  std::map<std::string, std::size_t> by_name_key_;  // name key of id/displayName/names -> index
};

}  // namespace gpupool::gpu
