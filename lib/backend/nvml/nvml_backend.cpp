// GpuBackend over NVML: the pieces of nvml_parts.h behind the interface.
#include "gpupool/backend/nvml_backend.h"

#include "nvml_parts.h"

namespace gpupool::backend {
namespace {

class NvmlBackend final : public GpuBackend {
 public:
  explicit NvmlBackend(const NvmlOptions& options)
      : lib_(options.library_path),
        catalog_(options.catalog != nullptr ? *options.catalog : gpu::Catalog::builtin()),
        events_(lib_),
        gpm_(lib_) {}

  std::string name() const override { return "nvml"; }

  Inventory inventory() override {
    Inventory inventory;
    inventory.driver_version = nvml::driver_version(lib_);
    inventory.cuda_version = nvml::cuda_version(lib_);
    const auto devices = nvml::device_handles(lib_);
    std::vector<std::string> bus_ids;
    for (std::size_t i = 0; i < devices.size(); ++i) {
      inventory.gpus.push_back(nvml::read_gpu(lib_, catalog_, devices[i], static_cast<int>(i)));
      bus_ids.push_back(inventory.gpus.back().pci_bus_id);
    }
    inventory.links = nvml::read_links(lib_, devices, bus_ids);
    return inventory;
  }

  std::vector<GpuMetrics> metrics() override {
    std::vector<GpuMetrics> all;
    const auto devices = nvml::device_handles(lib_);
    gpm_.begin_round();
    for (std::size_t i = 0; i < devices.size(); ++i) {
      const int gpu = static_cast<int>(i);
      all.push_back(nvml::read_metrics(lib_, devices[i], gpu));
      all.back().instances = nvml::read_instance_metrics(lib_, gpm_, devices[i], gpu);
    }
    gpm_.end_round();
    return all;
  }

  std::vector<GpuProcess> processes() override {
    std::vector<GpuProcess> all;
    const auto devices = nvml::device_handles(lib_);
    for (std::size_t i = 0; i < devices.size(); ++i) {
      auto some = nvml::read_processes(lib_, devices[i], static_cast<int>(i));
      all.insert(all.end(), some.begin(), some.end());
    }
    return all;
  }

  std::vector<XidEvent> wait_xid_events(std::chrono::milliseconds timeout) override { return events_.wait(timeout); }

  MigModeChange set_mig_mode(int gpu_index, bool enabled) override {
    return nvml::set_mig_mode(lib_, nvml::device_handle(lib_, gpu_index), gpu_index, enabled);
  }

  MigInstance create_mig_instance(int gpu_index, const std::string& profile, int placement_start) override {
    const nvmlDevice_t device = nvml::device_handle(lib_, gpu_index);
    const gpu::GpuModel* model = nvml::model_of(lib_, catalog_, device, gpu_index);
    return nvml::create_mig_instance(lib_, device, gpu_index, model, profile, placement_start);
  }

  void destroy_mig_instance(int gpu_index, int gpu_instance_id) override {
    nvml::destroy_mig_instance(lib_, nvml::device_handle(lib_, gpu_index), gpu_index, gpu_instance_id);
  }

  void set_amd_partition(int gpu_index, const std::string&, const std::string&) override {
    throw BackendError("not-supported", "GPU " + std::to_string(gpu_index) +
                                            ": AMD partition modes do not apply to the NVML backend");
  }

 private:
  nvml::Library lib_;  // first in, last out: the event set and GPM samples are freed before nvmlShutdown
  const gpu::Catalog& catalog_;
  nvml::XidEventSource events_;
  nvml::GpmSampler gpm_;  // the previous GPM sample of each MIG instance (backend.h's one exception)
};

}  // namespace

std::unique_ptr<GpuBackend> make_nvml_backend(const NvmlOptions& options) {
  return std::make_unique<NvmlBackend>(options);
}

}  // namespace gpupool::backend
