// What the NVML backend's tests share: the fake libnvidia-ml.so.1 libraries
// (test/fakes/fake_nvml), opened once per process, with their control
// functions, and a fixture making a backend over a fresh fake node.
#pragma once

#include <dlfcn.h>
#include <gtest/gtest.h>

#include <memory>
#include <stdexcept>
#include <string>

#include "../../../fakes/fake_nvml/fake_nvml_control.h"
#include "gpupool/backend/nvml_backend.h"

namespace gpupool::backend::nvml_test {

// One fake library and its control functions. The handle stays open for the
// process: the backend's own dlopen of the same path shares its state.
struct FakeNvml {
  explicit FakeNvml(std::string library_path) : path(std::move(library_path)) {
    handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) throw std::runtime_error("cannot load the fake NVML " + path + ": " + dlerror());
    reset = symbol<fakeNvmlReset_fn>("fakeNvmlReset");
    fail_next = symbol<fakeNvmlFailNext_fn>("fakeNvmlFailNext");
    inject_xid = symbol<fakeNvmlInjectXid_fn>("fakeNvmlInjectXid");
    set_mig_in_use = symbol<fakeNvmlSetMigInUse_fn>("fakeNvmlSetMigInUse");
    reset_gpu = symbol<fakeNvmlResetGpu_fn>("fakeNvmlResetGpu");
    add_process = symbol<fakeNvmlAddProcess_fn>("fakeNvmlAddProcess");
    set_topology = symbol<fakeNvmlSetTopology_fn>("fakeNvmlSetTopology");
    set_nvlinks = symbol<fakeNvmlSetNvLinks_fn>("fakeNvmlSetNvLinks");
    set_nvswitch_links = symbol<fakeNvmlSetNvSwitchLinks_fn>("fakeNvmlSetNvSwitchLinks");
    set_metrics = symbol<fakeNvmlSetMetrics_fn>("fakeNvmlSetMetrics");
    set_telemetry = symbol<fakeNvmlSetTelemetry_fn>("fakeNvmlSetTelemetry");
    set_reserved_memory = symbol<fakeNvmlSetReservedMemory_fn>("fakeNvmlSetReservedMemory");
    set_instance_activity = symbol<fakeNvmlSetInstanceActivity_fn>("fakeNvmlSetInstanceActivity");
    advance_clock = symbol<fakeNvmlAdvanceClock_fn>("fakeNvmlAdvanceClock");
    gpm_samples_held = symbol<fakeNvmlGpmSamplesHeld_fn>("fakeNvmlGpmSamplesHeld");
    call_count = symbol<fakeNvmlCallCount_fn>("fakeNvmlCallCount");
    init_count = symbol<fakeNvmlInitCount_fn>("fakeNvmlInitCount");
  }

  // Any symbol of the library (NVML's own too), by its type.
  template <typename Fn>
  Fn symbol(const char* name) const {
    void* address = dlsym(handle, name);
    if (address == nullptr) throw std::runtime_error(std::string("the fake NVML lacks ") + name);
    return reinterpret_cast<Fn>(address);
  }

  std::string path;
  void* handle = nullptr;
  fakeNvmlReset_fn reset = nullptr;
  fakeNvmlFailNext_fn fail_next = nullptr;
  fakeNvmlInjectXid_fn inject_xid = nullptr;
  fakeNvmlSetMigInUse_fn set_mig_in_use = nullptr;
  fakeNvmlResetGpu_fn reset_gpu = nullptr;
  fakeNvmlAddProcess_fn add_process = nullptr;
  fakeNvmlSetTopology_fn set_topology = nullptr;
  fakeNvmlSetNvLinks_fn set_nvlinks = nullptr;
  fakeNvmlSetNvSwitchLinks_fn set_nvswitch_links = nullptr;
  fakeNvmlSetMetrics_fn set_metrics = nullptr;
  fakeNvmlSetTelemetry_fn set_telemetry = nullptr;
  fakeNvmlSetReservedMemory_fn set_reserved_memory = nullptr;
  fakeNvmlSetInstanceActivity_fn set_instance_activity = nullptr;
  fakeNvmlAdvanceClock_fn advance_clock = nullptr;
  fakeNvmlGpmSamplesHeld_fn gpm_samples_held = nullptr;
  fakeNvmlCallCount_fn call_count = nullptr;
  fakeNvmlInitCount_fn init_count = nullptr;
};

// Every symbol the backend may use.
inline const FakeNvml& fake_nvml() {
  static const FakeNvml fake(GPUPOOL_FAKE_NVML_PATH);
  return fake;
}

// Without the newer symbols (fake_nvml_control.h lists them).
inline const FakeNvml& fake_nvml_legacy() {
  static const FakeNvml fake(GPUPOOL_FAKE_NVML_LEGACY_PATH);
  return fake;
}

// The node of most tests: two A100 80GB and one H100 80GB.
inline constexpr const char* kThreeGpus = "a100-sxm4-80gb=2,h100-sxm5-80gb=1";

class NvmlBackendTest : public ::testing::Test {
 protected:
  // A backend over a fresh fake node of `spec` (catalog ids with counts).
  std::unique_ptr<GpuBackend> make(const char* spec = kThreeGpus) {
    if (fake.reset(spec) != 0) throw std::runtime_error(std::string("bad fake NVML spec ") + spec);
    NvmlOptions options;
    options.library_path = fake.path;
    return make_nvml_backend(options);
  }

  const FakeNvml& fake = fake_nvml();
};

// Runs `call` and returns the BackendError's code it throws ("" if none).
template <typename Call>
std::string error_code(Call&& call) {
  try {
    call();
  } catch (const BackendError& e) {
    return e.code();
  }
  return "";
}

}  // namespace gpupool::backend::nvml_test
