#include "gpupool/quota/pod_requests.h"

#include <algorithm>

#include "gpupool/api/quantity.h"
#include "gpupool/kube/json_access.h"

namespace gpupool::quota {
namespace {

using rapidjson::Value;

void add_into(Amounts& into, const Amounts& more) {
  for (const auto& [r, v] : more) into[r] += v;
}

void max_into(Amounts& into, const Amounts& other) {
  for (const auto& [r, v] : other) into[r] = std::max(into[r], v);
}

// A map of quantities (requests, limits, overhead), counted resources only.
Amounts quantities(const Value* map, const std::string& where, const std::function<bool(std::string_view)>& counted,
                   std::vector<std::string>& problems) {
  Amounts out;
  if (map == nullptr || !map->IsObject()) return out;
  for (const auto& m : map->GetObject()) {
    const std::string_view name(m.name.GetString(), m.name.GetStringLength());
    if (!counted(name)) continue;
    std::optional<std::int64_t> micro;
    std::string text = m.value.IsString() ? std::string(m.value.GetString(), m.value.GetStringLength())
                       : m.value.IsNumber() ? std::to_string(m.value.GetDouble())
                                            : std::string();
    if (m.value.IsInt64()) text = std::to_string(m.value.GetInt64());
    auto parsed = api::parse_quantity(text);
    if (parsed.value) micro = parsed.value->micro_value();
    if (!micro || *micro < 0) {
      problems.push_back(where + "[" + std::string(name) + "]: \"" + text + "\" is not a quantity the quota can count");
      continue;
    }
    out[std::string(name)] = *micro;
  }
  return out;
}

Amounts container_requests(const Value& c, const std::string& where, const std::function<bool(std::string_view)>& counted,
                           std::vector<std::string>& problems) {
  const Value* resources = kube::member(c, "resources");
  Amounts requests = quantities(kube::member(resources, "requests"), where + ".resources.requests", counted, problems);
  // A limit without a request: the request defaults to it.
  for (const auto& [r, v] : quantities(kube::member(resources, "limits"), where + ".resources.limits", counted, problems)) {
    requests.emplace(r, v);
  }
  return requests;
}

}  // namespace

PodRequests pod_requests(const Value& pod, const std::function<bool(std::string_view)>& counted) {
  PodRequests out;
  const Value* spec = kube::member(pod, "spec");
  Amounts sum;
  if (const Value* containers = kube::member(spec, "containers"); containers && containers->IsArray()) {
    for (rapidjson::SizeType i = 0; i < containers->Size(); ++i) {
      add_into(sum, container_requests((*containers)[i], "spec.containers[" + std::to_string(i) + "]", counted, out.problems));
    }
  }
  Amounts init_max, sidecars;
  if (const Value* inits = kube::member(spec, "initContainers"); inits && inits->IsArray()) {
    for (rapidjson::SizeType i = 0; i < inits->Size(); ++i) {
      const Value& c = (*inits)[i];
      Amounts r = container_requests(c, "spec.initContainers[" + std::to_string(i) + "]", counted, out.problems);
      if (kube::string_of(kube::member(c, "restartPolicy")) == "Always") {
        add_into(sum, r);  // a sidecar runs beside the containers
        add_into(sidecars, r);
        max_into(init_max, sidecars);
      } else {
        add_into(r, sidecars);  // runs while the sidecars started before it run
        max_into(init_max, r);
      }
    }
  }
  max_into(sum, init_max);
  add_into(sum, quantities(kube::member(spec, "overhead"), "spec.overhead", counted, out.problems));
  for (const auto& [r, v] : sum) {
    if (v > 0) out.requests[r] = v;
  }
  return out;
}

}  // namespace gpupool::quota
