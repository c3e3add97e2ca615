// Lists for the commands that read the cluster (status, explain): the items
// of a collection, or the reason they cannot be read when that is a fact
// about the cluster (forbidden, no such resource) rather than a failure.
#pragma once

#include <rapidjson/document.h>

#include <optional>
#include <string>
#include <vector>

#include "gpupool/kube/client.h"

namespace gpupool::ctl {

inline const kube::GroupVersionResource kGpuPools{"gpupool.io", "v1alpha1", "gpupools"};
inline const kube::GroupVersionResource kGpuNodes{"gpupool.io", "v1alpha1", "gpunodes"};
inline const kube::GroupVersionResource kTenantQuotas{"gpupool.io", "v1alpha1", "tenantquotas"};
inline const kube::GroupVersionResource kEvents{"events.k8s.io", "v1", "events"};
inline const kube::GroupVersionResource kLeases{"coordination.k8s.io", "v1", "leases"};

struct Listed {
  rapidjson::Document doc;                      // the list as the server sent it
  std::vector<const rapidjson::Value*> items;   // into doc
  std::optional<std::string> error;             // forbidden, or the server has no such resource
};

// Lists `collection`; 403 and 404 become `error` ("forbidden: ...",
// "the server has no gpupool.io/v1alpha1 gpupools: are the CRDs installed?"),
// other errors are thrown.
Listed list_objects(kube::Client& client, const kube::ResourceRef& collection, const kube::ListOptions& options = {});

// One object, or nullopt when it does not exist (other errors thrown).
std::optional<rapidjson::Document> get_object(kube::Client& client, const kube::ResourceRef& ref);

// Events (events.k8s.io/v1) in `ns` regarding an object named `name`, of
// kind `kind` when given. Empty when they cannot be read: Events only add to
// an explanation.
Listed events_about(kube::Client& client, const std::string& ns, const std::string& name, const std::string& kind = "");
// Events in `ns` matching `field_selector` ("reason=WaitingForQuota,regarding.kind=Pod"); empty when unreadable.
Listed list_events(kube::Client& client, const std::string& ns, const std::string& field_selector);

}  // namespace gpupool::ctl
