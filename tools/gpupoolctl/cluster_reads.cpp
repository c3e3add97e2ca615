#include "cluster_reads.h"

#include "gpupool/kube/errors.h"

namespace gpupool::ctl {

Listed list_objects(kube::Client& client, const kube::ResourceRef& collection, const kube::ListOptions& options) {
  Listed out;
  try {
    out.doc = client.list(collection, options);
  } catch (const kube::ApiError& e) {
    const auto& gvr = collection.gvr;
    const std::string what = (gvr.group.empty() ? "" : gvr.group + "/") + gvr.version + " " + gvr.resource;
    if (e.is_forbidden()) {
      out.error = "forbidden: " + e.status_message();
    } else if (e.is_not_found()) {
      out.error = "the server has no " + what +
                  (gvr.group == "gpupool.io" ? ": are the gpupool.io CRDs installed (kubectl apply -f crds/)?" : "");
    } else {
      throw;
    }
    return out;
  }
  if (out.doc.IsObject() && out.doc.HasMember("items") && out.doc["items"].IsArray()) {
    for (const auto& item : out.doc["items"].GetArray()) out.items.push_back(&item);
  }
  return out;
}

std::optional<rapidjson::Document> get_object(kube::Client& client, const kube::ResourceRef& ref) {
  try {
    return client.get(ref);
  } catch (const kube::ApiError& e) {
    if (e.is_not_found()) return std::nullopt;
    throw;
  }
}

Listed list_events(kube::Client& client, const std::string& ns, const std::string& field_selector) {
  kube::ListOptions options;
  options.field_selector = field_selector;
  try {
    return list_objects(client, kube::ResourceRef{kEvents, ns, "", ""}, options);
  } catch (const kube::ApiError& e) {
    Listed none;
    none.error = e.what();
    return none;
  }
}

Listed events_about(kube::Client& client, const std::string& ns, const std::string& name, const std::string& kind) {
  return list_events(client, ns, "regarding.name=" + name + (kind.empty() ? "" : ",regarding.kind=" + kind));
}

}  // namespace gpupool::ctl
