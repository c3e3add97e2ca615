#include "gpupool/kube/discovery.h"

#include <algorithm>

namespace gpupool::kube {

namespace {

std::string str(const rapidjson::Value& v, const char* key) {
  if (!v.IsObject()) return {};
  auto it = v.FindMember(key);
  return it != v.MemberEnd() && it->value.IsString() ? std::string(it->value.GetString(), it->value.GetStringLength())
                                                     : std::string();
}

void split_api_version(const std::string& api_version, std::string& group, std::string& version) {
  auto slash = api_version.find('/');
  if (slash != std::string::npos) {
    group = api_version.substr(0, slash);
    version = api_version.substr(slash + 1);
  } else if (api_version == "v1") {
    group.clear();  // the legacy core group
    version = "v1";
  } else {
    group = api_version;  // a bare group: its preferred version
    version.clear();
  }
}

}  // namespace

std::vector<ApiResource> Discovery::load_group_version(const std::string& group, const std::string& version) {
  std::string path = group.empty() ? "/api/" + version : "/apis/" + group + "/" + version;
  auto doc = parse_json(client_.request("GET", path, "", "", true).body);
  std::vector<ApiResource> out;
  auto it = doc.FindMember("resources");
  if (it == doc.MemberEnd() || !it->value.IsArray()) return out;
  // Subresources come as "pods/status"; attach them to their parent.
  for (const auto& r : it->value.GetArray()) {
    std::string name = str(r, "name");
    if (name.empty() || name.find('/') != std::string::npos) continue;
    ApiResource res;
    res.gvr = {group, version, name};
    res.kind = str(r, "kind");
    if (auto ns = r.FindMember("namespaced"); ns != r.MemberEnd() && ns->value.IsBool()) res.namespaced = ns->value.GetBool();
    if (auto verbs = r.FindMember("verbs"); verbs != r.MemberEnd() && verbs->value.IsArray()) {
      for (const auto& v : verbs->value.GetArray()) {
        if (v.IsString()) res.verbs.emplace_back(v.GetString(), v.GetStringLength());
      }
    }
    out.push_back(std::move(res));
  }
  for (const auto& r : it->value.GetArray()) {
    std::string name = str(r, "name");
    auto slash = name.find('/');
    if (slash == std::string::npos) continue;
    for (auto& parent : out) {
      if (parent.gvr.resource == name.substr(0, slash)) parent.subresources.push_back(name.substr(slash + 1));
    }
  }
  return out;
}

void Discovery::load() {
  groups_.clear();
  resources_.clear();
  groups_.push_back({"", "v1", {"v1"}});
  auto apis = parse_json(client_.request("GET", "/apis", "", "", true).body);
  if (auto gs = apis.FindMember("groups"); gs != apis.MemberEnd() && gs->value.IsArray()) {
    for (const auto& g : gs->value.GetArray()) {
      GroupInfo info;
      info.name = str(g, "name");
      if (auto pv = g.FindMember("preferredVersion"); pv != g.MemberEnd()) info.preferred_version = str(pv->value, "version");
      if (auto vs = g.FindMember("versions"); vs != g.MemberEnd() && vs->value.IsArray()) {
        for (const auto& v : vs->value.GetArray()) info.versions.push_back(str(v, "version"));
      }
      if (!info.name.empty()) groups_.push_back(std::move(info));
    }
  }
  loaded_ = true;
}

std::optional<ApiResource> Discovery::find_cached(const std::string& group, const std::string& version,
                                                  const std::string& kind) {
  auto group_it = std::find_if(groups_.begin(), groups_.end(), [&](const GroupInfo& g) { return g.name == group; });
  if (group_it == groups_.end()) return std::nullopt;
  std::string v = version.empty() ? group_it->preferred_version : version;
  if (std::find(group_it->versions.begin(), group_it->versions.end(), v) == group_it->versions.end()) return std::nullopt;
  auto match = [&](const ApiResource& r) { return r.gvr.group == group && r.gvr.version == v && r.kind == kind; };
  auto it = std::find_if(resources_.begin(), resources_.end(), match);
  if (it != resources_.end()) return *it;
  // Resources of a group/version are fetched on first use.
  bool fetched = std::any_of(resources_.begin(), resources_.end(),
                             [&](const ApiResource& r) { return r.gvr.group == group && r.gvr.version == v; });
  if (fetched) return std::nullopt;
  auto loaded = load_group_version(group, v);
  resources_.insert(resources_.end(), loaded.begin(), loaded.end());
  it = std::find_if(resources_.begin(), resources_.end(), match);
  if (it != resources_.end()) return *it;
  return std::nullopt;
}

ApiResource Discovery::resolve(const std::string& api_version, const std::string& kind) {
  std::string group, version;
  split_api_version(api_version, group, version);
  std::lock_guard lock(mu_);
  if (!loaded_) load();
  if (auto r = find_cached(group, version, kind)) return *r;
  load();  // a CRD may have been installed since the cache was filled
  if (auto r = find_cached(group, version, kind)) return *r;
  throw ApiError(404, StatusReason::NotFound,
                 "the server has no resource of kind " + kind + " in " + (api_version.empty() ? "v1" : api_version));
}

void Discovery::invalidate() {
  std::lock_guard lock(mu_);
  loaded_ = false;
  groups_.clear();
  resources_.clear();
}

}  // namespace gpupool::kube
