// Addressing of API resources: group/version/resource, namespace, name and
// subresource, turned into REST paths.
#pragma once

#include <string>

namespace gpupool::kube {

struct GroupVersionResource {
  std::string group;  // "" for the core group
  std::string version;
  std::string resource;  // plural, lower case: "pods", "gpupools"
};

// A collection (name empty) or one object. An empty namespace means a
// cluster-scoped resource, or all namespaces for a namespaced collection.
struct ResourceRef {
  GroupVersionResource gvr;
  std::string ns;
  std::string name;
  std::string subresource;  // "status", "eviction", "scale"; empty for the object itself

  ResourceRef with_name(std::string n) const { ResourceRef r = *this; r.name = std::move(n); return r; }
  ResourceRef with_namespace(std::string n) const { ResourceRef r = *this; r.ns = std::move(n); return r; }
  ResourceRef with_subresource(std::string s) const { ResourceRef r = *this; r.subresource = std::move(s); return r; }
};

// "/api/v1/namespaces/ns/pods/name/status", "/apis/gpupool.io/v1alpha1/gpupools".
std::string resource_path(const ResourceRef& ref);

// Percent-encodes a query parameter value (RFC 3986 unreserved characters kept).
std::string url_encode(const std::string& value);

// Common references.
namespace core {
inline GroupVersionResource pods() { return {"", "v1", "pods"}; }
inline GroupVersionResource nodes() { return {"", "v1", "nodes"}; }
inline GroupVersionResource namespaces() { return {"", "v1", "namespaces"}; }
inline GroupVersionResource configmaps() { return {"", "v1", "configmaps"}; }
inline GroupVersionResource secrets() { return {"", "v1", "secrets"}; }
inline GroupVersionResource events() { return {"", "v1", "events"}; }
}  // namespace core

}  // namespace gpupool::kube
