// Resolves kinds to resources from the server's discovery documents (/api,
// /apis, /apis/<group>/<version>), cached; a miss refreshes the cache once,
// so kinds of CRDs installed later are found.
#pragma once

#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "gpupool/kube/client.h"

namespace gpupool::kube {

struct ApiResource {
  GroupVersionResource gvr;
  std::string kind;
  bool namespaced = false;
  std::vector<std::string> verbs;
  std::vector<std::string> subresources;  // "status", "scale", "eviction"
};

class Discovery {
 public:
  explicit Discovery(Client& client) : client_(client) {}

  // `api_version` is "v1", "apps/v1" or just a group ("apps") for its preferred
  // version. Throws ApiError (NotFound) when the server has no such kind.
  ApiResource resolve(const std::string& api_version, const std::string& kind);
  // Drops the cache.
  void invalidate();

 private:
  struct GroupInfo {
    std::string name;
    std::string preferred_version;
    std::vector<std::string> versions;
  };
  std::optional<ApiResource> find_cached(const std::string& group, const std::string& version, const std::string& kind);
  void load();
  std::vector<ApiResource> load_group_version(const std::string& group, const std::string& version);

  Client& client_;
  std::mutex mu_;
  bool loaded_ = false;
  std::vector<GroupInfo> groups_;
  std::vector<ApiResource> resources_;
};

}  // namespace gpupool::kube
