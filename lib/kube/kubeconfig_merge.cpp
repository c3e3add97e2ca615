// Combining the files of $KUBECONFIG, with client-go's precedence
// (k8s.io/client-go/tools/clientcmd/loader.go).
#include <set>

#include "gpupool/kube/kubeconfig.h"

namespace gpupool::kube::kubeconfig {

Config merge(std::vector<Config> configs) {
  Config merged;
  for (Config& c : configs) {
    // emplace keeps an existing key: the first file to name an entry wins, and
    // the entry is taken whole (fields are not combined across files).
    for (auto& [name, cluster] : c.clusters) merged.clusters.emplace(name, std::move(cluster));
    for (auto& [name, user] : c.users) merged.users.emplace(name, std::move(user));
    for (auto& [name, context] : c.contexts) merged.contexts.emplace(name, std::move(context));
    if (merged.current_context.empty() && !c.current_context.empty()) {
      merged.current_context = c.current_context;
      merged.current_context_file = c.current_context_file;
    }
    merged.files.insert(merged.files.end(), c.files.begin(), c.files.end());
  }
  return merged;
}

std::vector<std::string> split_path_list(std::string_view value) {
  std::vector<std::string> out;
  std::set<std::string> seen;
  std::size_t start = 0;
  while (start <= value.size()) {
    std::size_t end = value.find(':', start);
    if (end == std::string_view::npos) end = value.size();
    std::string entry(value.substr(start, end - start));
    start = end + 1;
    if (!entry.empty() && seen.insert(entry).second) out.push_back(std::move(entry));
  }
  return out;
}

}  // namespace gpupool::kube::kubeconfig
