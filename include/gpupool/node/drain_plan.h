// What the node agent evicts when it drains its node before a disruptive
// change (driver upgrade, MIG layout change), and what it waits for or is
// blocked by. Pure functions of their inputs (no I/O, no clock).
//
// The agent drains GPU pods only: a pod that requests or limits no GPU
// resource (is_gpu_resource) is never touched. Among GPU pods the rules are
// kubectl drain's (k8s.io/kubectl/pkg/drain/filters.go), run as
// `kubectl drain --ignore-daemonsets` with the DrainOptions' force and
// deleteEmptyDirData, plus the skip label. The first row that applies wins:
//
//   finished (status.phase Succeeded/Failed)   ignored: it holds no GPU. (kubectl
//                                              deletes it; we leave it be.)
//   mirror (static) pod, annotation            ignored, never evicted, never blocks:
//     kubernetes.io/config.mirror present      the kubelet runs it from a file, the API
//                                              cannot remove it (mirrorPodFilter).
//   controller ownerReference of kind          ignored, never evicted, never blocks:
//     DaemonSet                                its controller ignores cordons and would
//                                              recreate it (daemonSetFilter, --ignore-daemonsets).
//   terminating (deletionTimestamp set)        waited for, not evicted again (kubectl
//                                              waits for deletion too; skipDeletedFilter).
//   skip label == "true" (exactly)             waited for, not evicted (docs/api.md
//                                              DrainOptions.skipPodLabel).
//   emptyDir volume, !deleteEmptyDirData       blocked (localStorageFilter).
//   no controller ownerReference, !force       blocked (unreplicatedFilter); with
//                                              force it is evicted and is lost.
//   otherwise                                  evicted through the eviction API.
//
// As in kubectl, a pod blocked for both emptyDir and no controller is named
// once, with the first reason in that order (its filters stop at the first
// that refuses).
#pragma once

#include "gpupool/quota/gpu_resources.h"

#include <string>
#include <string_view>
#include <vector>

#include <rapidjson/document.h>

#include "gpupool/api/common_types.h"

namespace gpupool::node {

// What the agent needs to know of a pod, read from its JSON (a core/v1 Pod).
struct PodFacts {
  std::string ns, name, uid;               // metadata.namespace, .name, .uid
  bool uses_gpu = false;                   // requests or limits a GPU resource (quantity not 0)
  std::vector<std::string> gpu_resources;  // which, sorted, once each ("nvidia.com/mig-1g.10gb")
  bool has_controller = false;             // an ownerReference with controller: true
  bool daemonset = false;                  // ... and that reference's kind is DaemonSet
  bool mirror = false;                     // annotation kubernetes.io/config.mirror present
  bool finished = false;                   // status.phase Succeeded or Failed
  bool terminating = false;                // metadata.deletionTimestamp set (not null)
  bool skip = false;                       // labels[skip_label] == "true"
  bool uses_empty_dir = false;             // a spec.volumes entry with emptyDir set (not null)
};

// The facts of `pod`. A pod uses a GPU when any container, init container
// (plain or sidecar) requests or limits a GPU resource with a quantity other
// than zero: the scheduler counts a pod's request as
// max(sum over app and sidecar containers, max over init containers)
// (k8s.io/component-helpers/resource PodRequests), so a GPU in any of them is
// held by the pod; limits count too because an extended resource's request
// defaults to its limit. Never throws: a malformed pod yields facts with what
// could be read (a pod that cannot be read as a GPU pod is not one; a
// quantity that is not a string or number does not count).
PodFacts pod_facts(const rapidjson::Value& pod, const std::string& skip_label);

// Whether a resource name is a GPU resource: the one rule the quota gate
// uses too (quota/gpu_resources.h).
using quota::is_gpu_resource;

struct PodRef {
  std::string ns, name, uid;
  std::string key() const;  // "ns/name"

  bool operator==(const PodRef&) const = default;
};

struct WaitingPod {
  PodRef pod;
  std::string reason;  // "terminating", or "<skip label>=true" ("gpupool.io/skip-drain=true")

  bool operator==(const WaitingPod&) const = default;
};

struct BlockedPod {
  PodRef pod;
  // "uses emptyDir volumes (set deleteEmptyDirData)" or
  // "has no controller (use force to evict it; it will not be recreated)"
  std::string reason;

  bool operator==(const BlockedPod&) const = default;
};

// Every list is sorted by key().
struct DrainPlan {
  std::vector<PodRef> evict;         // GPU pods to evict now
  std::vector<WaitingPod> wait_for;  // skip-labelled or already terminating GPU pods
  std::vector<BlockedPod> blocked;   // GPU pods the options forbid evicting

  bool done() const;  // nothing to evict, wait for, or blocked
  // One line for the operation message, its parts joined by "; " and only
  // those that apply: "evicting 2 pods; waiting for team-a/train-0
  // (gpupool.io/skip-drain=true); blocked: default/bare (has no controller
  // (use force to evict it; it will not be recreated))". At most 5 pods are
  // named per part, then "and N more". done(): "no GPU pods to drain".
  std::string summary() const;
};

// The plan for the pods now bound to the node; `pods` read by pod_facts with
// options.skip_pod_label. Call again as pods go and come until done().
DrainPlan plan_drain(const std::vector<PodFacts>& pods, const api::DrainOptions& options);

}  // namespace gpupool::node
