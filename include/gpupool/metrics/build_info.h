// gpupool_build_info{version,revision} 1, the usual Prometheus "info" gauge:
// which build is running, joinable onto any other series by instance. The
// version is CMakeLists.txt's project(VERSION); the revision is
// `git rev-parse --short HEAD` when CMake configured the build ("unknown"
// outside a git checkout, or -DGPUPOOL_REVISION=... when building from a
// tarball). Both come from a small generated source (lib/metrics/CMakeLists.txt),
// so a new revision recompiles that file alone; it changes when CMake
// configures again, not on every commit.
#pragma once

#include <string_view>

#include "gpupool/metrics/registry.h"

namespace gpupool::metrics {

// "0.1.0"
std::string_view build_version();
// "5302563", or "unknown"
std::string_view build_revision();

// Registers gpupool_build_info{version,revision} with the value 1 in
// `registry` (calling it again changes nothing).
void register_build_info(Registry& registry);

}  // namespace gpupool::metrics
