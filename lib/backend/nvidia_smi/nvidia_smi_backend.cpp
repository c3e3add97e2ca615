// GpuBackend over the nvidia-smi command (see nvidia_smi_backend.h).
#include "gpupool/backend/nvidia_smi_backend.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <thread>

#include "gpupool/backend/nvidia_smi_parse.h"
#include "gpupool/common/subprocess.h"
#include "nvidia_smi_command.h"

namespace gpupool::backend {

namespace {

using nvsmi::NvidiaSmiCommand;

template <class T>
T parsed_or_throw(nvsmi::ParseResult<T> result, const std::vector<std::string>& args) {
  if (!result.ok()) {
    throw BackendError("parse", "cannot read the output of " + NvidiaSmiCommand::describe(args) + ": " +
                                    result.error().to_string());
  }
  return std::move(result).value();
}

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

bool has(const std::string& s, std::string_view part) { return s.find(part) != std::string::npos; }

// "Warning: MIG mode is in pending enable state for GPU ...:In use by another
// client ... Reboot the system or try nvidia-smi --gpu-reset ..."
bool says_reset_required(const std::string& output) {
  const std::string l = lower(output);
  return (has(l, "pending") && (has(l, "reset") || has(l, "reboot"))) || has(l, "in use by another client");
}

bool says_not_found(const nvsmi::CommandOutput& output) {
  const std::string l = lower(output.out + "\n" + output.err);
  return has(l, "not found");
}

class NvidiaSmiBackend final : public GpuBackend {
 public:
  NvidiaSmiBackend(std::string path, const gpu::Catalog& catalog, std::chrono::milliseconds timeout)
      : command_(std::move(path), timeout), catalog_(catalog) {}

  std::string name() const override { return "nvidia-smi"; }

  Inventory inventory() override {
    nvsmi::QueryXml xml = query_xml();
    Inventory inv = std::move(xml.inventory);
    const bool any_mig = std::any_of(inv.gpus.begin(), inv.gpus.end(),
                                     [](const GpuInfo& g) { return g.mig.current == MigMode::enabled; });
    if (any_mig) {
      const auto gis = mig_table({"mig", "-lgi"}, nvsmi::parse_mig_lgi);
      const auto cis = mig_table({"mig", "-lci"}, nvsmi::parse_mig_lci);
      const std::vector<std::string> list_args{"-L"};
      const auto listed = parsed_or_throw(nvsmi::parse_list(command_.run(list_args)), list_args);
      nvsmi::merge_mig_tables(inv, gis, cis, xml.mig_devices, listed, catalog_);
    }
    const std::vector<std::string> topo_args{"topo", "-m"};
    const nvsmi::CommandOutput topo = command_.run_any_exit(topo_args);
    if (topo.exit_code == 0) inv.links = parsed_or_throw(nvsmi::parse_topo_matrix(topo.out), topo_args);
    return inv;
  }

  std::vector<GpuMetrics> metrics() override {
    std::vector<GpuMetrics> out;
    bool any_mig = false;
    for (auto& row : query_gpu({})) {
      any_mig = any_mig || row.mig_current == MigMode::enabled;
      out.push_back(row.metrics);
    }
    std::sort(out.begin(), out.end(), [](const GpuMetrics& a, const GpuMetrics& b) { return a.index < b.index; });
    if (any_mig) nvsmi::merge_mig_device_memory(out, query_xml().mig_devices);
    return out;
  }

  std::vector<GpuProcess> processes() override { return query_xml().processes; }

  // nvidia-smi has no way to wait for XID events (NVML's event set does).
  std::vector<XidEvent> wait_xid_events(std::chrono::milliseconds timeout) override {
    if (timeout.count() > 0) std::this_thread::sleep_for(timeout);
    return {};
  }

  MigModeChange set_mig_mode(int gpu_index, bool enabled) override {
    check_index(gpu_index);
    const std::vector<std::string> args{"-i", std::to_string(gpu_index), "-mig", enabled ? "1" : "0"};
    const nvsmi::CommandOutput output = command_.run_any_exit(args);
    if (says_reset_required(output.out + "\n" + output.err)) return MigModeChange::reset_required;
    if (output.exit_code != 0) NvidiaSmiCommand::throw_exit(args, output);
    return MigModeChange::applied;
  }

  MigInstance create_mig_instance(int gpu_index, const std::string& profile_name, int placement_start) override {
    check_index(gpu_index);
    const auto rows = query_gpu({"-i", std::to_string(gpu_index)});
    const auto row = std::find_if(rows.begin(), rows.end(), [&](const auto& r) { return r.index == gpu_index; });
    if (row == rows.end()) throw BackendError("not-found", "nvidia-smi reports no GPU " + std::to_string(gpu_index));
    const gpu::GpuModel* model = catalog_.find(row->name);
    if (model == nullptr || !model->mig) {
      throw BackendError("NVML_ERROR_NOT_SUPPORTED", "GPU " + std::to_string(gpu_index) + " (" + row->name +
                                                         ") is not a MIG-capable model of the catalog");
    }
    const gpu::MigProfile* profile = model->mig->profile(profile_name);
    if (profile == nullptr) {
      throw BackendError("NVML_ERROR_INVALID_ARGUMENT",
                         "MIG profile " + profile_name + " does not exist on " + gpu::short_name(*model));
    }
    const bool placement_ok = std::any_of(profile->placements.begin(), profile->placements.end(),
                                          [&](const gpu::MigPlacement& p) { return p.start == placement_start; });
    if (!placement_ok) {
      std::string starts;
      for (const auto& p : profile->placements) starts += (starts.empty() ? "" : ",") + std::to_string(p.start);
      throw BackendError("NVML_ERROR_INVALID_ARGUMENT", "MIG profile " + profile_name + " on " +
                                                            gpu::short_name(*model) + " cannot start at memory slice " +
                                                            std::to_string(placement_start) + " (only at " + starts + ")");
    }
    const std::vector<std::string> args{"mig", "-i", std::to_string(gpu_index), "-cgi",
                                        std::to_string(profile->profile_id) + ":" + std::to_string(placement_start), "-C"};
    const nvsmi::CreatedInstance created = parsed_or_throw(nvsmi::parse_mig_create(command_.run(args)), args);

    // Read back what the driver made (profile, placement, MIG UUID).
    const Inventory inv = inventory();
    for (const GpuInfo& g : inv.gpus) {
      if (g.index != gpu_index) continue;
      for (const MigInstance& m : g.instances) {
        if (m.gpu_instance_id == created.gpu_instance_id) return m;
      }
    }
    MigInstance instance;
    instance.profile = profile->name;
    instance.profile_id = profile->profile_id;
    instance.placement_start = placement_start;
    instance.placement_size = profile->memory_slices;
    for (const auto& p : profile->placements) {
      if (p.start == placement_start) instance.placement_size = p.size;
    }
    instance.gpu_instance_id = created.gpu_instance_id;
    instance.compute_instance_id = created.compute_instance_id;
    return instance;
  }

  void destroy_mig_instance(int gpu_index, int gpu_instance_id) override {
    check_index(gpu_index);
    if (gpu_instance_id < 0) throw BackendError("not-found", "no GPU instance " + std::to_string(gpu_instance_id));
    const std::string gpu = std::to_string(gpu_index), gi = std::to_string(gpu_instance_id);
    const std::vector<std::string> dci{"mig", "-i", gpu, "-gi", gi, "-dci"};
    const nvsmi::CommandOutput output = command_.run_any_exit(dci);
    // A GPU instance without compute instances answers "Not Found".
    if (output.exit_code != 0 && !says_not_found(output)) NvidiaSmiCommand::throw_exit(dci, output);
    command_.run({"mig", "-i", gpu, "-gi", gi, "-dgi"});
  }

  void set_amd_partition(int, const std::string&, const std::string&) override {
    throw BackendError("not-supported", "the nvidia-smi backend has no AMD partition modes");
  }

 private:
  NvidiaSmiCommand command_;
  const gpu::Catalog& catalog_;
  bool before_r535_ = false;  // which --query-gpu list the driver took last (not hardware state: a vocabulary)

  static void check_index(int gpu_index) {
    if (gpu_index < 0 || gpu_index >= nvsmi::kMaxGpus) {
      throw BackendError("not-found", "no GPU " + std::to_string(gpu_index));
    }
  }

  nvsmi::QueryXml query_xml() {
    const std::vector<std::string> args{"-q", "-x"};
    return parsed_or_throw(nvsmi::parse_query_xml(command_.run(args), catalog_), args);
  }

  // --query-gpu with the field list this driver knows: a driver before R535
  // refuses clocks_event_reasons.active ("... is not a valid field to
  // query"), a later one might drop clocks_throttle_reasons.active. The list
  // that worked last is tried first (a driver install may change it).
  std::vector<nvsmi::QueryGpuRow> query_gpu(const std::vector<std::string>& extra) {
    for (int attempt = 0;; ++attempt) {
      const std::string_view fields = before_r535_ ? nvsmi::kQueryGpuFieldsBeforeR535 : nvsmi::kQueryGpuFields;
      std::vector<std::string> args{"--query-gpu=" + std::string(fields), "--format=csv,noheader,nounits"};
      args.insert(args.end(), extra.begin(), extra.end());
      const nvsmi::CommandOutput output = command_.run_any_exit(args);
      if (attempt == 0 && lower(output.out + "\n" + output.err).find("not a valid field to query") != std::string::npos) {
        before_r535_ = !before_r535_;
        continue;
      }
      if (output.exit_code != 0) NvidiaSmiCommand::throw_exit(args, output);
      return parsed_or_throw(nvsmi::parse_query_gpu_csv(output.out), args);
    }
  }

  // mig -lgi / -lci: "No GPU instances found" (with a non-zero exit) is an empty table.
  template <class Row>
  std::vector<Row> mig_table(const std::vector<std::string>& args,
                             nvsmi::ParseResult<std::vector<Row>> (*parse)(std::string_view)) {
    const nvsmi::CommandOutput output = command_.run_any_exit(args);
    if (output.exit_code != 0) {
      if (says_not_found(output)) return {};
      NvidiaSmiCommand::throw_exit(args, output);
    }
    return parsed_or_throw(parse(output.out), args);
  }
};

}  // namespace

std::unique_ptr<GpuBackend> make_nvidia_smi_backend(const NvidiaSmiOptions& options) {
  std::string path = options.nvidia_smi_path;
  if (path.empty()) {
    const char* env_path = std::getenv("PATH");
    path = common::find_in_path("nvidia-smi", env_path == nullptr ? "" : env_path);
  }
  const gpu::Catalog& catalog = options.catalog != nullptr ? *options.catalog : gpu::Catalog::builtin();
  return std::make_unique<NvidiaSmiBackend>(std::move(path), catalog, options.timeout);
}

}  // namespace gpupool::backend
