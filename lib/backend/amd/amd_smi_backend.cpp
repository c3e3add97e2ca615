// The amd-smi backend (commands in amd_backend.h).
#include <algorithm>

#include "amd_backends.h"
#include "gpupool/backend/amd_parse.h"
#include "partition_change.h"

namespace gpupool::backend::amd {

namespace {

class AmdSmiBackend final : public AmdBackendBase {
 public:
  AmdSmiBackend(Tool tool, const gpu::Catalog& catalog) : tool_(std::move(tool)), catalog_(catalog) {}

  Inventory inventory() override {
    Inventory inv = value_or_throw(amdsmi::parse_static_json(tool_.run({"static", "--json"}), catalog_));
    amdsmi::merge_list(inv, value_or_throw(amdsmi::parse_list_json(tool_.run({"list", "--json"}))));
    return inv;
  }

  std::vector<GpuMetrics> metrics() override {
    return value_or_throw(amdsmi::parse_metric_json(tool_.run({"metric", "--json"})));
  }

  std::vector<GpuProcess> processes() override {
    return value_or_throw(amdsmi::parse_process_json(tool_.run({"process", "--json"})));
  }

  void set_amd_partition(int gpu_index, const std::string& compute, const std::string& memory) override {
    const std::string gpu = std::to_string(gpu_index);
    PartitionTool ops;
    ops.read = [&] { return read_modes(gpu_index); };
    ops.set_compute = [&](const std::string& mode) { set({"set", "-g", gpu, "--compute-partition", mode}, tool_.timeout()); };
    ops.set_memory = [&](const std::string& mode) {
      // The change reloads the driver; amd-smi asks first. The agent only gets
      // here with the node drained, which is what the question is about.
      set({"set", "-g", gpu, "--memory-partition", mode}, std::max(tool_.timeout(), kMemorySetTimeout), "Y\n");
    };
    change_partition(gpu_index, compute, memory, ops);
  }

 private:
  CurrentModes read_modes(int gpu_index) {
    const std::vector<std::string> args{"static", "-g", std::to_string(gpu_index), "--partition", "--json"};
    const auto rows = value_or_throw(amdsmi::parse_partition_json(tool_.run(args)));
    const auto it = std::find_if(rows.begin(), rows.end(),
                                 [&](const amdsmi::PartitionModes& m) { return m.index == gpu_index; });
    if (it == rows.end()) {
      throw BackendError("not-found", "GPU " + std::to_string(gpu_index) + " is not in the output of `" +
                                          tool_.command_line(args) + "`");
    }
    return {it->compute, it->memory};
  }

  // Runs a set command; amd-smi may report a library failure in its output with exit status 0.
  void set(const std::vector<std::string>& args, std::chrono::milliseconds timeout, const std::string& answer = "") {
    const std::string out = tool_.run(args, timeout, answer);
    if (const std::string status = amdsmi_status_in(out); !status.empty()) {
      std::string text = out;
      if (text.size() > 2000) text = text.substr(0, 2000) + "...";
      while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
      throw BackendError(status, "`" + tool_.command_line(args) + "` failed: " + text);
    }
  }

  Tool tool_;
  const gpu::Catalog& catalog_;
};

}  // namespace

std::unique_ptr<GpuBackend> make_amd_smi_backend(Tool amd_smi, const gpu::Catalog& catalog) {
  return std::make_unique<AmdSmiBackend>(std::move(amd_smi), catalog);
}

}  // namespace gpupool::backend::amd
