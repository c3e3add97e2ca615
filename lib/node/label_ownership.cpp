// Which Node label keys and extended resources the agent owns: exactly those
// node_labels / extended_resources can produce.
#include <algorithm>
#include <iterator>
#include <cctype>

#include "gpupool/node/node_labels.h"

namespace gpupool::node {
namespace {

bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }
bool ends_with(std::string_view s, std::string_view p) {
  return s.size() >= p.size() && s.substr(s.size() - p.size()) == p;
}

template <std::size_t N>
bool one_of(std::string_view s, const std::string_view (&set)[N]) {
  return std::find(std::begin(set), std::end(set), s) != std::end(set);
}

// GFD (nvml.go, resource.go, mig-strategy.go) keys we write, the GPU
// Operator's gpu.present, the device plugin's device-plugin.config, ours, and
// the labeller's node-wide driver-version.
constexpr std::string_view kPlainKeys[] = {
    "nvidia.com/gpu.present",
    "nvidia.com/gpu.product",
    "nvidia.com/gpu.count",
    "nvidia.com/gpu.replicas",
    "nvidia.com/gpu.sharing-strategy",
    "nvidia.com/gpu.memory",
    "nvidia.com/gpu.family",
    "nvidia.com/gpu.compute.major",
    "nvidia.com/gpu.compute.minor",
    "nvidia.com/gpu.slices.gi",
    "nvidia.com/gpu.slices.ci",
    "nvidia.com/mig.capable",
    "nvidia.com/mig.strategy",
    "nvidia.com/mps.capable",
    "nvidia.com/device-plugin.config",
    "nvidia.com/cuda.driver.major",
    "nvidia.com/cuda.driver.minor",
    "nvidia.com/cuda.driver.rev",
    "nvidia.com/cuda.runtime.major",
    "nvidia.com/cuda.runtime.minor",
    "nvidia.com/cuda.driver-version.major",
    "nvidia.com/cuda.driver-version.minor",
    "nvidia.com/cuda.driver-version.revision",
    "nvidia.com/cuda.driver-version.full",
    "nvidia.com/cuda.runtime-version.major",
    "nvidia.com/cuda.runtime-version.minor",
    "nvidia.com/cuda.runtime-version.full",
    "gpupool.io/gpu-model",
    "amd.com/gpu.driver-version",
};

// Suffixes of nvidia.com/mig-<profile>.<suffix> we write (mixed strategy).
constexpr std::string_view kMigSuffixes[] = {
    "product", "count", "replicas", "sharing-strategy", "memory", "slices.gi", "slices.ci",
};

// amd.com/gpu.<kind> (and <kind>.<value> when values differ), main.go createLabels.
constexpr std::string_view kAmdCountedKinds[] = {"family", "device-id", "product-name", "vram"};
constexpr std::string_view kAmdPlainKinds[] = {
    "compute-memory-partition", "compute-partitioning-supported", "memory-partitioning-supported"};

// "1g.10gb", "1g.10gb.me", "3g.47gb": digits, 'g', '.', anything.
bool is_mig_profile_name(std::string_view p) {
  std::size_t i = 0;
  while (i < p.size() && std::isdigit(static_cast<unsigned char>(p[i]))) ++i;
  return i > 0 && p.substr(i, 2) == "g." && p.size() > i + 2;
}

bool is_mig_type_label(std::string_view key) {
  constexpr std::string_view prefix = "nvidia.com/mig-";
  if (!starts_with(key, prefix)) return false;
  std::string_view rest = key.substr(prefix.size());
  return std::any_of(std::begin(kMigSuffixes), std::end(kMigSuffixes), [&](std::string_view suffix) {
    return rest.size() > suffix.size() + 1 && ends_with(rest, suffix) && rest[rest.size() - suffix.size() - 1] == '.' &&
           is_mig_profile_name(rest.substr(0, rest.size() - suffix.size() - 1));
  });
}

bool is_amd_label(std::string_view key) {
  constexpr std::string_view prefix = "amd.com/gpu.";
  if (!starts_with(key, prefix)) return false;
  std::string_view rest = key.substr(prefix.size());
  if (one_of(rest, kAmdPlainKinds)) return true;
  return std::any_of(std::begin(kAmdCountedKinds), std::end(kAmdCountedKinds), [&](std::string_view kind) {
    return rest == kind || (starts_with(rest, kind) && rest.size() > kind.size() + 1 && rest[kind.size()] == '.');
  });
}

}  // namespace

bool is_agent_owned_label(std::string_view key) {
  return one_of(key, kPlainKeys) || is_mig_type_label(key) || is_amd_label(key);
}

bool is_agent_owned_resource(std::string_view name) {
  if (name == "nvidia.com/gpu" || name == "nvidia.com/gpu.shared" || name == "amd.com/gpu") return true;
  constexpr std::string_view mig = "nvidia.com/mig-";
  return starts_with(name, mig) && is_mig_profile_name(name.substr(mig.size()));
}

}  // namespace gpupool::node
