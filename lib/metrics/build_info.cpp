#include "gpupool/metrics/build_info.h"

#include <string>

namespace gpupool::metrics {

// build_version() and build_revision() are in the generated build_info_values.cpp.

void register_build_info(Registry& registry) {
  registry
      .gauge("gpupool_build_info",
             "A metric with a constant '1' value labeled by the version and git revision gpupool-operator was built from",
             {"version", "revision"})
      .with({std::string(build_version()), std::string(build_revision())})
      .set(1);
}

}  // namespace gpupool::metrics
