#include "gpupool/kube/resource.h"

#include <cstdio>

namespace gpupool::kube {

std::string resource_path(const ResourceRef& ref) {
  std::string path = ref.gvr.group.empty() ? "/api/" + ref.gvr.version
                                           : "/apis/" + ref.gvr.group + "/" + ref.gvr.version;
  if (!ref.ns.empty()) path += "/namespaces/" + url_encode(ref.ns);
  path += "/" + ref.gvr.resource;
  if (!ref.name.empty()) path += "/" + url_encode(ref.name);
  if (!ref.subresource.empty()) path += "/" + ref.subresource;
  return path;
}

std::string url_encode(const std::string& value) {
  std::string out;
  out.reserve(value.size());
  for (unsigned char c : value) {
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_' ||
        c == '.' || c == '~') {
      out += static_cast<char>(c);
    } else {
      char buf[4];
      std::snprintf(buf, sizeof buf, "%%%02X", c);
      out += buf;
    }
  }
  return out;
}

}  // namespace gpupool::kube
