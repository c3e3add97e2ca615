// JSON merge patches the agent sends to its own Node, built purely from the
// Node as last seen and what the agent wants. Each returns nothing when the
// Node already says what is wanted, so a steady node costs no writes.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include <rapidjson/document.h>

#include "gpupool/pool/rollout.h"

namespace gpupool::node {

// Annotation recording, while the agent drains, whether the Node was already
// cordoned ("true") or cordoned by the agent ("false"). docs/api.md.
using pool::kPreDrainUnschedulableAnnotation;  // pool/rollout.h: the pool controller reads it too

// Sets the labels in `wanted` and removes every label for which `owned(key)`
// is true that `wanted` lacks. Other labels are never touched.
std::optional<std::string> label_patch(const rapidjson::Value& node, const std::map<std::string, std::string>& wanted,
                                       const std::function<bool(std::string_view)>& owned);

// For the status subresource: sets status.capacity and status.allocatable of
// each resource in `wanted`, removes owned resources `wanted` lacks.
std::optional<std::string> capacity_patch(const rapidjson::Value& node, const std::map<std::string, std::int64_t>& wanted,
                                          const std::function<bool(std::string_view)>& owned);

// The last label and capacity patches the agent sent, with the Node's
// resourceVersion as its store showed it then. While the store still shows
// that version (it lags the agent's own writes), a pass wanting the same
// patch sends nothing: the write is on its way into the store. Any other
// version (the write arrived, or someone changed the Node) or another
// patch: send. Pure.
class PatchMemory {
 public:
  enum class Kind { labels, capacity };
  bool already_sent(Kind kind, const std::string& body, const std::string& store_resource_version) const;
  void sent(Kind kind, const std::string& body, const std::string& store_resource_version);

 private:
  struct Sent {
    std::string body, at;
  };
  Sent sent_[2];
};

// Cordon before a drain: records the pre-drain state (kept if already
// recorded: a restarted agent must not mistake its own cordon for an
// administrator's) and sets spec.unschedulable. Carries the Node's
// resourceVersion, so an administrator's change in between makes it fail
// with 409 instead of being recorded wrongly. Nothing when already done.
std::optional<std::string> cordon_patch(const rapidjson::Value& node);

// After the work (or a failure that should not leave the node cordoned):
// uncordons only when the agent did the cordoning, and removes the
// annotation. Nothing when there is no annotation.
std::optional<std::string> uncordon_patch(const rapidjson::Value& node);

// Whether the node carries the agent's drain annotation (a drain started).
bool drain_started(const rapidjson::Value& node);
bool is_unschedulable(const rapidjson::Value& node);

}  // namespace gpupool::node
