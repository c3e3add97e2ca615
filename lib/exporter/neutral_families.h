// The vendor-neutral gpupool_gpu_* families (gpu_families.h). Internal.
#pragma once

#include "family_set.h"
#include "gpupool/exporter/gpu_families.h"

namespace gpupool::exporter {

void add_neutral_families(const GpuSample& sample, FamilySet& out);
void add_dcgm_families(const GpuSample& sample, DcgmNaming naming, FamilySet& out);
void add_amd_families(const GpuSample& sample, FamilySet& out);

}  // namespace gpupool::exporter
