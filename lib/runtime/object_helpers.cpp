#include "gpupool/runtime/object_helpers.h"

#include <random>
#include <thread>

namespace gpupool::runtime {

namespace {

std::string finalizer_patch(const rapidjson::Value& finalizers, const std::string& resource_version) {
  rapidjson::Document patch(rapidjson::kObjectType);
  auto& a = patch.GetAllocator();
  rapidjson::Value meta(rapidjson::kObjectType);
  meta.AddMember("finalizers", rapidjson::Value(finalizers, a), a);
  // The resourceVersion turns the merge patch into a compare-and-swap.
  meta.AddMember("resourceVersion", rapidjson::Value(resource_version.c_str(), a), a);
  patch.AddMember("metadata", meta, a);
  return kube::to_json(patch);
}

rapidjson::Value current_finalizers(const rapidjson::Value& object, rapidjson::Document::AllocatorType& a) {
  rapidjson::Value list(rapidjson::kArrayType);
  auto meta = object.FindMember("metadata");
  if (meta == object.MemberEnd() || !meta->value.IsObject()) return list;
  auto f = meta->value.FindMember("finalizers");
  if (f == meta->value.MemberEnd() || !f->value.IsArray()) return list;
  for (const auto& v : f->value.GetArray()) {
    if (v.IsString()) list.PushBack(rapidjson::Value(v, a), a);
  }
  return list;
}

// The first try starts from `cached` when given, else from a read.
rapidjson::Document update_status_from(kube::Client& client, const kube::ResourceRef& object,
                                       const rapidjson::Value* cached,
                                       const std::function<bool(rapidjson::Document&)>& mutate) {
  rapidjson::Document result;
  retry_on_conflict([&] {
    rapidjson::Document doc;
    if (cached != nullptr) {
      doc.CopyFrom(*cached, doc.GetAllocator());
      cached = nullptr;  // a retry reads afresh
    } else {
      doc = client.get(object);
    }
    if (!mutate(doc)) {
      result = std::move(doc);
      return;
    }
    result = client.update(object.with_subresource("status"), kube::to_json(doc));
  });
  return result;
}

}  // namespace

void retry_on_conflict(const std::function<void()>& attempt, int attempts) {
  static thread_local std::mt19937 rng(std::random_device{}());
  for (int i = 1;; ++i) {
    try {
      attempt();
      return;
    } catch (const kube::ApiError& e) {
      if (!e.is_conflict() || i >= attempts) throw;
    }
    // client-go's DefaultRetry: 10 ms steps with 10% jitter.
    std::this_thread::sleep_for(std::chrono::microseconds(10000 + std::uniform_int_distribution<int>(0, 1000)(rng)));
  }
}

rapidjson::Document update_status(kube::Client& client, const kube::ResourceRef& object,
                                  const std::function<bool(rapidjson::Document&)>& mutate) {
  return update_status_from(client, object, nullptr, mutate);
}

rapidjson::Document update_status(kube::Client& client, const kube::ResourceRef& object, const rapidjson::Value& cached,
                                  const std::function<bool(rapidjson::Document&)>& mutate) {
  return update_status_from(client, object, &cached, mutate);
}

bool has_finalizer(const rapidjson::Value& object, const std::string& finalizer) {
  rapidjson::Document scratch;
  auto list = current_finalizers(object, scratch.GetAllocator());
  for (const auto& v : list.GetArray()) {
    if (finalizer == v.GetString()) return true;
  }
  return false;
}

bool add_finalizer(kube::Client& client, const kube::ResourceRef& object, const std::string& finalizer) {
  bool changed = false;
  retry_on_conflict([&] {
    rapidjson::Document doc = client.get(object);
    changed = false;
    if (has_finalizer(doc, finalizer)) return;
    auto& a = doc.GetAllocator();
    auto list = current_finalizers(doc, a);
    list.PushBack(rapidjson::Value(finalizer.c_str(), a), a);
    client.patch(object, kube::PatchType::MergePatch, finalizer_patch(list, kube::string_at(doc, {"metadata", "resourceVersion"})));
    changed = true;
  });
  return changed;
}

bool remove_finalizer(kube::Client& client, const kube::ResourceRef& object, const std::string& finalizer) {
  bool changed = false;
  retry_on_conflict([&] {
    rapidjson::Document doc;
    try {
      doc = client.get(object);
    } catch (const kube::ApiError& e) {
      if (e.is_not_found()) return;  // already gone: nothing holds it
      throw;
    }
    changed = false;
    if (!has_finalizer(doc, finalizer)) return;
    auto& a = doc.GetAllocator();
    rapidjson::Value kept(rapidjson::kArrayType);
    rapidjson::Value current = current_finalizers(doc, a);  // named: GetArray() of a temporary would dangle
    for (auto& v : current.GetArray()) {
      if (finalizer != v.GetString()) kept.PushBack(rapidjson::Value(v, a), a);
    }
    client.patch(object, kube::PatchType::MergePatch, finalizer_patch(kept, kube::string_at(doc, {"metadata", "resourceVersion"})));
    changed = true;
  });
  return changed;
}

std::string owner_reference_json(const kube::Object& owner, const std::string& api_version, const std::string& kind) {
  rapidjson::Document ref(rapidjson::kObjectType);
  auto& a = ref.GetAllocator();
  ref.AddMember("apiVersion", rapidjson::Value(api_version.c_str(), a), a);
  ref.AddMember("kind", rapidjson::Value(kind.c_str(), a), a);
  ref.AddMember("name", rapidjson::Value(owner.name.c_str(), a), a);
  ref.AddMember("uid", rapidjson::Value(owner.uid.c_str(), a), a);
  ref.AddMember("controller", true, a);
  ref.AddMember("blockOwnerDeletion", true, a);
  return kube::to_json(ref);
}

rapidjson::Document apply_owned(kube::Client& client, const kube::ResourceRef& object, rapidjson::Document desired,
                                const kube::Object& owner, const std::string& owner_api_version,
                                const std::string& owner_kind, const std::string& field_manager) {
  auto& a = desired.GetAllocator();
  if (!desired.IsObject() || !desired.HasMember("metadata") || !desired["metadata"].IsObject()) {
    throw kube::DecodeError("apply_owned: the desired object has no metadata");
  }
  rapidjson::Document owner_ref = kube::parse_json(owner_reference_json(owner, owner_api_version, owner_kind));
  rapidjson::Value refs(rapidjson::kArrayType);
  refs.PushBack(rapidjson::Value(owner_ref, a), a);
  auto& meta = desired["metadata"];
  if (meta.HasMember("ownerReferences")) meta.RemoveMember("ownerReferences");
  meta.AddMember("ownerReferences", refs, a);
  kube::PatchOptions opts;
  opts.field_manager = field_manager;
  opts.force = true;
  return client.patch(object, kube::PatchType::Apply, kube::to_json(desired), opts);
}

}  // namespace gpupool::runtime
