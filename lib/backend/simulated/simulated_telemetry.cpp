// The simulated backend's metrics: the world's `telemetry:` section and the
// defaults of simulated_telemetry.h.
#include "simulated_telemetry.h"

#include <algorithm>

#include "simulated_world.h"

namespace gpupool::backend::sim {
namespace {

[[noreturn]] void bad(const std::string& path, const std::string& where, const std::string& what) {
  throw BackendError("invalid-config", "simulated GPUs " + path + ": " + where + ": " + what);
}

template <class T>
T value_of(const YAML::Node& n, const std::string& path, const std::string& where) {
  try {
    return n.as<T>();
  } catch (const YAML::Exception&) {
    bad(path, where, "not a valid value");
  }
}

// `range` ("0..100") says lo..hi in messages.
double in_range(const YAML::Node& n, const std::string& path, const std::string& where, double lo, double hi,
                const char* range) {
  const double v = value_of<double>(n, path, where);
  if (!(v >= lo && v <= hi)) bad(path, where, std::string("must be ") + range);
  return v;
}

std::int64_t non_negative(const YAML::Node& n, const std::string& path, const std::string& where) {
  const auto v = value_of<std::int64_t>(n, path, where);
  if (v < 0) bad(path, where, "must not be negative");
  return v;
}

std::vector<std::string> reasons(const YAML::Node& n, const std::string& path, const std::string& where) {
  if (!n.IsSequence()) bad(path, where, "expected a list of reason names");
  std::vector<std::string> out;
  for (const auto& item : n) {
    const auto name = value_of<std::string>(item, path, where);
    const bool known = std::any_of(std::begin(kClockEventReasons), std::end(kClockEventReasons),
                                   [&](const ClockEventReason& r) { return name == r.name; });
    if (!known) bad(path, where, "unknown clock event reason \"" + name + "\"");
    out.push_back(name);
  }
  return out;
}

InstanceTelemetry read_instance(const YAML::Node& n, const std::string& path, const std::string& at) {
  if (!n.IsMap()) bad(path, at, "expected a map");
  InstanceTelemetry t;
  for (const auto& kv : n) {
    const auto key = value_of<std::string>(kv.first, path, at);
    const std::string where = at + "." + key;
    if (key == "utilizationPercent") {
      t.utilization_percent = in_range(kv.second, path, where, 0, 100, "0..100");
    } else if (key == "graphicsEngineActive") {
      t.graphics_engine_active = in_range(kv.second, path, where, 0, 1, "0..1");
    } else if (key == "dramActive") {
      t.dram_active = in_range(kv.second, path, where, 0, 1, "0..1");
    } else if (key == "memoryUsedMiB") {
      t.memory_used_mib = non_negative(kv.second, path, where);
    } else {
      bad(path, at, "unknown field \"" + key + "\"");
    }
  }
  return t;
}

GpuTelemetry read_gpu(const YAML::Node& n, const std::string& path, const std::string& at) {
  if (!n.IsMap()) bad(path, at, "expected a map");
  GpuTelemetry t;
  for (const auto& kv : n) {
    const auto key = value_of<std::string>(kv.first, path, at);
    const std::string where = at + "." + key;
    const YAML::Node& v = kv.second;
    if (key == "utilizationPercent") {
      t.utilization_percent = in_range(v, path, where, 0, 100, "0..100");
    } else if (key == "powerWatts") {
      t.power_watts = in_range(v, path, where, 0, 10000, "0..10000");
    } else if (key == "temperatureCelsius") {
      t.temperature_celsius = value_of<double>(v, path, where);
    } else if (key == "memoryUsedMiB") {
      t.memory_used_mib = non_negative(v, path, where);
    } else if (key == "energyMillijoules") {
      t.energy_millijoules = non_negative(v, path, where);
    } else if (key == "smClockMHz") {
      t.sm_clock_mhz = non_negative(v, path, where);
    } else if (key == "memoryClockMHz") {
      t.memory_clock_mhz = non_negative(v, path, where);
    } else if (key == "clockEventReasons") {
      t.clock_event_reasons = reasons(v, path, where);
    } else if (key == "eccCorrected") {
      t.ecc_corrected = non_negative(v, path, where);
    } else if (key == "eccUncorrected") {
      t.ecc_uncorrected = non_negative(v, path, where);
    } else if (key == "instances") {
      if (!v.IsMap()) bad(path, where, "expected a map of GPU instance id to values");
      for (const auto& i : v) {
        const int id = value_of<int>(i.first, path, where);
        t.instances[id] = read_instance(i.second, path, where + "." + std::to_string(id));
      }
    } else {
      bad(path, at, "unknown field \"" + key + "\"");
    }
  }
  return t;
}

template <class T, class Key>
std::optional<T> lookup(const std::map<Key, T>& map, const Key& key) {
  const auto found = map.find(key);
  if (found == map.end()) return std::nullopt;
  return found->second;
}

bool has_gpm(const gpu::GpuModel& model) { return model.architecture == "Hopper" || model.architecture == "Blackwell"; }

std::uint64_t mask_of(const std::vector<std::string>& names) {
  std::uint64_t mask = 0;
  for (const ClockEventReason& r : kClockEventReasons) {
    if (std::find(names.begin(), names.end(), r.name) != names.end()) mask |= r.nvml_bit;
  }
  return mask;
}

std::vector<InstanceMetrics> instance_metrics(const gpu::GpuModel& model, const GpuState& state,
                                              const GpuTelemetry& set, int index) {
  std::vector<InstanceMetrics> out;
  if (!model.mig || state.mig.current != MigMode::enabled) return out;
  const bool gpm = has_gpm(model);
  for (const MigInstance& instance : state.instances) {
    const InstanceTelemetry t = lookup(set.instances, instance.gpu_instance_id).value_or(InstanceTelemetry{});
    InstanceMetrics m;
    m.gpu_instance_id = instance.gpu_instance_id;
    const gpu::MigProfile* profile = model.mig->profile(instance.profile);
    if (profile != nullptr) {
      m.memory_total_mib = profile->memory_mib;
      m.memory_used_mib = t.memory_used_mib.value_or(0);
      if (*m.memory_used_mib > *m.memory_total_mib) {
        throw BackendError("invalid-config", "simulated GPUs: telemetry." + std::to_string(index) + ".instances." +
                                                 std::to_string(instance.gpu_instance_id) +
                                                 ".memoryUsedMiB: more than the instance's " +
                                                 std::to_string(profile->memory_mib) + " MiB");
      }
      m.memory_free_mib = *m.memory_total_mib - *m.memory_used_mib;
    }
    m.utilization_percent = t.utilization_percent ? t.utilization_percent : gpm ? std::optional<double>(0) : std::nullopt;
    m.graphics_engine_active =
        t.graphics_engine_active ? t.graphics_engine_active : gpm ? std::optional<double>(0) : std::nullopt;
    m.dram_active = t.dram_active ? t.dram_active : gpm ? std::optional<double>(0) : std::nullopt;
    out.push_back(m);
  }
  std::sort(out.begin(), out.end(),
            [](const InstanceMetrics& a, const InstanceMetrics& b) { return a.gpu_instance_id < b.gpu_instance_id; });
  return out;
}

}  // namespace

std::map<int, GpuTelemetry> read_telemetry(const YAML::Node& node, const std::string& path) {
  if (!node.IsMap()) bad(path, "telemetry", "expected a map of GPU index to values");
  std::map<int, GpuTelemetry> out;
  for (const auto& kv : node) {
    const int gpu = value_of<int>(kv.first, path, "telemetry");
    out[gpu] = read_gpu(kv.second, path, "telemetry." + std::to_string(gpu));
  }
  return out;
}

GpuMetrics simulated_metrics(const World& world, int index, const gpu::GpuModel& model, bool busy,
                             const GpuState& state) {
  const GpuTelemetry set = lookup(world.telemetry, index).value_or(GpuTelemetry{});
  const bool nvidia = model.vendor == gpu::Vendor::nvidia;
  const bool mig_on = model.mig && state.mig.current == MigMode::enabled;
  GpuMetrics m;
  m.index = index;
  m.temperature_celsius = set.temperature_celsius ? *set.temperature_celsius
                                                  : lookup(world.temperature_celsius, index).value_or(38.0 + index);
  m.power_watts = set.power_watts.value_or(busy ? 250.0 : 60.0);
  if (set.utilization_percent) {
    m.utilization_percent = set.utilization_percent;
  } else if (!(nvidia && mig_on)) {
    m.utilization_percent = busy ? 85.0 : 0.0;
  }
  m.memory_total_mib = model.memory_mib;
  m.memory_used_mib = set.memory_used_mib.value_or(busy ? model.memory_mib / 2 : 0);
  if (*m.memory_used_mib > model.memory_mib) {
    throw BackendError("invalid-config", "simulated GPUs: telemetry." + std::to_string(index) +
                                             ".memoryUsedMiB: more than the GPU's " +
                                             std::to_string(model.memory_mib) + " MiB");
  }
  m.memory_free_mib = model.memory_mib - *m.memory_used_mib;
  m.energy_millijoules = set.energy_millijoules.value_or(0);
  m.sm_clock_mhz = set.sm_clock_mhz.value_or(busy ? 1410 : 210);
  m.memory_clock_mhz = set.memory_clock_mhz.value_or(1593);
  m.ecc_corrected_total = set.ecc_corrected ? *set.ecc_corrected : lookup(world.ecc_corrected, index).value_or(0);
  m.ecc_uncorrected_total =
      set.ecc_uncorrected ? *set.ecc_uncorrected : lookup(world.ecc_uncorrected, index).value_or(0);
  if (set.clock_event_reasons) {
    m.clock_event_reasons = set.clock_event_reasons;
  } else if (nvidia) {
    m.clock_event_reasons = busy ? std::vector<std::string>{} : std::vector<std::string>{"gpu_idle"};
  }
  if (m.clock_event_reasons) {
    // In kClockEventReasons order, as the other backends list them.
    m.clock_event_reasons_mask = mask_of(*m.clock_event_reasons);
    m.clock_event_reasons = clock_event_reason_names(*m.clock_event_reasons_mask);
  }
  m.instances = instance_metrics(model, state, set, index);
  return m;
}

}  // namespace gpupool::backend::sim
