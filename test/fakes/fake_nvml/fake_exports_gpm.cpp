// Exported NVML: GPM (R520+), which the legacy build of the fake leaves out.
// Only GPUs of Hopper and later architectures support it, and only per MIG
// instance here (nvmlGpmMigSampleGet): a sample records the fake's clock and
// the instance's activity counters (fake_nvml_control.h), and
// nvmlGpmMetricsGet divides their growth by the time between the samples.
#include <algorithm>

#include "fake_state.h"

using namespace fake_nvml;

FAKE_NVML_EXPORT nvmlReturn_t nvmlGpmQueryDeviceSupport(nvmlDevice_t device, nvmlGpmSupport_t* support) {
  Call call("nvmlGpmQueryDeviceSupport");
  if (call.early) return *call.early;
  Gpu* gpu = call.st.gpu(device);
  if (gpu == nullptr) {
    if (ComputeInstance* mig = call.st.mig_device(device)) gpu = mig->parent->parent;
  }
  if (gpu == nullptr || support == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
  if (support->version != NVML_GPM_SUPPORT_VERSION) return NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
  support->isSupportedDevice = gpu->gpm_supported() ? 1 : 0;
  return NVML_SUCCESS;
}

FAKE_NVML_EXPORT nvmlReturn_t nvmlGpmSampleAlloc(nvmlGpmSample_t* sample) {
  Call call("nvmlGpmSampleAlloc");
  if (call.early) return *call.early;
  if (sample == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
  call.st.gpm_samples.push_back(std::make_unique<GpmSample>());
  *sample = handle_of(*call.st.gpm_samples.back());
  return NVML_SUCCESS;
}

FAKE_NVML_EXPORT nvmlReturn_t nvmlGpmSampleFree(nvmlGpmSample_t sample) {
  Call call("nvmlGpmSampleFree");
  if (call.early) return *call.early;
  auto& samples = call.st.gpm_samples;
  const auto it = std::find_if(samples.begin(), samples.end(),
                               [&](const auto& s) { return handle_of(*s).handle == sample.handle; });
  if (it == samples.end()) return NVML_ERROR_INVALID_ARGUMENT;
  samples.erase(it);
  return NVML_SUCCESS;
}

FAKE_NVML_EXPORT nvmlReturn_t nvmlGpmMigSampleGet(nvmlDevice_t device, unsigned gpu_instance_id, nvmlGpmSample_t sample) {
  Call call("nvmlGpmMigSampleGet");
  if (call.early) return *call.early;
  Gpu* gpu = call.st.gpu(device);
  GpmSample* out = call.st.gpm_sample(sample);
  if (gpu == nullptr || out == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
  if (!gpu->gpm_supported() || !gpu->mig_enabled()) return NVML_ERROR_NOT_SUPPORTED;
  if (gpu->instance(gpu_instance_id) == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
  out->filled = true;
  out->gpu = gpu;
  out->gpu_instance_id = gpu_instance_id;
  out->time_ms = call.st.clock_ms;
  out->counters = gpu->gpm[gpu_instance_id];
  return NVML_SUCCESS;
}

FAKE_NVML_EXPORT nvmlReturn_t nvmlGpmMetricsGet(nvmlGpmMetricsGet_t* get) {
  Call call("nvmlGpmMetricsGet");
  if (call.early) return *call.early;
  if (get == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
  if (get->version != NVML_GPM_METRICS_GET_VERSION) return NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
  const GpmSample* first = call.st.gpm_sample(get->sample1);
  const GpmSample* second = call.st.gpm_sample(get->sample2);
  if (first == nullptr || second == nullptr || !first->filled || !second->filled || first->gpu != second->gpu ||
      first->gpu_instance_id != second->gpu_instance_id || second->time_ms < first->time_ms ||
      get->numMetrics > NVML_GPM_METRIC_MAX) {
    return NVML_ERROR_INVALID_ARGUMENT;
  }
  const unsigned long long elapsed = second->time_ms - first->time_ms;
  for (unsigned i = 0; i < get->numMetrics; ++i) {
    nvmlGpmMetric_t& metric = get->metrics[i];
    unsigned long long GpmActivity::*counter = nullptr;
    switch (metric.metricId) {
      case NVML_GPM_METRIC_GRAPHICS_UTIL: counter = &GpmActivity::graphics; break;
      case NVML_GPM_METRIC_SM_UTIL: counter = &GpmActivity::sm; break;
      case NVML_GPM_METRIC_DRAM_BW_UTIL: counter = &GpmActivity::dram; break;
      default: break;
    }
    metric.value = 0;
    metric.metricInfo = {nullptr, nullptr, nullptr};
    if (counter == nullptr) {
      metric.nvmlReturn = NVML_ERROR_NOT_SUPPORTED;  // a metric this fake does not model
    } else if (elapsed == 0) {
      metric.nvmlReturn = NVML_ERROR_INVALID_ARGUMENT;  // no time between the samples: no rate
    } else {
      metric.nvmlReturn = NVML_SUCCESS;
      metric.value = static_cast<double>(second->counters.*counter - first->counters.*counter) /
                     static_cast<double>(elapsed);
    }
  }
  return NVML_SUCCESS;
}
