#include "gpupool/quota_controller/pool_unit_costs.h"

#include <algorithm>

#include "gpupool/node/node_labels.h"

namespace gpupool::quota_controller {

quota::Amounts pool_unit_costs(const api::GPUPool& pool, const quota::Amounts& capacity, const gpu::Catalog& catalog,
                               quota::ChargeBasis basis, const std::vector<ReportedInstance>& reported) {
  const node::SharingConfig sc = node::sharing_config(pool.spec.sharing);
  const bool single = pool.spec.partitioning && pool.spec.partitioning->nvidia &&
                      pool.spec.partitioning->nvidia->strategy == api::MIGStrategy::single &&
                      (!pool.spec.partitioning->nvidia->layout.empty() || !pool.spec.partitioning->nvidia->devices.empty());
  quota::Amounts out;
  for (const auto& [resource, count] : capacity) {
    if (resource == quota::kGpuUnit) continue;
    std::string base = resource;
    const bool shared_name = base.ends_with(".shared");
    if (shared_name) base.resize(base.size() - std::string(".shared").size());
    int replicas = 1;
    if (base.starts_with("nvidia.com/") && sc.replicas >= 2 && (!sc.mps || base == "nvidia.com/gpu")) replicas = sc.replicas;

    std::int64_t cost = quota::kMicro;  // not known: a whole GPU
    constexpr std::string_view mig = "nvidia.com/mig-";
    if (base.starts_with(mig)) {
      const std::string name = base.substr(mig.size());
      std::int64_t best = 0;
      bool seen = false;  // sizes as the GPUs report them win over the catalog's
      if (basis == quota::ChargeBasis::memory) {
        for (const auto& r : reported) {
          if (node::mig_device_name(r.profile) != name || r.memory_mib <= 0 || r.gpu_memory_mib <= 0) continue;
          quota::DeviceShare s;
          s.memory_mib = r.memory_mib;
          s.gpu_memory_mib = r.gpu_memory_mib;
          s.replicas = replicas;
          best = std::max(best, quota::device_cost(s, basis));
          seen = true;
        }
      }
      for (const auto& model : catalog.models()) {
        if (seen) break;
        if (!model.mig) continue;
        for (const auto& p : model.mig->profiles) {
          if (node::mig_device_name(p.name) != name) continue;
          quota::DeviceShare s = quota::profile_share(model, p);
          s.replicas = replicas;
          best = std::max(best, quota::device_cost(s, basis));
        }
      }
      if (best > 0) cost = best;
    } else if (base == "nvidia.com/gpu" && !single) {
      quota::DeviceShare whole;
      whole.replicas = replicas;
      cost = quota::device_cost(whole, basis);
    }
    out[resource] = cost;
  }
  return out;
}

}  // namespace gpupool::quota_controller
