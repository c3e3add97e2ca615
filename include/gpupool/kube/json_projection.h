// Decoding only the fields a caller needs, with RapidJSON's SAX reader, so a
// large object or list never becomes a whole DOM in memory.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace gpupool::kube {

// status.phase; `other` for a value Kubernetes does not define.
enum class PodPhase : std::uint8_t { unset, pending, running, succeeded, failed, unknown, other };
PodPhase parse_pod_phase(std::string_view text);
// Succeeded or Failed: the pod's containers have stopped for good.
inline bool terminal(PodPhase p) { return p == PodPhase::succeeded || p == PodPhase::failed; }

// The pod fields controllers read: what the pod store keeps per pod. Only
// fields some reader needs belong here (a cluster holds ~150,000 pods);
// labels and owner references are skipped. Fields most pods leave unset live
// apart (Rare), so that a pod without them pays one pointer for all of them.
struct PodProjection {
  // Resource name -> quantity text, in the order served, each name once (a
  // vector: a map's node per entry cost more than the rest of a GPU pod).
  using Quantities = std::vector<std::pair<std::string, std::string>>;
  struct Container {
    std::string name;
    Quantities requests;
    Quantities limits;
    // restartPolicy is "Always": on an init container, a sidecar (the only
    // restart policy a reader here tells apart; a flag, not the text, as the
    // pod store keeps one Container per container of every GPU pod).
    bool restart_always = false;
    bool operator==(const Container&) const = default;
  };
  struct ClaimSource {           // where a resource claim comes from (one set, or none)
    std::string claim_name;     // resourceClaimName: an existing ResourceClaim
    std::string template_name;  // resourceClaimTemplateName: a claim made per pod from this template
    bool operator==(const ClaimSource&) const = default;
  };
  struct Rare {
    std::vector<Container> init_containers;            // spec.initContainers
    // spec.schedulingGates[].name, in order. Rare among stored pods: a gate
    // is held only until the pod is admitted, and never added back.
    std::vector<std::string> scheduling_gates;
    std::map<std::string, std::string> node_selector;  // spec.nodeSelector
    Quantities overhead;                                // spec.overhead
    std::vector<std::string> resource_claims;          // spec.resourceClaims[].name (DRA), in order
    std::vector<ClaimSource> claim_sources;            // one per resource_claims entry, same order
    bool operator==(const Rare&) const = default;
  };

  std::string ns;
  std::string name;
  std::string uid;
  std::string resource_version;
  std::string node_name;  // spec.nodeName
  int32_t priority = 0;              // spec.priority; absent reads as 0, as the scheduler reads it
  bool deleting = false;             // metadata.deletionTimestamp set
  PodPhase phase = PodPhase::unset;  // status.phase
  // metadata.creationTimestamp in milliseconds since the epoch; 0 when
  // absent or not RFC 3339 (the API server always sets it).
  int64_t created_ms = 0;
  std::vector<Container> containers;  // spec.containers

  // The rare fields, empty ones when none is set.
  const Rare& rare() const;
  // For writing them: allocated on first use, and copied first when another
  // projection shares them (copies share until one writes).
  Rare& rare_mut();
  // Gives up the rare fields' allocation when they are all empty again.
  void drop_empty_rare();

  // The rare fields compare by value, allocated or not.
  bool operator==(const PodProjection& other) const;

 private:
  std::shared_ptr<Rare> rare_;  // null: all empty
};

// The quantity text `quantities` holds for `resource`, or null.
const std::string* find_quantity(const PodProjection::Quantities& quantities, std::string_view resource);

// Decodes one pod object. Throws DecodeError on malformed JSON, or when a field
// read here has the wrong type (null counts as absent). Other fields are
// skipped whatever they hold.
PodProjection project_pod(std::string_view pod_json);

// Metadata of a list response: read without decoding its items.
struct ListMeta {
  std::string resource_version;
  std::string continue_token;
  std::optional<int64_t> remaining_item_count;
  bool operator==(const ListMeta&) const = default;
};

// Reads a list (PodList, NodeList, ...) in one SAX pass: `on_item` gets the
// raw JSON of each element of "items" (valid during the call) and the list's
// metadata is returned. Memory stays at one item. Items must be objects;
// "items": null reads as no items. Throws DecodeError on malformed JSON.
ListMeta scan_list(std::string_view list_json, const std::function<void(std::string_view item_json)>& on_item);

// Reads a list of pods from a file in one streaming SAX pass, projecting every
// item; the file is never held in memory (a fixed read buffer). For
// benchmarks and offline tools. Throws std::system_error when the file cannot
// be opened or read, DecodeError when it is malformed.
ListMeta project_pod_list_file(const std::string& path, const std::function<void(PodProjection&&)>& on_pod);

// Projects every pod of an in-memory PodList in one SAX pass (no DOM, no
// second parse per item); `on_pod` gets each pod as soon as it is complete.
ListMeta project_pod_list(std::string_view list_json, const std::function<void(PodProjection&&)>& on_pod);

}  // namespace gpupool::kube
