// The taints a pool puts on its member nodes, added and removed without ever
// touching a taint someone else put there: the node annotation
// gpupool.io/pool-taints records (as "key=value:Effect" lines) the taints we
// added, so only those are removed when the pool's nodeTaints or the node's
// membership change. A taint that was there before us with the same key and
// effect is left as it is and not recorded (we never remove it). Pure.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "gpupool/api/common_types.h"

namespace gpupool::pool {

inline constexpr const char* kPoolTaintsAnnotation = "gpupool.io/pool-taints";

struct NodeTaint {
  std::string key, value, effect;
  bool operator==(const NodeTaint&) const = default;
};

struct TaintChange {
  std::vector<NodeTaint> taints;  // the node's spec.taints after the change
  std::string recorded;           // the annotation's new value ("" = remove it)
};

// `current`: the node's taints; `recorded`: the annotation (may be empty);
// `desired`: the pool's nodeTaints (empty when the node leaves the pool).
// nullopt when nothing changes.
std::optional<TaintChange> taint_change(const std::vector<NodeTaint>& current, const std::string& recorded,
                                        const std::vector<api::Taint>& desired);

}  // namespace gpupool::pool
