// A Kubernetes object held whole: its JSON as a DOM plus the metadata every
// controller reads, extracted once at decode time.
#pragma once

#include <rapidjson/document.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace gpupool::kube {

// A typed form of a part of an object that its decoder took out of the DOM
// (DecodeTrim::take_part): the controller keeps a GPUNode's status this way,
// a fifth of its size as a DOM (stored/gpunode.h). Readers that know the
// kind ask for it by its type.
struct ObjectPart {
  virtual ~ObjectPart() = default;
};

struct Object {
  std::string ns;  // empty for cluster-scoped objects
  std::string name;
  std::string uid;
  std::string resource_version;
  int64_t generation = 0;
  bool deleting = false;  // metadata.deletionTimestamp is set
  // Where `doc` keeps its values when decode_object made it: one block the
  // object's size, where a Document of its own takes RapidJSON's 64 KiB
  // chunk (an informer holds thousands of Nodes, GPUNodes and Leases). Null
  // when doc allocates for itself. Declared before doc, which it outlives.
  std::unique_ptr<rapidjson::MemoryPoolAllocator<>> allocator;
  rapidjson::Document doc;
  // What DecodeTrim::take_part took out of doc, typed; null for most objects.
  std::shared_ptr<const ObjectPart> part;

  Object() = default;
  Object(Object&&) noexcept = default;
  Object& operator=(Object&& other) noexcept {
    ns = std::move(other.ns);
    name = std::move(other.name);
    uid = std::move(other.uid);
    resource_version = std::move(other.resource_version);
    generation = other.generation;
    deleting = other.deleting;
    doc = std::move(other.doc);  // first: the values it drops live in the allocator replaced next
    allocator = std::move(other.allocator);
    part = std::move(other.part);
    return *this;
  }
};

// Decodes an object. Throws DecodeError on malformed JSON, or when the value
// is not an object or has no metadata.name.
Object decode_object(std::string_view json);

// What a stored copy leaves out. metadata.managedFields is often the largest
// part of an object and few readers need it. Dropping it whole is safe for
// writes made from the copy: an update without managedFields keeps the
// server's. Keeping a subset is not: never send such a copy back whole in a
// PUT (the server would take the subset).
struct DecodeTrim {
  bool managed_fields = false;       // drop metadata.managedFields entries...
  std::string keep_managers_prefix;  // ...but those whose manager starts with this ("": drop them all)
  // Members of .status to leave out (a Node's images, nodeInfo, ...): for a
  // store whose readers never look at them. Such a copy is never written back.
  std::vector<std::string> status_members;
  // Members to keep of each entry of .status.conditions (empty: all): a
  // Node's readers here want each condition's type and status, not its
  // heartbeat time, reason and message (a third of a kwok Node as stored).
  // Such a copy is never written back.
  std::vector<std::string> condition_members;
  // Members to leave out wherever they are, each a path of member names from
  // the object's root where "*" stands for every element of an array (never
  // the last step): {"status", "gpus", "*", "uuid"}. A path that does not
  // match the object (a member missing, not an object or array where the
  // path goes on) takes nothing out. Such a copy is never written back.
  std::vector<std::vector<std::string>> drop_paths;
  // Called last, on the parsed object after the trims above: it may take
  // members out of it (their bytes are not copied into the Object) and
  // returns what the Object keeps of them as `part` (null: nothing). Such a
  // copy is never written back whole.
  std::function<std::shared_ptr<const ObjectPart>(rapidjson::Document& parsed)> take_part;
};

// decode_object, leaving out what `trim` says.
Object decode_object(std::string_view json, const DecodeTrim& trim);

// The bytes a MemoryPoolAllocator gives a deep copy of `v` (CopyFrom): the
// arrays, members and strings longer than RapidJSON keeps inline, each
// rounded up as the allocator does.
std::size_t copy_size(const rapidjson::Value& v);

// "namespace/name", or "name" for cluster-scoped objects: the store key.
std::string object_key(std::string_view ns, std::string_view name);

}  // namespace gpupool::kube
