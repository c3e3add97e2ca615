// GpmSampler (nvml_parts.h): NVML GPM metrics of MIG instances, which NVML
// computes from two samples taken apart in time. Each instance keeps two
// sample buffers: the newest sample and a spare the next sample overwrites.
#include <iterator>
#include <memory>
#include <utility>

#include "nvml_parts.h"

namespace gpupool::backend::nvml {
namespace {

constexpr unsigned kMetrics[] = {NVML_GPM_METRIC_GRAPHICS_UTIL, NVML_GPM_METRIC_SM_UTIL, NVML_GPM_METRIC_DRAM_BW_UTIL};

std::string instance_detail(const GpmKey& key) { return "GPU instance " + std::to_string(key.gpu_instance_id); }

}  // namespace

GpmSampler::~GpmSampler() {
  for (auto& [key, slot] : slots_) free_slot(slot);
}

bool GpmSampler::supported(nvmlDevice_t device, int gpu) const {
  const Api& api = lib_.api();
  if (api.gpm_query_device_support == nullptr || api.gpm_sample_alloc == nullptr || api.gpm_sample_free == nullptr ||
      api.gpm_mig_sample_get == nullptr || api.gpm_metrics_get == nullptr) {
    return false;
  }
  nvmlGpmSupport_t support{};
  support.version = NVML_GPM_SUPPORT_VERSION;
  const nvmlReturn_t ret = api.gpm_query_device_support(device, &support);
  if (ret == NVML_ERROR_NOT_SUPPORTED) return false;
  lib_.check(ret, "nvmlGpmQueryDeviceSupport", gpu);
  return support.isSupportedDevice != 0;
}

void GpmSampler::begin_round() {
  for (auto& [key, slot] : slots_) slot.seen = false;
}

void GpmSampler::end_round() {
  for (auto it = slots_.begin(); it != slots_.end();) {
    if (it->second.seen) {
      ++it;
    } else {
      free_slot(it->second);
      it = slots_.erase(it);
    }
  }
}

void GpmSampler::free_slot(Slot& slot) const {
  // Nothing can be done about a failure here: the buffer is NVML's.
  if (slot.previous.handle != nullptr) lib_.api().gpm_sample_free(slot.previous);
  if (slot.spare.handle != nullptr) lib_.api().gpm_sample_free(slot.spare);
  slot.previous = slot.spare = nvmlGpmSample_t{nullptr};
}

std::optional<GpmReading> GpmSampler::sample(const GpmKey& key, nvmlDevice_t device) {
  const Api& api = lib_.api();
  Slot& slot = slots_[key];
  slot.seen = true;
  if (slot.spare.handle == nullptr) {
    lib_.check(api.gpm_sample_alloc(&slot.spare), "nvmlGpmSampleAlloc", key.gpu, instance_detail(key));
  }
  const nvmlReturn_t ret = api.gpm_mig_sample_get(device, static_cast<unsigned>(key.gpu_instance_id), slot.spare);
  if (ret == NVML_ERROR_NOT_SUPPORTED) return std::nullopt;
  lib_.check(ret, "nvmlGpmMigSampleGet", key.gpu, instance_detail(key));
  std::swap(slot.previous, slot.spare);  // previous: this sample; spare: the one before, if any
  if (slot.spare.handle == nullptr) return std::nullopt;

  // About 13 KiB: kept off the stack.
  auto get = std::make_unique<nvmlGpmMetricsGet_t>();
  get->version = NVML_GPM_METRICS_GET_VERSION;
  get->numMetrics = static_cast<unsigned>(std::size(kMetrics));
  get->sample1 = slot.spare;
  get->sample2 = slot.previous;
  for (unsigned i = 0; i < get->numMetrics; ++i) get->metrics[i].metricId = kMetrics[i];
  const nvmlReturn_t got = api.gpm_metrics_get(get.get());
  if (got == NVML_ERROR_NOT_SUPPORTED) return std::nullopt;
  lib_.check(got, "nvmlGpmMetricsGet", key.gpu, instance_detail(key));
  auto value = [&](unsigned i) -> std::optional<double> {
    if (get->metrics[i].nvmlReturn != NVML_SUCCESS) return std::nullopt;
    return get->metrics[i].value;
  };
  return GpmReading{value(0), value(1), value(2)};
}

}  // namespace gpupool::backend::nvml
