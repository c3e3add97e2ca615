// Implementations the fake's older and newer symbols share
// (nvmlDeviceGetPciInfo_v2 and _v3, nvmlEventSetWait and _v2, ...). Each takes
// the exported symbol's name for Call, and is the whole of the call.
#pragma once

#include <string>
#include <vector>

#include "fake_state.h"

namespace fake_nvml {

nvmlReturn_t cuda_driver_version(const char* symbol, int* version);
nvmlReturn_t pci_info(const char* symbol, nvmlDevice_t device, nvmlPciInfo_t* pci);
nvmlReturn_t temperature(const char* symbol, nvmlDevice_t device, int sensor, int* celsius);
nvmlReturn_t compute_processes(const char* symbol, nvmlDevice_t device, unsigned* count, nvmlProcessInfo_t* infos);
// `name`, when given, gets "MIG <profile>" (the v2 struct's name).
nvmlReturn_t gi_profile_info(const char* symbol, nvmlDevice_t device, unsigned profile,
                             nvmlGpuInstanceProfileInfo_t* info, std::string* name);
nvmlReturn_t gi_possible_placements(const char* symbol, nvmlDevice_t device, unsigned profile_id,
                                    nvmlGpuInstancePlacement_t* placements, unsigned* count);
nvmlReturn_t ci_profile_info(const char* symbol, nvmlGpuInstance_t instance, unsigned profile, unsigned engine_profile,
                             nvmlComputeInstanceProfileInfo_t* info, std::string* name);
// The unversioned call fills the fields before `placement` only.
nvmlReturn_t compute_instance_info(const char* symbol, nvmlComputeInstance_t instance, nvmlComputeInstanceInfo_t* info,
                                   bool with_placement);
nvmlReturn_t nvlink_remote_device_type(const char* symbol, nvmlDevice_t device, unsigned link, int* type);
nvmlReturn_t clocks_event_reasons(const char* symbol, nvmlDevice_t device, unsigned long long* reasons);
nvmlReturn_t event_set_wait(const char* symbol, nvmlEventSet_t set, nvmlEventData_t* data, unsigned timeout_ms);

// The MIG devices (compute instances) of a GPU in NVML's index order: by GPU
// instance id, then compute instance id.
std::vector<ComputeInstance*> mig_devices(Gpu& gpu);

}  // namespace fake_nvml
