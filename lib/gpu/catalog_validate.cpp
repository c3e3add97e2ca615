// Catalog invariants across fields and models (the reader checked shapes).
#include <algorithm>
#include <map>
#include <set>

#include "catalog_internal.h"
#include "gpupool/gpu/mig_profile_name.h"
#include "model_names.h"
#include "text.h"

namespace gpupool::gpu::detail {

namespace {

const std::set<std::string, std::less<>> kAmdComputeModes = {"SPX", "DPX", "TPX", "QPX", "CPX"};
const std::set<std::string, std::less<>> kAmdMemoryModes = {"NPS1", "NPS2", "NPS4", "NPS8"};

std::string hex16(std::uint32_t id) {
  static constexpr char kDigits[] = "0123456789ABCDEF";
  std::string out = "0x";
  for (int shift = 12; shift >= 0; shift -= 4) out += kDigits[(id >> shift) & 0xF];
  return out;
}

class ModelChecker {
 public:
  ModelChecker(std::string_view origin, const GpuModel& model)
      : origin_(origin), model_(model), prefix_("model " + model.id + ": ") {}

  void check() const {
    check_id();
    if (model_.memory_mib <= 0) fail("memoryMiB", "must be positive");
    if (model_.sources.empty()) fail("sources", "at least one public source is required");
    if (model_.pci_device_ids.empty()) fail("pciDeviceIds", "at least one PCI device id is required");
    if (model_.mig && model_.vendor != Vendor::nvidia) {
      fail("mig", "only NVIDIA models have MIG (vendor is " + std::string(to_string(model_.vendor)) + ")");
    }
    if (model_.amd_partitions && model_.vendor != Vendor::amd) {
      fail("amdPartitions", "only AMD models have partition modes (vendor is " + std::string(to_string(model_.vendor)) + ")");
    }
    if (model_.mig) check_mig(*model_.mig);
    if (model_.amd_partitions) check_amd(*model_.amd_partitions);
  }

 private:
  [[noreturn]] void fail(const std::string& field, const std::string& reason) const {
    catalog_fail(origin_, prefix_ + field, reason);
  }

  void check_id() const {
    const bool ok = !model_.id.empty() && model_.id.front() != '-' && model_.id.back() != '-' &&
                    std::all_of(model_.id.begin(), model_.id.end(), [](char c) {
                      return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-';
                    });
    if (!ok) fail("id", "must be lowercase letters, digits and inner '-'");
  }

  void check_mig(const MigCapability& mig) const {
    if (mig.compute_slices < 1) fail("mig.computeSlices", "must be at least 1");
    if (mig.memory_slices < 1 || mig.memory_slices > 16) fail("mig.memorySlices", "must be within 1..16");
    std::set<std::string> names;
    std::map<int, std::string> ids;
    std::map<std::string, std::string> canonical;  // canonical name -> name as written
    for (const MigProfile& p : mig.profiles) {
      const std::string path = "mig.profiles[" + p.name + "].";
      if (!names.insert(p.name).second) fail(path + "name", "profile name " + p.name + " appears twice");
      if (const auto [it, fresh] = ids.emplace(p.profile_id, p.name); !fresh) {
        fail(path + "id", "profile id " + std::to_string(p.profile_id) + " is also " + it->second + "'s");
      }
      check_profile(mig, p, path);
      const std::string canon = check_name(p, path);
      if (const auto [it, fresh] = canonical.emplace(canon, p.name); !fresh) {
        fail(path + "name", p.name + " names the same profile as " + it->second);
      }
    }
  }

  void check_profile(const MigCapability& mig, const MigProfile& p, const std::string& path) const {
    if (p.compute_slices < 1 || p.compute_slices > mig.compute_slices) {
      fail(path + "computeSlices", std::to_string(p.compute_slices) + " is not within 1.." + std::to_string(mig.compute_slices));
    }
    if (p.memory_slices < 1 || p.memory_slices > mig.memory_slices) {
      fail(path + "memorySlices", std::to_string(p.memory_slices) + " is not within 1.." + std::to_string(mig.memory_slices));
    }
    if (p.memory_mib < 1 || p.memory_mib > model_.memory_mib) {
      fail(path + "memoryMiB", std::to_string(p.memory_mib) + " is not within 1.." + std::to_string(model_.memory_mib));
    }
    if (p.max_count < 1) fail(path + "maxCount", "must be at least 1");
    if (p.max_count > static_cast<int>(p.placements.size())) {
      fail(path + "maxCount", std::to_string(p.max_count) + " exceeds the " + std::to_string(p.placements.size()) +
                                  " placements (two instances cannot share a start)");
    }
    for (const MigPlacement& pl : p.placements) {
      if (pl.size != p.memory_slices) {
        fail(path + "placements", "size " + std::to_string(pl.size) + " differs from memorySlices " +
                                      std::to_string(p.memory_slices));
      }
      if (pl.start + pl.size > mig.memory_slices) {
        fail(path + "placements", "start " + std::to_string(pl.start) + " + size " + std::to_string(pl.size) +
                                      " exceeds the " + std::to_string(mig.memory_slices) + " memory slices");
      }
    }
  }

  // A GPU-instance name in NVIDIA's grammar whose <g> is the profile's
  // compute slices ("3g.40gb", "1g.24gb+gfx", "1g.24gb-me"); its canonical form.
  std::string check_name(const MigProfile& p, const std::string& path) const {
    const auto parsed = parse_mig_profile_name(p.name);
    if (const auto* why = std::get_if<std::string>(&parsed)) fail(path + "name", "not a MIG profile name: " + *why);
    const MigProfileName& name = std::get<MigProfileName>(parsed);
    if (!name.is_gpu_instance()) {
      fail(path + "name", "a compute-instance profile name; the catalog lists GPU-instance profiles (<g>g.<gb>gb)");
    }
    if (name.gpu_slices != p.compute_slices) {
      fail(path + "name", "says " + std::to_string(name.gpu_slices) + "g but computeSlices is " +
                              std::to_string(p.compute_slices));
    }
    return name.canonical();
  }

  void check_amd(const AmdPartitionModes& amd) const {
    check_modes("amdPartitions.compute", amd.compute, kAmdComputeModes);
    check_modes("amdPartitions.memory", amd.memory, kAmdMemoryModes);
    for (std::size_t i = 0; i < amd.combinations.size(); ++i) {
      const auto& [compute, memory] = amd.combinations[i];
      const std::string field = "amdPartitions.combinations[" + std::to_string(i) + "]";
      if (std::find(amd.compute.begin(), amd.compute.end(), compute) == amd.compute.end()) {
        fail(field, "compute mode " + compute + " is not in compute (" + text::join(amd.compute, ", ") + ")");
      }
      if (std::find(amd.memory.begin(), amd.memory.end(), memory) == amd.memory.end()) {
        fail(field, "memory mode " + memory + " is not in memory (" + text::join(amd.memory, ", ") + ")");
      }
      for (std::size_t j = 0; j < i; ++j) {
        if (amd.combinations[j] == amd.combinations[i]) fail(field, "[" + compute + ", " + memory + "] appears twice");
      }
    }
  }

  void check_modes(const std::string& field, const std::vector<std::string>& modes,
                   const std::set<std::string, std::less<>>& known) const {
    if (modes.empty()) fail(field, "at least one mode is required");
    std::set<std::string> seen;
    for (const std::string& mode : modes) {
      if (known.count(mode) == 0) {
        fail(field, "unknown mode " + mode + " (known: " + text::join({known.begin(), known.end()}, ", ") + ")");
      }
      if (!seen.insert(mode).second) fail(field, "mode " + mode + " appears twice");
    }
  }

  std::string_view origin_;
  const GpuModel& model_;
  std::string prefix_;
};

// Ids, names and PCI ids must each lead to one model.
void check_unique(std::string_view origin, const std::vector<GpuModel>& models) {
  std::map<std::string, std::string> ids;
  std::map<std::string, std::string> keys;  // name_key -> model id
  std::map<std::pair<Vendor, std::uint32_t>, std::string> pci;
  for (const GpuModel& m : models) {
    if (const auto [it, fresh] = ids.emplace(m.id, m.id); !fresh) catalog_fail(origin, "model " + m.id + ": id", "appears twice");
    std::vector<std::pair<std::string, std::string>> named = {{"id", m.id}, {"displayName", m.display_name}};
    for (std::size_t i = 0; i < m.names.size(); ++i) named.emplace_back("names[" + std::to_string(i) + "]", m.names[i]);
    for (const auto& [field, name] : named) {
      const std::string key = name_key(name);
      if (key.empty()) catalog_fail(origin, "model " + m.id + ": " + field, "\"" + name + "\" is no name");
      if (const auto [it, fresh] = keys.emplace(key, m.id); !fresh && it->second != m.id) {
        catalog_fail(origin, "model " + m.id + ": " + field,
                     "\"" + name + "\" would also find model " + it->second + " (names compare without case, "
                     "vendor prefix and '-' vs ' ')");
      }
    }
    for (std::uint32_t id : m.pci_device_ids) {
      if (const auto [it, fresh] = pci.emplace(std::pair{m.vendor, id}, m.id); !fresh) {
        catalog_fail(origin, "model " + m.id + ": pciDeviceIds",
                     hex16(id) + (it->second == m.id ? " appears twice" : " is also model " + it->second + "'s"));
      }
    }
  }
}

}  // namespace

void validate_catalog(const std::vector<GpuModel>& models, std::string_view origin) {
  for (const GpuModel& m : models) ModelChecker(origin, m).check();
  check_unique(origin, models);
}

}  // namespace gpupool::gpu::detail
