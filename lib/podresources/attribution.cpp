#include "gpupool/podresources/attribution.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <optional>
#include <set>
#include <string_view>

#include "gpupool/quota/gpu_resources.h"

namespace gpupool::podresources {
namespace {

bool iequals(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         });
}

bool istarts_with(std::string_view s, std::string_view prefix) {
  return s.size() >= prefix.size() && iequals(s.substr(0, prefix.size()), prefix);
}

bool all_digits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// "<id>::<n>" (NVIDIA replicas) or "<id>-slice-<n>" (ROCm time-slicing) to "<id>".
std::string_view strip_replica(std::string_view id) {
  for (std::string_view sep : {std::string_view("::"), std::string_view("-slice-")}) {
    const auto at = id.rfind(sep);
    if (at != std::string_view::npos && at > 0 && all_digits(id.substr(at + sep.size()))) return id.substr(0, at);
  }
  return id;
}

std::optional<unsigned long> parse_hex(std::string_view s, std::size_t max_digits) {
  if (s.empty() || s.size() > max_digits) return std::nullopt;
  unsigned long value = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value, 16);
  if (ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return value;
}

// PCI bus id "[domain:]bus:device.function" as numbers.
using PciAddress = std::array<unsigned long, 4>;
std::optional<PciAddress> parse_pci(std::string_view s) {
  const auto dot = s.rfind('.');
  if (dot == std::string_view::npos) return std::nullopt;
  const auto fn = parse_hex(s.substr(dot + 1), 1);
  std::string_view rest = s.substr(0, dot);
  const auto c2 = rest.rfind(':');
  if (!fn || *fn > 7 || c2 == std::string_view::npos) return std::nullopt;
  const auto dev = parse_hex(rest.substr(c2 + 1), 2);
  rest = rest.substr(0, c2);
  const auto c1 = rest.rfind(':');
  const auto bus = parse_hex(c1 == std::string_view::npos ? rest : rest.substr(c1 + 1), 2);
  const auto domain = c1 == std::string_view::npos ? std::optional<unsigned long>(0) : parse_hex(rest.substr(0, c1), 8);
  if (!dev || !bus || !domain || *dev > 0x1f) return std::nullopt;
  return PciAddress{*domain, *bus, *dev, *fn};
}

// What one device id names on this node.
struct Target {
  const backend::GpuInfo* gpu = nullptr;
  int gpu_instance_id = -1;  // -1: the whole GPU
};

class Resolver {
 public:
  explicit Resolver(std::span<const backend::GpuInfo> gpus) : gpus_(gpus) {}

  std::optional<Target> resolve(std::string_view raw) const {
    const std::string_view id = strip_replica(raw);
    if (istarts_with(id, "GPU-")) {
      if (const auto* g = by_uuid(id)) return Target{g, -1};
      return std::nullopt;
    }
    if (istarts_with(id, "MIG-GPU-")) return legacy_mig(id);
    if (istarts_with(id, "MIG-")) {
      for (const auto& g : gpus_) {
        for (const auto& inst : g.instances) {
          if (!inst.uuid.empty() && iequals(inst.uuid, id)) return Target{&g, inst.gpu_instance_id};
        }
      }
      return std::nullopt;
    }
    if (const auto pci = parse_pci(id)) {
      for (const auto& g : gpus_) {
        if (parse_pci(g.pci_bus_id) == pci) return Target{&g, -1};
      }
    }
    return std::nullopt;
  }

 private:
  const backend::GpuInfo* by_uuid(std::string_view uuid) const {
    for (const auto& g : gpus_) {
      if (iequals(g.uuid, uuid)) return &g;
    }
    return nullptr;
  }

  // "MIG-GPU-<uuid>/<gi>/<ci>": the parent's UUID is "GPU-<uuid>".
  std::optional<Target> legacy_mig(std::string_view id) const {
    const std::string_view body = id.substr(4);  // "GPU-<uuid>/<gi>/<ci>"
    const auto s1 = body.find('/');
    if (s1 == std::string_view::npos) return std::nullopt;
    const auto s2 = body.find('/', s1 + 1);
    const std::string_view gi_text = body.substr(s1 + 1, s2 == std::string_view::npos ? std::string_view::npos : s2 - s1 - 1);
    int gi = -1;
    if (!all_digits(gi_text) || std::from_chars(gi_text.data(), gi_text.data() + gi_text.size(), gi).ec != std::errc())
      return std::nullopt;
    const auto* g = by_uuid(body.substr(0, s1));
    if (g == nullptr) return std::nullopt;
    const bool known = std::any_of(g->instances.begin(), g->instances.end(),
                                   [&](const backend::MigInstance& inst) { return inst.gpu_instance_id == gi; });
    if (!known) return std::nullopt;
    return Target{g, gi};
  }

  std::span<const backend::GpuInfo> gpus_;
};

const std::vector<PodRef>& none() {
  static const std::vector<PodRef> empty;
  return empty;
}

}  // namespace

const std::vector<PodRef>& Attribution::gpu_users(int gpu_index) const {
  const auto it = gpus.find(gpu_index);
  return it == gpus.end() ? none() : it->second;
}

const std::vector<PodRef>& Attribution::mig_users(int gpu_index, int gpu_instance_id) const {
  const auto it = mig_instances.find({gpu_index, gpu_instance_id});
  return it == mig_instances.end() ? none() : it->second;
}

Attribution attribute(std::span<const backend::GpuInfo> gpus, std::span<const ContainerDevices> held) {
  const Resolver resolver(gpus);
  std::map<int, std::set<PodRef>> gpu_users;
  std::map<MigInstanceKey, std::set<PodRef>> mig_users;

  const auto add = [&](const ContainerDevices& c, std::string_view id) {
    const auto target = resolver.resolve(id);
    if (!target) return;
    PodRef who{c.namespace_, c.pod, c.container};
    if (target->gpu_instance_id < 0) {
      gpu_users[target->gpu->index].insert(std::move(who));
    } else {
      mig_users[{target->gpu->index, target->gpu_instance_id}].insert(std::move(who));
    }
  };

  for (const ContainerDevices& c : held) {
    if (c.source == DeviceSource::device_plugin) {
      if (!quota::is_gpu_resource(c.resource_name)) continue;
      for (const auto& id : c.device_ids) add(c, id);
    } else {
      for (const auto& id : c.device_ids) add(c, id);
      for (const auto& cdi : c.cdi_devices) {
        const auto eq = cdi.find('=');
        if (eq != std::string::npos) add(c, std::string_view(cdi).substr(eq + 1));
      }
    }
  }

  Attribution out;
  for (auto& [index, users] : gpu_users) out.gpus[index].assign(users.begin(), users.end());
  for (auto& [key, users] : mig_users) out.mig_instances[key].assign(users.begin(), users.end());
  return out;
}

}  // namespace gpupool::podresources
