// GPUNode rules: named after its node, MIG instances of known profiles, the
// shared sharing/monitoring/driver rules.
#include <set>

#include "common_rules.h"
#include "gpupool/validation/semantic.h"

namespace gpupool::validation {

api::FieldErrors validate(const api::GPUNode& node, const SemanticContext& ctx) {
  api::FieldErrors errors;
  api::FieldPath sp("spec");
  const auto& spec = node.spec;
  if (spec.node_name != node.metadata.name) {
    errors.push_back({sp.field("nodeName").str(), "Invalid value: \"" + spec.node_name +
                                                      "\": nodeName must equal metadata.name (\"" +
                                                      node.metadata.name + "\")"});
  }
  if (spec.driver) {
    check_installer(spec.driver->installer, sp.field("driver").field("installer"), errors);
    if (spec.driver->upgrade_strategy) {
      errors.push_back({sp.field("driver").field("upgradeStrategy").str(),
                        "Forbidden: a GPUNode carries no upgrade strategy (the pool's rollout decides)"});
    }
  }
  std::set<std::string> profiles;
  for (const auto& p : ctx.catalog->all_mig_profile_names()) profiles.insert(p);
  for (std::size_t g = 0; g < spec.partitioning.mig.size(); ++g) {
    const auto& gpu = spec.partitioning.mig[g];
    api::FieldPath gp = sp.field("partitioning").field("mig").index(g);
    if (!gpu.enabled && !gpu.instances.empty()) {
      errors.push_back({gp.field("instances").str(), "Forbidden: instances need enabled: true"});
    }
    for (std::size_t i = 0; i < gpu.instances.size(); ++i) {
      const auto& inst = gpu.instances[i];
      if (profiles.count(inst.profile) == 0) {
        errors.push_back({gp.field("instances").index(i).field("profile").str(),
                          "Unsupported value: \"" + inst.profile + "\": no GPU model of the catalog has this profile"});
      }
    }
  }
  check_sharing(spec.sharing, sp.field("sharing"), errors);
  check_monitoring(spec.monitoring, sp.field("monitoring"), errors);
  return errors;
}

}  // namespace gpupool::validation
