// A Kubernetes object held whole: its JSON as a DOM plus the metadata every
// controller reads, extracted once at decode time.
#pragma once

#include <rapidjson/document.h>

#include <cstdint>
#include <string>
#include <string_view>

namespace gpupool::kube {

struct Object {
  std::string ns;  // empty for cluster-scoped objects
  std::string name;
  std::string uid;
  std::string resource_version;
  int64_t generation = 0;
  bool deleting = false;  // metadata.deletionTimestamp is set
  rapidjson::Document doc;
};

// Decodes an object. Throws DecodeError on malformed JSON, or when the value
// is not an object or has no metadata.name.
Object decode_object(std::string_view json);

// "namespace/name", or "name" for cluster-scoped objects: the store key.
std::string object_key(std::string_view ns, std::string_view name);

}  // namespace gpupool::kube
