#include "gpupool/pool_controller/selecting_pools.h"

#include "gpupool/api/codec.h"
#include "gpupool/api/label_selector.h"
#include "gpupool/kube/json_access.h"
#include "object_facts.h"

namespace gpupool::pool_controller {

std::vector<runtime::Request> SelectingPools::operator()(const kube::Object& node) {
  const auto labels = labels_of(node.doc);
  const auto named = labels.find(pool::kPoolLabel);
  std::vector<runtime::Request> out;
  const auto listed = pools_.list();
  std::lock_guard lock(mu_);
  std::erase_if(cache_, [&](const auto& kv) { return pools_.get(kv.first) == nullptr; });
  for (const auto& p : listed) {
    Entry& e = cache_[p->name];
    if (e.resource_version != p->resource_version || e.resource_version.empty()) {
      auto decoded = api::decode_gpupool(p->doc);
      e.resource_version = p->resource_version;
      e.selector.reset();
      if (decoded.ok()) {
        e.selector = pool::PoolSelector{p->name, decoded.value->spec.priority, decoded.value->spec.node_selector, p->deleting};
      }
    }
    const bool concerned = !e.selector || api::selector_matches(e.selector->node_selector, labels) ||
                           (named != labels.end() && named->second == p->name);
    if (concerned) out.push_back({"", p->name});
  }
  return out;
}

}  // namespace gpupool::pool_controller
