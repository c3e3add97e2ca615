// plan(): a placement for a requested set of MIG profiles.
#include "mig_internal.h"
#include "model_names.h"

namespace gpupool::gpu {

PlanResult<Layout> plan(const GpuModel& model, const ProfileCounts& wanted) {
  if (auto error = detail::check_request(model, wanted)) return *error;
  if (auto layout = detail::place(*model.mig, wanted, 0)) return *layout;
  return PlanError{"no placement fits " + detail::describe_counts(wanted, &model) + " on " + short_name(model) + ": " +
                   detail::why_no_placement(model, wanted)};
}

}  // namespace gpupool::gpu
