#include "gpupool/backend/select.h"

#include <cstdlib>

#include "gpupool/backend/amd_backend.h"
#include "gpupool/backend/nvidia_smi_backend.h"
#include "gpupool/backend/nvml_backend.h"
#include "gpupool/common/subprocess.h"

namespace gpupool::backend {
namespace {

std::string in_path(const std::string& name) {
  const char* path = std::getenv("PATH");
  return common::find_in_path(name, path ? path : "");
}

SelectedBackend make_simulated(const BackendSelection& s, std::string why) {
  SimulatedOptions o = s.simulated;
  if (o.catalog == nullptr) o.catalog = s.catalog;
  auto sim = std::make_unique<SimulatedBackend>(std::move(o));
  SelectedBackend out;
  out.simulated = sim.get();
  out.backend = std::move(sim);
  out.why = std::move(why);
  return out;
}

}  // namespace

SelectedBackend select_backend(const BackendSelection& s) {
  SelectedBackend out;
  if (s.kind == "simulated") return make_simulated(s, "simulated GPUs");
  if (s.kind == "nvml") {
    out.backend = make_nvml_backend({s.nvml_library, s.catalog});
    out.why = "NVML (" + s.nvml_library + ")";
    return out;
  }
  if (s.kind == "nvidia-smi") {
    NvidiaSmiOptions o;
    o.nvidia_smi_path = s.nvidia_smi;
    o.catalog = s.catalog;
    out.backend = make_nvidia_smi_backend(o);
    out.why = "nvidia-smi (" + (s.nvidia_smi.empty() ? std::string("$PATH") : s.nvidia_smi) + ")";
    return out;
  }
  if (s.kind == "amd") {
    AmdOptions o;
    o.amd_smi_path = s.amd_smi.empty() ? in_path("amd-smi") : s.amd_smi;
    o.rocm_smi_path = s.rocm_smi.empty() ? in_path("rocm-smi") : s.rocm_smi;
    o.catalog = s.catalog;
    out.backend = make_amd_backend(o);
    out.why = "AMD (" + (o.amd_smi_path.empty() ? "rocm-smi " + o.rocm_smi_path : "amd-smi " + o.amd_smi_path) + ")";
    return out;
  }
  if (s.kind != "auto") {
    throw BackendError("invalid-argument", "unknown backend \"" + s.kind + "\" (nvml, nvidia-smi, amd, simulated or auto)");
  }
  std::string tried;
  try {
    out.backend = make_nvml_backend({s.nvml_library, s.catalog});
    out.why = "auto: NVML (" + s.nvml_library + ") loaded";
    return out;
  } catch (const BackendError& e) {
    tried += "NVML: " + std::string(e.what());
  }
  const std::string smi = s.nvidia_smi.empty() ? in_path("nvidia-smi") : s.nvidia_smi;
  if (!smi.empty()) {
    NvidiaSmiOptions o;
    o.nvidia_smi_path = smi;
    o.catalog = s.catalog;
    out.backend = make_nvidia_smi_backend(o);
    out.why = "auto: nvidia-smi at " + smi;
    return out;
  }
  tried += "; nvidia-smi: not in $PATH";
  const std::string amd = s.amd_smi.empty() ? in_path("amd-smi") : s.amd_smi;
  const std::string rocm = s.rocm_smi.empty() ? in_path("rocm-smi") : s.rocm_smi;
  if (!amd.empty() || !rocm.empty()) {
    AmdOptions o;
    o.amd_smi_path = amd;
    o.rocm_smi_path = rocm;
    o.catalog = s.catalog;
    out.backend = make_amd_backend(o);
    out.why = "auto: " + (amd.empty() ? "rocm-smi at " + rocm : "amd-smi at " + amd);
    return out;
  }
  tried += "; amd-smi, rocm-smi: not in $PATH";
  throw BackendError("not-found", "no GPU backend found (" + tried +
                                      "); on a machine without GPUs use --backend simulated --simulated-gpus MODEL=COUNT");
}

}  // namespace gpupool::backend
