// The fake libnvidia-ml.so.1 of the tests: what it is and how a test drives it.
//
// Built twice by test/fakes/fake_nvml/CMakeLists.txt, each as a file named
// exactly libnvidia-ml.so.1 in its own directory:
// - fake_nvml:        every NVML symbol the NVML backend may use, newest
//                     versions included (nvmlDeviceGetPciInfo_v3, ...);
// - fake_nvml_legacy: the same GPUs, without the newer symbols (an R450-era
//                     driver): no _v2/_v3/V variants of the versioned calls,
//                     no nvmlDeviceGetMigDeviceHandleByIndex (so no MIG device
//                     UUIDs or MIG instance memory), no
//                     nvmlDeviceGetNvLinkRemoteDeviceType, no
//                     nvmlDeviceGetCurrentClocksEventReasons (only its older
//                     ThrottleReasons name) and no GPM.
//
// What it reports follows the GPU catalog (lib/gpu/data/gpu-models.yaml):
// - GPUs are catalog models: name = displayName, PCI device id = the first
//   of pciDeviceIds, memory = memoryMiB. GPU i has bus id
//   "00000000:XX:00.0" with XX = 0x07 + 8 * i and a UUID ending in i. Driver
//   "570.133.20", CUDA driver version 12080 ("12.8"). Compute capability from
//   the architecture (Ampere 8.0, Hopper 9.0, Blackwell 10.0, ...).
// - MIG (models with a `mig` entry): MIG mode starts disabled/disabled.
//   nvmlDeviceGetGpuInstanceProfileInfo(V) maps NVML_GPU_INSTANCE_PROFILE_*
//   to the catalog profile with that shape (1 slice -> _1_SLICE, "+me" ->
//   _REV1, 1 compute slice with 2 memory slices -> _REV2, ...) and answers
//   with the catalog's profile id, max count, memory; NVML_ERROR_NOT_SUPPORTED
//   for a profile the model lacks, NVML_ERROR_INVALID_ARGUMENT past the last
//   profile constant. Like the real library it reports the profile table and
//   the possible placements with MIG mode off too.
// - nvmlDeviceCreateGpuInstanceWithPlacement: NVML_ERROR_NOT_SUPPORTED with
//   MIG mode off; NVML_ERROR_INVALID_ARGUMENT for an unknown profile id or a
//   placement that is not one of the profile's (wrong start or size);
//   NVML_ERROR_INSUFFICIENT_RESOURCES when the instance does not fit next to
//   the existing ones (overlap, max count, compute slices: gpu::check_layout).
//   GI ids: 0 for a profile spanning the whole GPU, else the smallest free
//   id from 1. Compute instances: one profile per slice count up to the GI's,
//   CI ids from 0. Destroying a GI with compute instances, or a CI (or GI)
//   with processes on it, answers NVML_ERROR_IN_USE.
// - nvmlDeviceSetMigMode sets the pending mode; it becomes current at once
//   unless the GPU is in use (fakeNvmlSetMigInUse, a process, or a GPU
//   instance), when the activation status is NVML_ERROR_IN_USE and the mode
//   stays pending until fakeNvmlResetGpu.
// - With MIG on, nvmlDeviceGetUtilizationRates answers NOT_SUPPORTED (as the
//   real driver does) and processes carry their GPU/compute instance ids.
//   nvmlDeviceGetMemoryInfo on a MIG device handle answers for its GPU
//   instance: the profile's memory, used by the processes on that instance.
// - Energy, SM / memory clocks and clock event reasons come from
//   fakeNvmlSetTelemetry (nvmlDeviceGetCurrentClocksThrottleReasons in both
//   libraries, nvmlDeviceGetCurrentClocksEventReasons in the full one).
// - GPM (full library only): supported on Hopper and later models, per MIG
//   instance. The fake has a clock of its own that only fakeNvmlAdvanceClock
//   moves; nvmlGpmMigSampleGet records it with the instance's activity
//   counters, and nvmlGpmMetricsGet answers GRAPHICS_UTIL, SM_UTIL and
//   DRAM_BW_UTIL as the rates fakeNvmlSetInstanceActivity set, averaged over
//   the time between the two samples (each metric NVML_ERROR_INVALID_ARGUMENT
//   when no time passed, NVML_ERROR_NOT_SUPPORTED for other metric ids; the
//   call NVML_ERROR_INVALID_ARGUMENT for samples of different instances).
//   nvmlGpmMigSampleGet answers NVML_ERROR_NOT_SUPPORTED with MIG off or on
//   an older GPU.
// - Topology: every pair NVML_TOPOLOGY_NODE and no NVLink until set.
// - Every call but nvmlInit*, nvmlErrorString and nvmlShutdown answers
//   NVML_ERROR_UNINITIALIZED before nvmlInit. Handles from before a
//   fakeNvmlReset (or of a destroyed instance) answer NVML_ERROR_INVALID_ARGUMENT.
//
// The control functions below are exported by both libraries. A test reaches
// them with dlsym on a handle from dlopen of the same path the backend loads
// (dlopen of one path twice gives one library, so one state). All are
// thread-safe; `gpu` is the NVML index.
#pragma once

extern "C" {

// Forgets everything (GPUs, instances, processes, events, failures, call
// counts, the nvmlInit count, GPM samples, the clock) and installs the GPUs of `gpus_spec`, catalog ids
// with counts in NVML index order: "a100-sxm4-80gb=2,h100-sxm5-80gb=1"
// ("t4-16gb" = 1; "" = no GPU). Returns 0, or -1 for an unknown or non-NVIDIA
// model or a malformed spec (the state is then empty).
int fakeNvmlReset(const char* gpus_spec);
typedef int (*fakeNvmlReset_fn)(const char*);

// The next `times` calls of the exported symbol `function_name`
// ("nvmlDeviceGetName", "nvmlDeviceGetPciInfo_v3") return `nvml_return`
// without doing anything. A later call for the same function replaces it.
void fakeNvmlFailNext(const char* function_name, int nvml_return, int times);
typedef void (*fakeNvmlFailNext_fn)(const char*, int, int);

// Raises XID `xid` on `gpu`: queued on every event set registered for
// nvmlEventTypeXidCriticalError on that GPU, waking a waiting
// nvmlEventSetWait. Returns how many sets it was queued on, -1 for a bad gpu.
int fakeNvmlInjectXid(int gpu, unsigned long long xid);
typedef int (*fakeNvmlInjectXid_fn)(int, unsigned long long);

// Marks `gpu` in use (1) or idle (0): a MIG mode change then stays pending.
// Returns 0, -1 for a bad gpu.
int fakeNvmlSetMigInUse(int gpu, int in_use);
typedef int (*fakeNvmlSetMigInUse_fn)(int, int);

// A GPU reset (nvidia-smi -r): the pending MIG mode becomes current and the
// GPU's MIG instances are gone. Returns 0, 19 (NVML_ERROR_IN_USE) while in use
// (fakeNvmlSetMigInUse or a process), -1 for a bad gpu.
int fakeNvmlResetGpu(int gpu);
typedef int (*fakeNvmlResetGpu_fn)(int);

// A compute process `pid` using `used_bytes` of `gpu`'s memory, on its GPU
// instance `gpu_instance_id` (-1: the whole GPU). Returns 0, -1 for a bad gpu
// or an instance that does not exist.
int fakeNvmlAddProcess(int gpu, unsigned pid, unsigned long long used_bytes, int gpu_instance_id);
typedef int (*fakeNvmlAddProcess_fn)(int, unsigned, unsigned long long, int);

// nvmlDeviceGetTopologyCommonAncestor of the pair (NVML_TOPOLOGY_* value).
// Returns 0, -1 for a bad gpu.
int fakeNvmlSetTopology(int gpu_a, int gpu_b, int level);
typedef int (*fakeNvmlSetTopology_fn)(int, int, int);

// `links` NVLinks straight between two GPUs (replacing any between them).
// Returns 0, -1 for a bad gpu.
int fakeNvmlSetNvLinks(int gpu_a, int gpu_b, int links);
typedef int (*fakeNvmlSetNvLinks_fn)(int, int, int);

// `links` NVLinks from `gpu` to NVSwitches (replacing its switch links).
// Returns 0, -1 for a bad gpu.
int fakeNvmlSetNvSwitchLinks(int gpu, int links);
typedef int (*fakeNvmlSetNvSwitchLinks_fn)(int, int);

// The readings of nvmlDeviceGetTemperature(V), GetPowerUsage (milliwatts),
// GetUtilizationRates and GetTotalEccErrors (volatile = aggregate here).
// Defaults: 30 + gpu degrees, 60 W, 0 %, no ECC errors. Returns 0, -1 for a bad gpu.
int fakeNvmlSetMetrics(int gpu, int temperature_c, unsigned power_mw, unsigned utilization_percent,
                       unsigned long long ecc_corrected, unsigned long long ecc_uncorrected);
typedef int (*fakeNvmlSetMetrics_fn)(int, int, unsigned, unsigned, unsigned long long, unsigned long long);

// The readings of nvmlDeviceGetTotalEnergyConsumption (millijoules),
// GetClockInfo (SM and graphics: sm_clock_mhz; memory) and
// GetCurrentClocksEventReasons / ThrottleReasons (NVML's bitmask).
// Defaults: 0 mJ, 1410 MHz, 1593 MHz, nvmlClocksEventReasonGpuIdle.
// Returns 0, -1 for a bad gpu.
int fakeNvmlSetTelemetry(int gpu, unsigned long long energy_mj, unsigned sm_clock_mhz, unsigned memory_clock_mhz,
                         unsigned long long clocks_event_reasons);
typedef int (*fakeNvmlSetTelemetry_fn)(int, unsigned long long, unsigned, unsigned, unsigned long long);

// Memory the driver of `gpu` reserves for itself: nvmlDeviceGetMemoryInfo
// counts it as used, nvmlDeviceGetMemoryInfo_v2 (full library only) reports
// it as `reserved` apart from `used` (and free = total - reserved - used).
// Default 0. Returns 0, -1 for a bad gpu.
int fakeNvmlSetReservedMemory(int gpu, unsigned long long bytes);
typedef int (*fakeNvmlSetReservedMemory_fn)(int, unsigned long long);

// From now on, GPU instance `gpu_instance_id` of `gpu` is busy at these rates
// (percent, 0..100) as the clock advances; all start at 0. Returns 0, -1 for
// a bad gpu, an instance that does not exist or a rate over 100.
int fakeNvmlSetInstanceActivity(int gpu, int gpu_instance_id, unsigned graphics_percent, unsigned sm_percent,
                                unsigned dram_percent);
typedef int (*fakeNvmlSetInstanceActivity_fn)(int, int, unsigned, unsigned, unsigned);

// Moves the fake's clock (which GPM samples read) `ms` milliseconds on.
void fakeNvmlAdvanceClock(unsigned long long ms);
typedef void (*fakeNvmlAdvanceClock_fn)(unsigned long long);

// GPM sample buffers allocated and not yet freed.
int fakeNvmlGpmSamplesHeld(void);
typedef int (*fakeNvmlGpmSamplesHeld_fn)(void);

// How many times the exported symbol `function_name` was called since the
// last fakeNvmlReset (failed calls included).
int fakeNvmlCallCount(const char* function_name);
typedef int (*fakeNvmlCallCount_fn)(const char*);

// nvmlInit calls not yet matched by nvmlShutdown.
int fakeNvmlInitCount(void);
typedef int (*fakeNvmlInitCount_fn)(void);

}  // extern "C"
