#include "gpupool/pool_controller/membership_cache.h"

#include <algorithm>

#include "object_facts.h"

namespace gpupool::pool_controller {
namespace {

// FNV-1a over the labels as the object has them (keys and values, with
// separators): the same labels in another order hash differently, which
// only costs a needless resolution.
std::uint64_t labels_hash(const rapidjson::Value& node) {
  std::uint64_t h = 1469598103934665603ull;
  auto mix = [&h](const char* s, std::size_t n) {
    for (std::size_t i = 0; i < n; ++i) {
      h ^= static_cast<unsigned char>(s[i]);
      h *= 1099511628211ull;
    }
    h ^= 0xff;  // a separator no label byte sequence ends with
    h *= 1099511628211ull;
  };
  const auto meta = node.FindMember("metadata");
  if (meta == node.MemberEnd() || !meta->value.IsObject()) return h;
  const auto labels = meta->value.FindMember("labels");
  if (labels == meta->value.MemberEnd() || !labels->value.IsObject()) return h;
  for (const auto& m : labels->value.GetObject()) {
    mix(m.name.GetString(), m.name.GetStringLength());
    if (m.value.IsString()) mix(m.value.GetString(), m.value.GetStringLength());
  }
  return h;
}

}  // namespace

std::shared_ptr<const pool::Membership> MembershipCache::get(std::vector<pool::PoolSelector> selectors,
                                                             const runtime::Store<kube::Object>& nodes) {
  // In one order, so that the same pools listed in another compare equal.
  std::sort(selectors.begin(), selectors.end(),
            [](const pool::PoolSelector& a, const pool::PoolSelector& b) { return a.name < b.name; });
  // Read before the walk: a write meanwhile only makes the next call walk again.
  const std::uint64_t revision = nodes.revision();
  {
    std::lock_guard lock(mu_);
    if (value_ != nullptr && store_ == &nodes && store_revision_ == revision && selectors == selectors_) return value_;
  }
  const auto listed = nodes.list();
  std::lock_guard lock(mu_);
  const std::uint64_t call = ++calls_;
  ++walks_;
  // Other pools (or another store) place every node afresh.
  const bool all = value_ == nullptr || selectors != selectors_ || store_ != &nodes;
  store_ = &nodes;
  store_revision_ = revision;
  if (all) selectors_ = std::move(selectors);
  bool changed = all;
  for (const auto& n : listed) {
    auto [it, added] = nodes_.try_emplace(n->name);
    NodeEntry& e = it->second;
    e.seen = call;
    if (!all && !added && e.resource_version == n->resource_version) continue;
    e.resource_version = n->resource_version;
    const std::uint64_t h = labels_hash(n->doc);
    if (!all && !added && h == e.labels_hash) continue;
    e.labels_hash = h;
    // Relabelled (or new): placed again; the membership changes only when
    // its placement does (a driver upgrade relabels every node it touches).
    pool::Placement placement = pool::place_node(selectors_, labels_of(n->doc));
    if (added || placement != e.placement) {
      changed = true;
      e.placement = std::move(placement);
    }
  }
  if (nodes_.size() != listed.size()) {  // some were removed
    changed = true;
    std::erase_if(nodes_, [call](const auto& kv) { return kv.second.seen != call; });
  }
  if (!changed) return value_;
  pool::MembershipBuilder builder(selectors_);
  for (const auto& [name, e] : nodes_) builder.add_placed(name, e.placement);
  value_ = std::make_shared<const pool::Membership>(builder.finish());
  ++resolutions_;
  return value_;
}

std::uint64_t MembershipCache::resolutions() const {
  std::lock_guard lock(mu_);
  return resolutions_;
}

std::uint64_t MembershipCache::walks() const {
  std::lock_guard lock(mu_);
  return walks_;
}

}  // namespace gpupool::pool_controller
