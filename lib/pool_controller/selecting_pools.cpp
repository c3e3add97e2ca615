#include "gpupool/pool_controller/selecting_pools.h"

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
  for (const auto& p : listed) {
    Entry& e = cache_[p->name];
    if (e.resource_version != p->resource_version || e.resource_version.empty()) {
      e.resource_version = p->resource_version;
      e.selector = read_pool_selector(*p);
    }
    const bool concerned = !e.selector || api::selector_matches(e.selector->node_selector, labels) ||
                           (named != labels.end() && named->second == p->name);
    if (concerned) out.push_back({"", p->name});
  }
  if (cache_.size() > listed.size()) {  // some pools are gone
    std::erase_if(cache_, [&](const auto& kv) { return pools_.get(kv.first) == nullptr; });
  }
  return out;
}

bool SelectingPools::selection_changed(const kube::Object& before, const kube::Object& after) {
  if (before.deleting != after.deleting) return true;
  if (!kube::differs_at(before.doc, after.doc, {"metadata", "labels"})) return false;
  return (*this)(before) != (*this)(after);
}

}  // namespace gpupool::pool_controller
