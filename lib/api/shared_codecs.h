// Private to lib/api: the codecs of the types several kinds share, defined in
// meta_codec.cpp and common_codec.cpp.
#pragma once

#include "struct_codec.h"

namespace gpupool::api {

GPUPOOL_API_DECLARE_STRUCT_CODEC(ObjectMeta)
GPUPOOL_API_DECLARE_STRUCT_CODEC(Condition)
GPUPOOL_API_DECLARE_STRUCT_CODEC(LabelSelectorRequirement)
GPUPOOL_API_DECLARE_STRUCT_CODEC(LabelSelector)
GPUPOOL_API_DECLARE_STRUCT_CODEC(LocalObjectReference)

GPUPOOL_API_DECLARE_STRUCT_CODEC(MaintenanceWindow)
GPUPOOL_API_DECLARE_STRUCT_CODEC(DrainOptions)
GPUPOOL_API_DECLARE_STRUCT_CODEC(UpgradeStrategy)
GPUPOOL_API_DECLARE_STRUCT_CODEC(TimeSlicing)
GPUPOOL_API_DECLARE_STRUCT_CODEC(MPS)
GPUPOOL_API_DECLARE_STRUCT_CODEC(Sharing)
GPUPOOL_API_DECLARE_STRUCT_CODEC(Taint)
GPUPOOL_API_DECLARE_STRUCT_CODEC(DriverInstaller)
GPUPOOL_API_DECLARE_STRUCT_CODEC(DriverSpec)
GPUPOOL_API_DECLARE_STRUCT_CODEC(MonitoringToggle)
GPUPOOL_API_DECLARE_STRUCT_CODEC(Monitoring)
GPUPOOL_API_DECLARE_STRUCT_CODEC(AMDPartitioning)

}  // namespace gpupool::api
