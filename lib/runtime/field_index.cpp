#include "gpupool/runtime/field_index.h"

#include "gpupool/kube/json_access.h"

namespace gpupool::runtime {

std::string field_index_name(std::initializer_list<std::string_view> path) {
  std::string name;
  for (const auto p : path) name.append(name.empty() ? "" : ".").append(p);
  return name;
}

void index_by_field(Store<kube::Object>& store, std::initializer_list<std::string_view> path) {
  const std::vector<std::string> at(path.begin(), path.end());
  store.add_index(field_index_name(path), [at](const kube::Object& o) {
    const rapidjson::Value* v = &o.doc;
    for (const auto& p : at) v = kube::member(v, p);
    std::string value = kube::string_of(v);
    return value.empty() ? std::vector<std::string>{} : std::vector<std::string>{std::move(value)};
  });
}

std::vector<Store<kube::Object>::Ptr> by_field(Store<kube::Object>& store, std::initializer_list<std::string_view> path,
                                               const std::string& value) {
  const std::string name = field_index_name(path);
  if (!store.has_index(name)) index_by_field(store, path);
  return store.by_index(name, value);
}

}  // namespace gpupool::runtime
