// The fake's state: building the GPUs of a spec, handles and their look-up,
// and the Call preamble.
#include "fake_state.h"

#include <cstdio>
#include <cstring>
#include <sstream>
#include <type_traits>

namespace fake_nvml {
namespace {

std::string trim(const std::string& s) {
  const auto first = s.find_first_not_of(" \t");
  if (first == std::string::npos) return "";
  return s.substr(first, s.find_last_not_of(" \t") - first + 1);
}

// "a100-sxm4-80gb=2,t4-16gb" -> models in order; false when malformed or unknown.
bool parse_spec(const std::string& spec, std::vector<const gpupool::gpu::GpuModel*>& models) {
  std::stringstream items(spec);
  std::string item;
  while (std::getline(items, item, ',')) {
    item = trim(item);
    if (item.empty()) continue;
    int count = 1;
    std::string id = item;
    if (const auto eq = item.find('='); eq != std::string::npos) {
      id = trim(item.substr(0, eq));
      const std::string number = trim(item.substr(eq + 1));
      if (number.empty() || number.find_first_not_of("0123456789") != std::string::npos || number.size() > 3) {
        return false;
      }
      count = std::stoi(number);
    }
    const gpupool::gpu::GpuModel* model = gpupool::gpu::Catalog::builtin().find(id);
    if (model == nullptr || model->vendor != gpupool::gpu::Vendor::nvidia) return false;
    for (int i = 0; i < count; ++i) models.push_back(model);
  }
  return true;
}

std::string gpu_uuid(int index) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "GPU-5ad5a2e1-6b0c-4f5e-8d7a-%012x", static_cast<unsigned>(index));
  return buffer;
}

template <typename Handle, typename T>
Handle make_handle(T* object) {
  using Opaque = std::remove_pointer_t<decltype(Handle{}.handle)>;
  return Handle{reinterpret_cast<Opaque*>(object)};
}

}  // namespace

std::string Gpu::bus_id() const {
  char buffer[NVML_DEVICE_PCI_BUS_ID_BUFFER_SIZE];
  std::snprintf(buffer, sizeof buffer, "00000000:%02X:00.0", bus);
  return buffer;
}

nvmlPciInfo_t Gpu::pci() const {
  nvmlPciInfo_t pci{};
  std::snprintf(pci.busIdLegacy, sizeof pci.busIdLegacy, "0000:%02X:00.0", bus);
  std::snprintf(pci.busId, sizeof pci.busId, "%s", bus_id().c_str());
  pci.domain = 0;
  pci.bus = bus;
  pci.device = 0;
  pci.pciDeviceId = (model->pci_device_ids.empty() ? 0U : model->pci_device_ids.front()) << 16 | 0x10DEU;
  pci.pciSubSystemId = 0x147E10DEU;
  return pci;
}

bool Gpu::gpm_supported() const { return model->architecture == "Hopper" || model->architecture == "Blackwell"; }

GpuInstance* Gpu::instance(unsigned id) {
  for (auto& gi : instances) {
    if (gi->id == id) return gi.get();
  }
  return nullptr;
}

bool State::reset(const std::string& spec) {
  init_count = 0;
  gpus.clear();
  topology.clear();
  event_sets.clear();
  failures.clear();
  calls.clear();
  clock_ms = 0;
  gpm_samples.clear();
  events_changed.notify_all();
  std::vector<const gpupool::gpu::GpuModel*> models;
  if (!parse_spec(spec, models)) return false;
  for (std::size_t i = 0; i < models.size(); ++i) {
    auto gpu = std::make_unique<Gpu>();
    gpu->index = static_cast<int>(i);
    gpu->model = models[i];
    gpu->uuid = gpu_uuid(gpu->index);
    gpu->bus = 0x07 + 8 * static_cast<unsigned>(i);
    gpu->temperature_c = 30 + gpu->index;
    gpus.push_back(std::move(gpu));
  }
  return true;
}

Gpu* State::gpu(int index) {
  if (index < 0 || static_cast<std::size_t>(index) >= gpus.size()) return nullptr;
  return gpus[static_cast<std::size_t>(index)].get();
}

Gpu* State::gpu(nvmlDevice_t device) {
  for (auto& g : gpus) {
    if (handle_of(*g).handle == device.handle) return g.get();
  }
  return nullptr;
}

ComputeInstance* State::mig_device(nvmlDevice_t device) {
  for (auto& g : gpus) {
    for (auto& gi : g->instances) {
      for (auto& ci : gi->compute) {
        if (mig_handle_of(*ci).handle == device.handle) return ci.get();
      }
    }
  }
  return nullptr;
}

GpuInstance* State::gpu_instance(nvmlGpuInstance_t instance) {
  for (auto& g : gpus) {
    for (auto& gi : g->instances) {
      if (handle_of(*gi).handle == instance.handle) return gi.get();
    }
  }
  return nullptr;
}

ComputeInstance* State::compute_instance(nvmlComputeInstance_t instance) {
  for (auto& g : gpus) {
    for (auto& gi : g->instances) {
      for (auto& ci : gi->compute) {
        if (handle_of(*ci).handle == instance.handle) return ci.get();
      }
    }
  }
  return nullptr;
}

EventSet* State::event_set(nvmlEventSet_t set) {
  for (auto& s : event_sets) {
    if (handle_of(*s).handle == set.handle) return s.get();
  }
  return nullptr;
}

GpmSample* State::gpm_sample(nvmlGpmSample_t sample) {
  for (auto& s : gpm_samples) {
    if (handle_of(*s).handle == sample.handle) return s.get();
  }
  return nullptr;
}

State& state() {
  static State instance;
  return instance;
}

nvmlDevice_t handle_of(Gpu& gpu) { return make_handle<nvmlDevice_t>(&gpu); }
nvmlDevice_t mig_handle_of(ComputeInstance& ci) { return make_handle<nvmlDevice_t>(&ci.mig_device); }
nvmlGpuInstance_t handle_of(GpuInstance& gi) { return make_handle<nvmlGpuInstance_t>(&gi); }
nvmlComputeInstance_t handle_of(ComputeInstance& ci) { return make_handle<nvmlComputeInstance_t>(&ci); }
nvmlEventSet_t handle_of(EventSet& set) { return make_handle<nvmlEventSet_t>(&set); }
nvmlGpmSample_t handle_of(GpmSample& sample) { return make_handle<nvmlGpmSample_t>(&sample); }

Call::Call(const char* symbol, bool needs_init) : st(state()), lock(st.mu) {
  ++st.calls[symbol];
  if (auto failure = st.failures.find(symbol); failure != st.failures.end() && failure->second.times > 0) {
    --failure->second.times;
    early = failure->second.ret;
  } else if (needs_init && st.init_count == 0) {
    early = NVML_ERROR_UNINITIALIZED;
  }
}

nvmlReturn_t copy_out(const std::string& text, char* buffer, unsigned length) {
  if (buffer == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
  if (text.size() + 1 > length) return NVML_ERROR_INSUFFICIENT_SIZE;
  std::memcpy(buffer, text.c_str(), text.size() + 1);
  return NVML_SUCCESS;
}

}  // namespace fake_nvml
