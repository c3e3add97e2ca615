#include "gpupool/exporter/gpu_families.h"

#include "neutral_families.h"

namespace gpupool::exporter {

std::vector<metrics::FamilySnapshot> gpu_families(const GpuSample& sample, const ExporterOptions& options) {
  std::vector<metrics::FamilySnapshot> out;
  FamilySet neutral, dcgm, amd;
  add_neutral_families(sample, neutral);
  add_dcgm_families(sample, options.dcgm, dcgm);
  add_amd_families(sample, amd);
  neutral.append_to(out);
  dcgm.append_to(out);
  amd.append_to(out);
  return out;
}

}  // namespace gpupool::exporter
