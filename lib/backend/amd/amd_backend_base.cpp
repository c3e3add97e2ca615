#include <thread>

#include "amd_backends.h"

namespace gpupool::backend::amd {

namespace {

[[noreturn]] void no_mig(const char* call) {
  throw BackendError("not-supported", std::string(call) +
                                          ": AMD GPUs have no MIG; partition them with compute and memory partition "
                                          "modes (set_amd_partition)");
}

}  // namespace

std::vector<XidEvent> AmdBackendBase::wait_xid_events(std::chrono::milliseconds timeout) {
  if (timeout.count() > 0) std::this_thread::sleep_for(timeout);
  return {};
}

MigModeChange AmdBackendBase::set_mig_mode(int, bool) { no_mig("set_mig_mode"); }

MigInstance AmdBackendBase::create_mig_instance(int, const std::string&, int) { no_mig("create_mig_instance"); }

void AmdBackendBase::destroy_mig_instance(int, int) { no_mig("destroy_mig_instance"); }

}  // namespace gpupool::backend::amd
