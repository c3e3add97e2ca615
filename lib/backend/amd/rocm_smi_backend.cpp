// The rocm-smi backend, for nodes without amd-smi (commands in amd_backend.h).
#include <algorithm>

#include "amd_backends.h"
#include "gpupool/backend/amd_parse.h"
#include "partition_change.h"

namespace gpupool::backend::amd {

namespace {

class RocmSmiBackend final : public AmdBackendBase {
 public:
  RocmSmiBackend(Tool tool, const gpu::Catalog& catalog) : tool_(std::move(tool)), catalog_(catalog) {}

  Inventory inventory() override {
    return value_or_throw(amdsmi::parse_rocm_smi_json(
        tool_.run({"--showid", "--showproductname", "--showbus", "--showmeminfo", "vram", "--showuniqueid",
                   "--showdriverversion", "--showcomputepartition", "--showmemorypartition", "--json"}),
        catalog_));
  }

  std::vector<GpuMetrics> metrics() override {
    return value_or_throw(amdsmi::parse_rocm_smi_metrics_json(
        tool_.run({"--showtemp", "--showpower", "--showuse", "--showmeminfo", "vram", "--showclocks",
                   "--showenergycounter", "--json"})));
  }

  std::vector<GpuProcess> processes() override {
    throw BackendError("not-supported",
                       "rocm-smi does not report which GPU each process uses in its JSON; install amd-smi");
  }

  void set_amd_partition(int gpu_index, const std::string& compute, const std::string& memory) override {
    const std::string gpu = std::to_string(gpu_index);
    PartitionTool ops;
    ops.read = [&] { return read_modes(gpu_index); };
    ops.set_compute = [&](const std::string& mode) { tool_.run({"-d", gpu, "--setcomputepartition", mode}); };
    ops.set_memory = [&](const std::string& mode) {
      tool_.run({"-d", gpu, "--setmemorypartition", mode}, std::max(tool_.timeout(), kMemorySetTimeout));
    };
    change_partition(gpu_index, compute, memory, ops);
  }

 private:
  CurrentModes read_modes(int gpu_index) {
    const std::vector<std::string> args{"-d", std::to_string(gpu_index), "--showcomputepartition",
                                        "--showmemorypartition", "--json"};
    const Inventory inv = value_or_throw(amdsmi::parse_rocm_smi_json(tool_.run(args), catalog_));
    const auto it = std::find_if(inv.gpus.begin(), inv.gpus.end(), [&](const GpuInfo& g) { return g.index == gpu_index; });
    if (it == inv.gpus.end()) {
      throw BackendError("not-found", "GPU " + std::to_string(gpu_index) + " is not in the output of `" +
                                          tool_.command_line(args) + "`");
    }
    return {it->compute_partition, it->memory_partition};
  }

  Tool tool_;
  const gpu::Catalog& catalog_;
};

}  // namespace

std::unique_ptr<GpuBackend> make_rocm_smi_backend(Tool rocm_smi, const gpu::Catalog& catalog) {
  return std::make_unique<RocmSmiBackend>(std::move(rocm_smi), catalog);
}

}  // namespace gpupool::backend::amd
