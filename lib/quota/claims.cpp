#include "gpupool/quota/claims.h"

#include "gpupool/kube/json_access.h"

namespace gpupool::quota {
namespace {

// Adds one device request ({deviceClassName, allocationMode, count}) of `claim`; false with `problem` set when it cannot.
bool add_request(const rapidjson::Value& r, const std::string& claim, Amounts& out, std::string& problem) {
  const std::string cls = kube::string_of(kube::member(r, "deviceClassName"));
  const std::string mode = kube::string_of(kube::member(r, "allocationMode"));
  if (mode == "All") {
    problem = claim + " asks for all devices of DeviceClass " + cls + ": a quota cannot count that before allocation";
    return false;
  }
  std::int64_t count = 1;
  if (const rapidjson::Value* c = kube::member(r, "count"); c && c->IsInt64()) count = c->GetInt64();
  if (!cls.empty() && count > 0) out[cls] += count * kMicro;
  return true;
}

}  // namespace

PodClaims pod_claims(const kube::PodProjection& pod, const ClaimLookup& lookup) {
  PodClaims out;
  for (std::size_t i = 0; i < pod.rare().claim_sources.size(); ++i) {
    const auto& source = pod.rare().claim_sources[i];
    const bool from_template = !source.template_name.empty();
    const std::string name = from_template ? source.template_name : source.claim_name;
    if (name.empty()) continue;  // neither set: the API server refuses such pods
    const std::string what = (from_template ? "ResourceClaimTemplate " : "ResourceClaim ") + pod.ns + "/" + name;
    const auto object = lookup ? lookup(from_template ? "resourceclaimtemplates" : "resourceclaims", pod.ns, name) : nullptr;
    if (!object) {
      out.problem = what + " does not exist (yet)";
      return out;
    }
    const rapidjson::Value* requests =
        from_template ? kube::value_at(object->doc, {"spec", "spec", "devices", "requests"})
                      : kube::value_at(object->doc, {"spec", "devices", "requests"});
    if (requests == nullptr || !requests->IsArray()) continue;
    for (const auto& r : requests->GetArray()) {
      const rapidjson::Value* one = kube::member(r, "exactly");
      if (const rapidjson::Value* alternatives = kube::member(r, "firstAvailable");
          one == nullptr && alternatives && alternatives->IsArray() && !alternatives->Empty()) {
        one = &(*alternatives)[0];
      }
      if (one != nullptr && !add_request(*one, what, out.by_class, out.problem)) return out;
    }
  }
  return out;
}

}  // namespace gpupool::quota
