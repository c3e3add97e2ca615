#include "node_agent_pass.h"

#include <spdlog/spdlog.h>

#include <algorithm>

#include "gpupool/api/codec.h"
#include "gpupool/api/conditions.h"
#include "gpupool/api/enum_names.h"
#include "gpupool/kube/errors.h"
#include "gpupool/kube/resource.h"
#include "gpupool/node/device_plugin_config.h"
#include "gpupool/node/device_plugin_restart.h"
#include "gpupool/node/disruption_permission.h"
#include "gpupool/node/node_labels.h"
#include "gpupool/node/observed_status.h"
#include "gpupool/node/node_patches.h"
#include "gpu_health_tracker.h"

namespace gpupool::node {

using api::OperationPhase;
using api::OperationType;
using runtime::Result;

namespace {

kube::ResourceRef gpunodes_ref() { return {{"gpupool.io", "v1alpha1", "gpunodes"}, "", "", ""}; }
kube::ResourceRef nodes_ref() { return {kube::core::nodes(), "", "", ""}; }

std::string join(const std::vector<std::string>& parts, const std::string& sep) {
  std::string out;
  for (const auto& p : parts) out += (out.empty() ? "" : sep) + p;
  return out;
}

std::string seconds_text(std::chrono::nanoseconds d) {
  return std::to_string(std::chrono::duration_cast<std::chrono::seconds>(d).count()) + "s";
}

// "team-a/train-0: Cannot evict pod ... (The disruption budget train-pdb needs 1 healthy pods ...)"
std::string eviction_refusal(const std::string& pod, const kube::ApiError& e) {
  std::string text = pod + ": " + e.what();
  for (const auto& c : e.causes()) {
    if (!c.message.empty()) text += " (" + c.message + ")";
  }
  return text;
}

}  // namespace

api::Time AgentPass::now() const {
  return api::Time(std::chrono::time_point_cast<std::chrono::microseconds>(std::chrono::system_clock::now()));
}

const rapidjson::Value* AgentPass::node_json() const {
  if (node_patched_) return &node_doc_;
  return node ? &node->doc : nullptr;
}

void AgentPass::patch_node(const std::string& body, bool status_subresource) {
  auto ref = nodes_ref().with_name(options.node_name);
  if (status_subresource) ref = ref.with_subresource("status");
  kube::PatchOptions po;
  po.field_manager = options.field_manager;
  node_doc_ = client.patch(ref, kube::PatchType::MergePatch, body, po);
  node_patched_ = true;
}

void AgentPass::set_op(OperationType type, OperationPhase phase, const std::string& reason, const std::string& message) {
  api::OperationStatus op;
  op.type = type;
  op.phase = phase;
  op.observed_generation = generation();
  op.reason = reason;
  op.message = message.substr(0, 32000);
  op.last_transition_time = now();
  if (api::set_operation(status.operations, op)) {
    spdlog::info("operation {} {}: {} {}", api::to_string(type), api::to_string(phase), reason, message);
  }
  set_this_pass_.push_back(type);
}

void AgentPass::create_gpunode() {
  std::string owner;
  if (node && !node->uid.empty()) {
    owner = R"(,"ownerReferences":[{"apiVersion":"v1","kind":"Node","name":")" + node->name + R"(","uid":")" + node->uid +
            R"("}])";
  }
  const std::string body = R"({"apiVersion":"gpupool.io/v1alpha1","kind":"GPUNode","metadata":{"name":")" +
                           options.node_name + R"(")" + owner + R"(},"spec":{"nodeName":")" + options.node_name + R"("}})";
  try {
    client.create(gpunodes_ref(), body);
    spdlog::info("created GPUNode {}", options.node_name);
  } catch (const kube::ApiError& e) {
    if (!e.is_already_exists()) throw;
  }
}

std::vector<OperationType> AgentPass::disruptive_types(const NodePlan& plan) const {
  std::vector<OperationType> out;
  if (plan.driver_install) out.push_back(OperationType::driver);
  if (plan.partition_changes()) out.push_back(OperationType::partition);
  return out;
}

bool AgentPass::failed_for_generation(const NodePlan& plan) const {
  std::vector<OperationType> types = disruptive_types(plan);
  types.push_back(OperationType::drain);
  for (auto t : types) {
    const auto* op = api::find_operation(status.operations, t);
    if (op && op->phase == OperationPhase::failed && op->observed_generation == generation()) return true;
  }
  return false;
}

void AgentPass::fail(const std::vector<OperationType>& types, const std::string& reason, const std::string& message) {
  for (auto t : types) set_op(t, OperationPhase::failed, reason, message);
  if (!object.spec.cordon_on_failure) {
    finish_drain();
  } else if (const auto* n = node_json(); n && drain_started(*n)) {
    spdlog::warn("node {} stays cordoned after the failure (spec.cordonOnFailure)", options.node_name);
  }
}

bool AgentPass::drain_held() const {
  const auto* op = api::find_operation(status.operations, OperationType::drain);
  return op && op->phase == OperationPhase::in_progress;
}

AgentPass::NodeChange AgentPass::change_node(
    const std::function<std::optional<std::string>(const rapidjson::Value&)>& make, std::string* sent) {
  for (int attempt = 0; attempt < 2; ++attempt) {
    if (attempt > 0) read_node();
    const auto body = make(*node_json());
    if (!body) return NodeChange::unneeded;
    try {
      patch_node(*body, false);
      if (sent) *sent = *body;
      return NodeChange::done;
    } catch (const kube::ApiError& e) {
      if (!e.is_conflict()) throw;
    }
  }
  return NodeChange::conflict;
}

void AgentPass::read_node() {
  node_doc_ = client.get(nodes_ref().with_name(options.node_name));
  node_patched_ = true;
}

bool AgentPass::finish_drain() {
  if (const auto* n = node_json(); !drain_held() && !(n && drain_started(*n))) return true;  // nothing of ours held
  if (!node_patched_) {
    try {
      read_node();
    } catch (const kube::ApiError& e) {
      if (!e.is_not_found()) throw;
      return true;  // no Node, no cordon
    }
  }
  std::string how = "the drain's cordon is released";
  std::string sent;
  switch (change_node([](const rapidjson::Value& doc) { return uncordon_patch(doc); }, &sent)) {
    case NodeChange::conflict:
      // The Node keeps moving; the next pass (which reads it again) finishes,
      // and until then the Drain operation says the node is held.
      spdlog::debug("node {} changed while uncordoning; retrying on the next pass", options.node_name);
      return false;
    case NodeChange::done:
      how = sent.find("\"unschedulable\"") != std::string::npos ? "uncordoned; the node is schedulable again"
                                                                  : "left cordoned (it was cordoned before the drain)";
      spdlog::info("node {}: drain finished; {}", options.node_name, how);
      break;
    case NodeChange::unneeded:
      break;
  }
  // Ended only now, so a report of the change done never says the node is
  // free while this agent's cordon is still on (the controller counts the
  // node unavailable until then, whatever its view of the Node).
  if (drain_held()) {
    set_op(OperationType::drain, OperationPhase::succeeded, "Uncordoned", how);
  }
  return true;
}

AgentPass::DrainState AgentPass::drain(const NodePlan& plan, Result& out) {
  const auto* n = node_json();
  if (n == nullptr) {
    set_op(OperationType::drain, OperationPhase::pending, "NodeNotFound", "the Node " + options.node_name + " is not known yet");
    out = Result::requeue_after(options.drain_poll);
    return DrainState::in_progress;
  }
  if (!drain_held() && !drain_started(*n)) {
    // The first cordon for this change: the permission planned from may have
    // been withdrawn since the store's copy (check_permission says why).
    const auto check =
        check_permission(client.get(gpunodes_ref().with_name(options.node_name)), generation());
    if (check != PermissionCheck::holds) {
      spdlog::info("node {}: not cordoning: {}", options.node_name,
                   check == PermissionCheck::withdrawn ? "spec.disruptionAllowed was withdrawn"
                                                       : "the GPUNode's spec changed; planning again");
      out = Result::requeue_after(std::chrono::milliseconds(200));  // the store catches up
      return DrainState::in_progress;
    }
  }
  if (change_node([](const rapidjson::Value& doc) { return cordon_patch(doc); }, nullptr) == NodeChange::conflict) {
    out = Result::requeue_after(std::chrono::milliseconds(200));  // the Node keeps moving: read it again
    return DrainState::in_progress;
  }
  const auto* current = api::find_operation(status.operations, OperationType::drain);
  if (!current || current->phase != OperationPhase::in_progress || current->observed_generation != generation()) {
    set_op(OperationType::drain, OperationPhase::in_progress, "Draining", "cordoned; evicting GPU pods");
    current = api::find_operation(status.operations, OperationType::drain);
  }
  const auto started = current->last_transition_time ? current->last_transition_time->time() : now().time();

  const auto& options_drain = object.spec.drain;
  std::vector<PodFacts> facts;
  for (const auto& p : pods) facts.push_back(pod_facts(p->doc, options_drain.skip_pod_label));
  const DrainPlan dp = plan_drain(facts, options_drain);
  std::vector<std::string> refused;
  bool pdb = false;
  for (const auto& pod : dp.evict) {
    const std::string body = R"({"apiVersion":"policy/v1","kind":"Eviction","metadata":{"name":")" + pod.name +
                             R"(","namespace":")" + pod.ns + R"("}})";
    try {
      eviction_client.post_raw(kube::ResourceRef{kube::core::pods(), pod.ns, pod.name, "eviction"}, body);
      spdlog::info("evicted pod {}", pod.key());
    } catch (const kube::ApiError& e) {
      if (e.is_not_found()) continue;
      pdb = pdb || e.is_too_many_requests();
      refused.push_back(eviction_refusal(pod.key(), e));
    }
  }
  std::vector<backend::GpuProcess> processes;
  if (dp.done()) processes = backend.processes();
  if (dp.done() && processes.empty()) {
    // In progress until finish_drain has uncordoned the node.
    set_op(OperationType::drain, OperationPhase::in_progress, "Drained",
           "no GPU pod or GPU process left on the node; it stays cordoned until the change is done");
    return DrainState::drained;
  }

  std::string what;
  std::string reason;
  if (!refused.empty()) {
    reason = pdb ? "PodDisruptionBudget" : "EvictionFailed";
    what = "eviction refused for " + join(refused, "; ");
  } else if (!dp.done()) {
    reason = dp.blocked.empty() ? (dp.evict.empty() ? "WaitingForPods" : "Evicting") : "PodsBlocking";
    what = dp.summary();
  } else {
    reason = "WaitingForGPUProcesses";
    std::vector<std::string> procs;
    for (const auto& p : processes) {
      procs.push_back("pid " + std::to_string(p.pid) + " on GPU " + std::to_string(p.gpu_index));
    }
    what = "waiting for " + std::to_string(processes.size()) + " GPU process(es) to exit: " + join(procs, ", ");
  }
  const auto elapsed = now().time() - started;
  const auto timeout = options_drain.timeout.value();
  if (elapsed > timeout) {
    std::vector<OperationType> types = disruptive_types(plan);
    types.push_back(OperationType::drain);
    fail(types, "DrainTimeout",
         "the drain did not finish within " + seconds_text(timeout) + " (spec.drain.timeout): " + what);
    return DrainState::failed;
  }
  set_op(OperationType::drain, OperationPhase::in_progress, reason, what);
  for (auto t : disruptive_types(plan)) {
    set_op(t, OperationPhase::in_progress, "Draining", "waiting for the drain: " + what);
  }
  out = Result::requeue_after(options.drain_poll);
  return DrainState::in_progress;
}

bool AgentPass::install_driver() {
  const auto& driver = *object.spec.driver;
  const std::size_t gpus_before = inventory.gpus.size();
  set_op(OperationType::driver, OperationPhase::in_progress, "Installing",
         "installing driver " + driver.version + " (" + std::string(api::to_string(driver.installer.kind)) +
             " installer); was " + inventory.driver_version);
  write_status();  // a long install shows as such
  try {
    installer.install(driver, stop);
  } catch (const InstallError& e) {
    if (e.reason() == "Cancelled") return false;  // the agent is stopping; the next one starts over
    fail({OperationType::driver}, e.reason(), e.what());
    return false;
  }
  inventory = backend.inventory();
  fill_observed(status, inventory);
  if (inventory.driver_version != driver.version) {
    fail({OperationType::driver}, "ValidationFailed",
         "after the install the loaded driver is " + inventory.driver_version + ", not " + driver.version);
    return false;
  }
  if (inventory.gpus.size() < gpus_before) {
    fail({OperationType::driver}, "ValidationFailed",
         "after the install " + std::to_string(inventory.gpus.size()) + " of " + std::to_string(gpus_before) +
             " GPUs answer");
    return false;
  }
  set_op(OperationType::driver, OperationPhase::succeeded, "Installed",
         "driver " + driver.version + " loaded; " + std::to_string(inventory.gpus.size()) + " GPUs answer");
  return true;
}

bool AgentPass::apply_partitions(const NodePlan& plan) {
  set_op(OperationType::partition, OperationPhase::in_progress, "Configuring", plan.describe(inventory.driver_version));
  try {
    for (const auto& a : plan.mig) {
      if (a.set_mig_mode && *a.set_mig_mode &&
          backend.set_mig_mode(a.gpu_index, true) == backend::MigModeChange::reset_required) {
        fail({OperationType::partition}, "ResetRequired",
             "GPU " + std::to_string(a.gpu_index) +
                 ": enabling MIG waits for a GPU reset, which the driver refuses while the GPU is in use; stop "
                 "what holds the GPU (nvidia-smi shows it; host processes such as persistenced or monitoring "
                 "agents too) or reboot the node, then change the spec to retry");
        return false;
      }
      for (const auto& d : a.destroy) backend.destroy_mig_instance(a.gpu_index, d.gpu_instance_id);
      for (const auto& c : a.create) backend.create_mig_instance(a.gpu_index, c.profile, c.start);
      if (a.set_mig_mode && !*a.set_mig_mode &&
          backend.set_mig_mode(a.gpu_index, false) == backend::MigModeChange::reset_required) {
        fail({OperationType::partition}, "ResetRequired",
             "GPU " + std::to_string(a.gpu_index) +
                 ": disabling MIG waits for a GPU reset, which the driver refuses while the GPU is in use; stop "
                 "what holds the GPU or reboot the node, then change the spec to retry");
        return false;
      }
    }
    for (const auto& a : plan.amd) backend.set_amd_partition(a.gpu_index, a.compute, a.memory);
  } catch (const backend::BackendError& e) {
    fail({OperationType::partition}, e.code() == "driver-reload-required" ? "DriverReloadRequired" : "ConfigurationFailed",
         std::string(e.what()) + " (" + e.code() + ")");
    return false;
  }
  inventory = backend.inventory();
  fill_observed(status, inventory);
  const NodePlan after = plan_node(object.spec, inventory, catalog);
  if (after.partition_changes() || !after.problems.empty()) {
    fail({OperationType::partition}, "VerificationFailed",
         "after the change the GPUs still differ from the spec: " + after.describe(inventory.driver_version));
    return false;
  }
  set_op(OperationType::partition, OperationPhase::succeeded, "Applied", "applied: " + plan.describe(""));
  return true;
}

Result AgentPass::carry_out() {
  NodePlan plan = plan_node(object.spec, inventory, catalog);
  if (!plan.problems.empty()) {
    std::vector<std::string> lines;
    for (const auto& p : plan.problems) lines.push_back(p.field + ": " + p.message);
    set_op(OperationType::partition, OperationPhase::failed, "Unsatisfiable",
           join(lines, "; ") + "; nothing was changed on the node");
  }
  if (plan.driver_problem) {
    set_op(OperationType::driver, OperationPhase::failed, "DriverMismatch",
           plan.driver_problem->field + ": " + plan.driver_problem->message);
  }
  const Result idle = Result::requeue_after(options.inventory_interval);
  if (!plan.disruptive()) {
    const bool released = finish_drain();
    for (auto t : {OperationType::driver, OperationType::partition, OperationType::drain}) {
      if (std::find(set_this_pass_.begin(), set_this_pass_.end(), t) != set_this_pass_.end()) continue;
      if (t == OperationType::drain && !released) continue;  // still held: finished on a later pass
      const auto* op = api::find_operation(status.operations, t);
      if (op && op->phase != OperationPhase::succeeded) {
        set_op(t, OperationPhase::succeeded, "UpToDate", "the node matches the spec");
      }
    }
    return idle;
  }
  if (failed_for_generation(plan)) {  // retried when the spec changes
    if (!object.spec.cordon_on_failure) finish_drain();  // an uncordon that did not go through before
    return idle;
  }
  if (!object.spec.disruption_allowed) {
    const std::string msg = "needs a drain to carry out: " + plan.describe(inventory.driver_version) +
                            "; waiting for spec.disruptionAllowed";
    for (auto t : disruptive_types(plan)) set_op(t, OperationPhase::pending, "WaitingForDisruption", msg);
    return idle;
  }
  Result out = idle;
  switch (drain(plan, out)) {
    case DrainState::in_progress:
      return out;
    case DrainState::failed:
      return idle;
    case DrainState::drained:
      break;
  }
  if (plan.driver_install) {
    if (!install_driver()) return idle;
    plan = plan_node(object.spec, inventory, catalog);
  }
  if (plan.partition_changes() && !apply_partitions(plan)) return idle;
  finish_drain();
  return Result::requeue_after(std::chrono::seconds(1));
}

std::optional<std::chrono::milliseconds> AgentPass::sync_node() {
  const auto* n = node_json();
  if (n == nullptr) return std::nullopt;
  const auto& spec = object.spec;
  const bool nvidia = std::any_of(inventory.gpus.begin(), inventory.gpus.end(),
                                  [](const auto& g) { return g.vendor == gpu::Vendor::nvidia; });
  LabelInputs in;
  in.inventory = &inventory;
  in.mig_strategy = spec.partitioning.strategy.value_or(api::MIGStrategy::mixed);
  in.sharing = spec.sharing;
  in.device_plugin_config = nvidia ? device_plugin_config_name(in.mig_strategy, spec.sharing) : "";
  in.catalog = &catalog;
  // The store's version of the Node: what the patch memory compares with.
  const std::string seen = node ? node->resource_version : "";
  using Kind = PatchMemory::Kind;
  if (auto p = label_patch(*n, node_labels(in), is_agent_owned_label);
      p && !patch_memory->already_sent(Kind::labels, *p, seen)) {
    patch_node(*p, false);
    patch_memory->sent(Kind::labels, *p, seen);
    spdlog::info("node {}: labels updated", options.node_name);
  }
  if (options.advertise_resources) {
    // Taken out for GPU health: the Unhealthy GPUs are not advertised (not
    // before, so a node held back by maxUnhealthyNodes keeps serving).
    LabelInputs advertised = in;
    backend::Inventory healthy_only;
    std::vector<int> withdrawn;
    if (node_taken_out_for_health(*node_json())) {
      healthy_only = without_unhealthy(inventory, status.gpus, &withdrawn);
      advertised.inventory = &healthy_only;
    }
    if (auto p = capacity_patch(*node_json(), extended_resources(advertised), is_agent_owned_resource);
        p && !patch_memory->already_sent(Kind::capacity, *p, seen)) {
      patch_node(*p, true);
      patch_memory->sent(Kind::capacity, *p, seen);
      std::string gpus;
      for (int i : withdrawn) gpus += (gpus.empty() ? "" : ", ") + std::to_string(i);
      spdlog::info("node {}: advertised resources updated: {}{}", options.node_name, *p,
                   withdrawn.empty() ? "" : " (unhealthy GPUs not advertised: " + gpus + ")");
    }
  }
  if (!nvidia) return std::nullopt;
  const std::string selected =
      "device plugin config " + in.device_plugin_config + " selected (" + std::string(kDevicePluginConfigLabel) + ")";
  if (!options.advertise_resources) {
    if (auto again = check_device_plugin(in)) return again;
  }
  set_op(OperationType::sharing, OperationPhase::succeeded, "Applied", selected);
  return std::nullopt;
}

std::optional<std::chrono::milliseconds> AgentPass::check_device_plugin(const LabelInputs& in) {
  const auto expected = extended_resources(in);
  auto& watch = *plugin_watch;
  if (!capacity_patch(*node_json(), expected, is_agent_owned_resource)) {
    if (!watch.restarted.empty()) spdlog::info("node {}: the device plugin advertises the GPUs again", options.node_name);
    watch = {};
    return std::nullopt;
  }
  const auto t = std::chrono::system_clock::now();
  if (!watch.stale_since) watch.stale_since = t;
  std::vector<const rapidjson::Value*> docs;
  for (const auto& p : pods) docs.push_back(&p->doc);
  const auto found = device_plugin_pods(docs, options.device_plugin_selectors);
  const auto decision = decide_device_plugin_restart(found, *watch.stale_since, t, options.device_plugin_restart_after,
                                                     options.device_plugin_selectors);
  std::string want;
  for (const auto& [name, count] : expected) want += (want.empty() ? "" : ", ") + name + "=" + std::to_string(count);
  if (want.empty()) want = "no GPU resources";
  const std::string stale_text = "the node does not advertise what its GPUs give (" + want + ")";
  std::vector<std::string> names;
  for (const auto& p : decision.restart) {
    try {
      client.remove(kube::ResourceRef{kube::core::pods(), p.ns, p.name, ""}, kube::delete_options(p.uid));
      names.push_back(p.ns + "/" + p.name);
    } catch (const kube::ApiError& e) {
      if (!e.is_not_found() && !e.is_conflict()) throw;
    }
  }
  if (!names.empty()) {
    watch.restarted = join(names, ", ");
    spdlog::warn("node {}: {} {}s after the change; restarted device plugin pod(s) {}", options.node_name, stale_text,
                 options.device_plugin_restart_after.count(), watch.restarted);
  }
  if (watch.restarted.empty()) {
    set_op(OperationType::sharing, OperationPhase::in_progress, "WaitingForDevicePlugin", stale_text + "; " + decision.waiting);
  } else {
    set_op(OperationType::sharing, OperationPhase::in_progress, "DevicePluginRestarted",
           stale_text + "; restarted device plugin pod(s) " + watch.restarted +
               (decision.waiting.empty() ? "" : "; " + decision.waiting));
  }
  return std::chrono::milliseconds(1000);
}

void AgentPass::set_conditions() {
  const api::Time t = now();
  auto cond = [&](const std::string& type, bool ok, const std::string& reason, const std::string& message) {
    api::Condition c;
    c.type = type;
    c.status = ok ? api::ConditionStatus::true_ : api::ConditionStatus::false_;
    c.observed_generation = generation();
    c.last_transition_time = t;
    c.reason = reason;
    c.message = message;
    api::set_condition(status.conditions, c);
  };
  if (!backend_error.empty()) {
    cond("Ready", false, "BackendError", "the GPUs cannot be read: " + backend_error);
    return;
  }
  const NodePlan plan = plan_node(object.spec, inventory, catalog);
  const api::OperationStatus* failed = nullptr;
  const api::OperationStatus* busy = nullptr;
  for (const auto& op : status.operations) {
    if (op.phase == OperationPhase::failed && op.observed_generation == generation() && !failed) failed = &op;
    // The drain stays in progress through the change: name the change.
    if (op.phase == OperationPhase::in_progress && (!busy || busy->type == OperationType::drain)) busy = &op;
  }
  if (failed) {
    cond("Ready", false, failed->reason.empty() ? "OperationFailed" : failed->reason,
         std::string(api::to_string(failed->type)) + " failed: " + failed->message);
  } else if (busy) {
    cond("Ready", false, "Updating", std::string(api::to_string(busy->type)) + ": " + busy->message);
  } else if (plan.disruptive()) {
    cond("Ready", false, "ChangesPending", plan.describe(inventory.driver_version));
  } else {
    cond("Ready", true, "UpToDate", std::to_string(inventory.gpus.size()) + " GPUs match the spec");
  }
  const auto& spec = object.spec;
  if (!spec.driver || inventory.driver_version == spec.driver->version) {
    cond("DriverReady", true, "Loaded", "driver " + inventory.driver_version + " loaded");
  } else {
    cond("DriverReady", false, "VersionMismatch",
         "driver " + inventory.driver_version + " loaded, " + spec.driver->version + " wanted");
  }
  if (!plan.problems.empty()) {
    cond("PartitionReady", false, "Unsatisfiable", plan.problems.front().field + ": " + plan.problems.front().message);
  } else if (plan.partition_changes()) {
    cond("PartitionReady", false, "ChangesPending", plan.describe(""));
  } else {
    cond("PartitionReady", true, "Applied", "the GPUs are partitioned as the spec says");
  }
}

std::optional<std::chrono::milliseconds> AgentPass::judge_health(GpuHealthTracker& health,
                                                                 const TelemetrySnapshot* snapshot) {
  const auto t = std::chrono::system_clock::now();
  const auto verdicts = health.judge(object.spec.health, gpu_identities(status.gpus), snapshot, t);
  apply_verdicts(status.gpus, verdicts);
  std::optional<std::chrono::milliseconds> again;
  for (const auto& [uuid, v] : verdicts) {
    if (!v.next_check) continue;
    // A little after the cause stops counting, so that judgment sees it gone.
    const auto d = std::chrono::ceil<std::chrono::milliseconds>(*v.next_check - t) + std::chrono::milliseconds(100);
    const auto wait = std::max(d, std::chrono::milliseconds(100));
    again = again ? std::min(*again, wait) : wait;
  }
  return again;
}

void AgentPass::set_health_condition() {
  api::set_condition(status.conditions,
                     healthy_condition(status.gpus, object.spec.health.has_value(), generation(), now()));
}

void AgentPass::write_status() {
  status.observed_generation = generation();
  const auto heartbeat_due = !previous.last_heartbeat_time ||
                             now().time() - previous.last_heartbeat_time->time() >= options.status_heartbeat;
  if (same_report(previous, status) && !heartbeat_due) return;
  status.last_heartbeat_time = now();
  api::GPUNode out = object;
  out.status = status;
  try {
    auto answer = client.update(gpunodes_ref().with_name(options.node_name).with_subresource("status"), api::to_json(out));
    object.metadata.resource_version = kube::string_at(answer, {"metadata", "resourceVersion"});
    previous = status;
  } catch (const kube::ApiError& e) {
    if (!e.is_conflict()) throw;
    spdlog::debug("GPUNode {} changed while writing its status; the next pass writes it", options.node_name);
  }
}

}  // namespace gpupool::node
