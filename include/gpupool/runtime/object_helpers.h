// Helpers reconcilers use to write objects safely: optimistic-concurrency
// retries, the status subresource, finalizers, owner references and
// server-side apply of the objects a controller owns.
#pragma once

#include <functional>
#include <string>

#include "gpupool/kube/client.h"
#include "gpupool/kube/object.h"

namespace gpupool::runtime {

// Runs `attempt` again when it throws a 409 Conflict (someone wrote the object
// between our read and our write), up to `attempts` times, with a short
// jittered pause as client-go's retry.RetryOnConflict. Other errors, and the
// last conflict, are thrown.
void retry_on_conflict(const std::function<void()>& attempt, int attempts = 5);

// Reads the object, lets `mutate` change its status (on the DOM it is given),
// and writes it through the status subresource with the resourceVersion it
// read, retrying on conflict with a fresh read. `mutate` returns false when
// nothing needs writing. Returns the object as last read or written.
rapidjson::Document update_status(kube::Client& client, const kube::ResourceRef& object,
                                  const std::function<bool(rapidjson::Document&)>& mutate);

// The same, starting from `cached` (an informer's copy of the object) instead
// of reading it: one round trip instead of two when the cache is current; a
// conflict (the cache was behind) reads the object afresh and tries again.
rapidjson::Document update_status(kube::Client& client, const kube::ResourceRef& object, const rapidjson::Value& cached,
                                  const std::function<bool(rapidjson::Document&)>& mutate);

// Adds or removes a finalizer, by a merge patch carrying the resourceVersion
// read (so a concurrent change is a conflict, retried). Returns false when
// there was nothing to do.
bool add_finalizer(kube::Client& client, const kube::ResourceRef& object, const std::string& finalizer);
bool remove_finalizer(kube::Client& client, const kube::ResourceRef& object, const std::string& finalizer);
bool has_finalizer(const rapidjson::Value& object, const std::string& finalizer);

// A metadata.ownerReferences entry naming `owner` (controller and
// blockOwnerDeletion set, as controller-runtime's SetControllerReference).
std::string owner_reference_json(const kube::Object& owner, const std::string& api_version, const std::string& kind);

// Server-side apply of an object this controller owns: `desired` (a full
// manifest with apiVersion, kind, metadata.name) gets `owner` as its
// controller owner reference, then is applied with `field_manager`, forcing
// ownership of the fields it sets. The garbage collector deletes it with its
// owner.
rapidjson::Document apply_owned(kube::Client& client, const kube::ResourceRef& object, rapidjson::Document desired,
                                const kube::Object& owner, const std::string& owner_api_version,
                                const std::string& owner_kind, const std::string& field_manager);

}  // namespace gpupool::runtime
