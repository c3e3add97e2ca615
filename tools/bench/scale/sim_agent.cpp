#include "sim_agent.h"

#include "gpupool/api/conditions.h"

namespace gpupool::bench {
namespace {

using api::OperationPhase;
using api::OperationType;

api::Time time_of(SimAgent::TimePoint t) { return api::Time(std::chrono::time_point_cast<std::chrono::microseconds>(t)); }

}  // namespace

std::string default_driver(api::GPUVendor vendor) { return vendor == api::GPUVendor::amd ? "6.12.12" : "550.54.15"; }

SimAgent::SimAgent(std::string node, SimHardware hardware, std::chrono::milliseconds install_time)
    : node_(std::move(node)), hardware_(std::move(hardware)), install_time_(install_time) {}

void SimAgent::observe(const SimObserved& o) {
  if (!o.gpunode || !o.pooled) return;
  if (!driver_) driver_ = o.driver.value_or(default_driver(hardware_.vendor));
  if (!mig_ && !o.mig.empty()) mig_ = o.mig;
}

bool SimAgent::driver_differs(const SimObserved& o) const { return o.driver && driver_ && *o.driver != *driver_; }

bool SimAgent::mig_differs(const SimObserved& o) const { return mig_ && o.mig != *mig_; }

bool SimAgent::needs_change(const SimObserved& o) const { return driver_differs(o) || mig_differs(o); }

std::optional<SimAgent::TimePoint> SimAgent::install_done_at() const {
  if (!install_) return std::nullopt;
  return install_->done_at;
}

SimStep SimAgent::next(const SimObserved& o, TimePoint now) const {
  if (!o.gpunode) return SimStep::create_gpunode;
  // An install, once started, runs to its end whatever the spec says meanwhile (as the real one).
  if (install_) return now < install_->done_at ? SimStep::wait_install : SimStep::finish_install;
  // Its own memory too: the Node read may be older than its cordon.
  if (!needs_change(o)) return o.pre_drain || holds_cordon_ ? SimStep::uncordon : SimStep::report;
  if (!o.disruption_allowed) return SimStep::report;
  if (!o.node) return SimStep::report;  // nothing to cordon yet
  if (!o.pre_drain || !o.unschedulable) return SimStep::cordon;
  return SimStep::start_install;
}

void SimAgent::set_op(OperationType type, OperationPhase phase, const std::string& reason, const std::string& message,
                      std::int64_t generation, TimePoint now) {
  api::OperationStatus op;
  op.type = type;
  op.phase = phase;
  op.observed_generation = generation;
  op.reason = reason;
  op.message = message;
  op.last_transition_time = time_of(now);
  api::set_operation(operations_, op);
}

void SimAgent::done(SimStep step, const SimObserved& o, TimePoint now) {
  const auto g = o.generation;
  switch (step) {
    case SimStep::create_gpunode:
    case SimStep::wait_install:
      return;
    case SimStep::uncordon:
      holds_cordon_ = false;
      set_op(OperationType::drain, OperationPhase::succeeded, "Uncordoned", "the node is schedulable again", g, now);
      return;
    case SimStep::cordon:
      holds_cordon_ = true;
      set_op(OperationType::drain, OperationPhase::in_progress, "Draining", "cordoned; evicting GPU pods", g, now);
      return;
    case SimStep::start_install: {
      set_op(OperationType::drain, OperationPhase::in_progress, "Drained",
             "no GPU pod or GPU process left on the node (simulated: none evicted); it stays cordoned until the "
             "change is done",
             g, now);
      Install in{driver_.value_or(""), std::nullopt, now + install_time_};
      if (driver_differs(o)) {
        in.driver = *o.driver;
        set_op(OperationType::driver, OperationPhase::in_progress, "Installing",
               "installing driver " + *o.driver + " (simulated); was " + *driver_, g, now);
      }
      if (mig_differs(o)) {
        in.mig = o.mig;
        set_op(OperationType::partition, OperationPhase::in_progress, "Configuring", "applying the MIG layout (simulated)",
               g, now);
      }
      install_ = std::move(in);
      return;
    }
    case SimStep::finish_install: {
      const bool new_driver = install_->driver != driver_.value_or("");
      driver_ = install_->driver;
      if (new_driver) {
        set_op(OperationType::driver, OperationPhase::succeeded, "Installed",
               "driver " + *driver_ + " loaded; " + std::to_string(hardware_.gpus) + " GPUs answer", g, now);
      }
      if (install_->mig) {
        mig_ = install_->mig;
        set_op(OperationType::partition, OperationPhase::succeeded, "Applied", "applied the MIG layout", g, now);
      }
      install_.reset();
      return;
    }
    case SimStep::report:
      if (needs_change(o)) {
        const std::string msg = "needs a drain to carry out; waiting for spec.disruptionAllowed";
        if (driver_differs(o)) set_op(OperationType::driver, OperationPhase::pending, "WaitingForDisruption", msg, g, now);
        if (mig_differs(o)) set_op(OperationType::partition, OperationPhase::pending, "WaitingForDisruption", msg, g, now);
      } else {
        for (auto t : {OperationType::driver, OperationType::partition, OperationType::drain}) {
          if (t == OperationType::drain && holds_cordon_) continue;
          const auto* op = api::find_operation(operations_, t);
          if (op && op->phase != OperationPhase::succeeded) {
            set_op(t, OperationPhase::succeeded, "UpToDate", "the node matches the spec", g, now);
          }
        }
      }
      return;
  }
}

api::GPUNodeStatus SimAgent::status(const SimObserved& o, TimePoint now) {
  const auto g = o.generation;
  auto cond = [&](const char* type, bool ok, const std::string& reason, const std::string& message) {
    api::Condition c;
    c.type = type;
    c.status = ok ? api::ConditionStatus::true_ : api::ConditionStatus::false_;
    c.observed_generation = g;
    c.last_transition_time = time_of(now);
    c.reason = reason;
    c.message = message;
    api::set_condition(conditions_, c);
  };
  bool busy = false;
  for (const auto& op : operations_) busy = busy || op.phase == OperationPhase::in_progress;
  const std::string loaded = driver_.value_or(default_driver(hardware_.vendor));
  if (busy) {
    cond("Ready", false, "Updating", "a change is in progress");
  } else if (needs_change(o)) {
    cond("Ready", false, "ChangesPending", "waiting for spec.disruptionAllowed");
  } else {
    cond("Ready", true, "UpToDate", std::to_string(hardware_.gpus) + " GPUs match the spec");
  }
  if (!driver_differs(o)) {
    cond("DriverReady", true, "Loaded", "driver " + loaded + " loaded");
  } else {
    cond("DriverReady", false, "VersionMismatch", "driver " + loaded + " loaded, " + *o.driver + " wanted");
  }
  if (!mig_differs(o)) {
    cond("PartitionReady", true, "Applied", "the GPUs are partitioned as the spec says");
  } else {
    cond("PartitionReady", false, "ChangesPending", "the MIG layout differs from the spec");
  }
  cond("Healthy", true, "NoHealthRules", "no health rules (spec.health unset)");

  api::GPUNodeStatus s;
  s.observed_generation = g;
  s.conditions = conditions_;
  s.gpu_count = hardware_.gpus;
  s.driver_version = loaded;
  s.operations = operations_;
  for (int i = 0; i < hardware_.gpus; ++i) {
    api::GPUStatus gpu;
    gpu.index = i;
    gpu.uuid = "GPU-" + node_ + "-" + std::to_string(i);
    gpu.model = hardware_.model;
    gpu.catalog_id = hardware_.catalog_id;
    gpu.vendor = hardware_.vendor;
    gpu.memory_mib = hardware_.memory_mib;
    gpu.partition.capable = hardware_.mig_capable;
    gpu.partition.mig_mode = hardware_.mig_capable ? api::MIGMode::disabled : api::MIGMode::not_supported;
    if (mig_) {
      for (const auto& layout : *mig_) {
        if (layout.index != i || !layout.enabled) continue;
        gpu.partition.mig_mode = api::MIGMode::enabled;
        std::int32_t id = 1;
        for (const auto& instance : layout.instances) {
          api::MIGInstanceStatus m;
          m.profile = instance.profile;
          m.placement = instance.placement.value_or(id - 1);
          m.gpu_instance_id = id;
          m.uuid = "MIG-" + gpu.uuid + "-" + std::to_string(id);
          ++id;
          gpu.partition.instances.push_back(std::move(m));
        }
      }
    }
    gpu.health = api::GPUHealth::healthy;
    s.gpus.push_back(std::move(gpu));
  }
  s.last_heartbeat_time = time_of(now);
  return s;
}

}  // namespace gpupool::bench
