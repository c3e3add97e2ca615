// The monitoring reconciler (controller "gpupool-monitoring"): keeps each
// GPUPool's monitoring objects (monitoring/rollout.h) in the agents'
// namespace, owned by the pool. One key per pool. Each pass:
// 1. reads the pool and its GPUPolicy from the stores (the policy's health
//    rules set the alerts' thresholds, monitoring/prometheus_rules.h);
// 2. asks the API server which of monitoring.coreos.com/v1 servicemonitors
//    and prometheusrules it serves (GET /apis/monitoring.coreos.com/v1; a
//    404 is "none"), so CRDs installed later are found on a later pass;
// 3. calls monitoring::plan_monitoring and carries it out:
//    - each object to keep: read it; when it exists and is not the pool's
//      (no ownerReference to GPUPool <pool>), it is left alone and the
//      condition says NameTaken; otherwise it is applied (server-side apply,
//      field manager "gpupool-controller", forced; the pool its controller
//      owner, so the garbage collector deletes it with the pool);
//    - each object to remove: deleted when it exists and is the pool's
//      (precondition: its uid);
// 4. writes the pool condition MonitoringRolledOut (the plan's, or
//    ApplyFailed with the API server's words for the objects it refused),
//    and an Event on the pool when the condition turns False
//    (MonitoringIncomplete, Warning) or True (MonitoringRolledOut, Normal).
// Nothing here fails the pool: a missing operator or a refused object is a
// condition, and the pass is retried (after missing_requeue while something
// is missing or refused, else after idle_requeue, which also puts back
// objects someone deleted or changed).
// A deleted pool's objects go with it (garbage collector); a pool being
// deleted is left alone.
// RBAC: get, patch, delete on services and configmaps in the namespace, and
// on servicemonitors and prometheusrules (monitoring.coreos.com) there; get
// on /apis/monitoring.coreos.com/v1 (discovery, allowed to every
// authenticated user by default).
#pragma once

#include <chrono>
#include <map>
#include <mutex>
#include <string>

#include "gpupool/kube/client.h"
#include "gpupool/kube/object.h"
#include "gpupool/monitoring/rollout.h"
#include "gpupool/runtime/controller.h"
#include "gpupool/runtime/event_recorder.h"
#include "gpupool/runtime/store.h"

namespace gpupool::pool_controller {

struct MonitoringReconcilerOptions {
  monitoring::MonitoringOptions objects;        // namespace (the agents'), extra labels, agent pod labels, port
  runtime::EventRecorder* events = nullptr;     // optional
  std::chrono::milliseconds missing_requeue{std::chrono::minutes(1)};
  std::chrono::milliseconds idle_requeue{std::chrono::minutes(5)};
};

class MonitoringReconciler : public runtime::Reconciler {
 public:
  MonitoringReconciler(kube::Client& client, runtime::Store<kube::Object>& pools,
                       runtime::Store<kube::Object>& policies, MonitoringReconcilerOptions options);
  runtime::Result reconcile(const runtime::Request& request, std::stop_token stop) override;

 private:
  monitoring::MonitoringApis served_apis();

  kube::Client& client_;
  runtime::Store<kube::Object>& pools_;
  runtime::Store<kube::Object>& policies_;
  MonitoringReconcilerOptions options_;
};

}  // namespace gpupool::pool_controller
