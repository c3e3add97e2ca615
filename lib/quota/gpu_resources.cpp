#include "gpupool/quota/gpu_resources.h"

#include <algorithm>
#include <map>

namespace gpupool::quota {
namespace {

// One table for the C++ predicate and the CEL expression, so they cannot drift.
struct Rule {
  std::string_view text;
  bool prefix;  // a name starting with `text`; else exactly `text`
};

constexpr Rule kRules[] = {
    {"nvidia.com/gpu", false},
    {"nvidia.com/gpu.shared", false},
    {"nvidia.com/mig-", true},
    {"amd.com/", true},
    {"gpupool.io/gpu", false},
};

bool names_gpu(const kube::PodProjection::Quantities& quantities) {
  return std::any_of(quantities.begin(), quantities.end(), [](const auto& q) { return is_gpu_resource(q.first); });
}

bool container_names_gpu(const kube::PodProjection::Container& c) { return names_gpu(c.requests) || names_gpu(c.limits); }

// `k` is one of kRules (the literals hold no quote or backslash, so they need no escaping).
std::string cel_key_matches() {
  std::string out;
  for (const Rule& r : kRules) {
    if (!out.empty()) out += " || ";
    out += r.prefix ? "k.startsWith('" + std::string(r.text) + "')" : "k == '" + std::string(r.text) + "'";
  }
  return out;
}

}  // namespace

bool is_gpu_resource(std::string_view resource) {
  return std::any_of(std::begin(kRules), std::end(kRules), [&](const Rule& r) {
    return r.prefix ? resource.starts_with(r.text) : resource == r.text;
  });
}

bool requests_gpu(const kube::PodProjection& pod) {
  return std::any_of(pod.containers.begin(), pod.containers.end(), container_names_gpu) ||
         std::any_of(pod.rare().init_containers.begin(), pod.rare().init_containers.end(), container_names_gpu) ||
         !pod.rare().resource_claims.empty();
}

std::string gpu_request_cel() {
  const std::string key = "(" + cel_key_matches() + ")";
  const std::string container = "has(c.resources) && ("
                                "(has(c.resources.requests) && c.resources.requests.exists(k, " + key + ")) || "
                                "(has(c.resources.limits) && c.resources.limits.exists(k, " + key + ")))";
  return "(has(object.spec.containers) && object.spec.containers.exists(c, " + container + ")) || "
         "(has(object.spec.initContainers) && object.spec.initContainers.exists(c, " + container + ")) || "
         "(has(object.spec.resourceClaims) && size(object.spec.resourceClaims) > 0)";
}

}  // namespace gpupool::quota
