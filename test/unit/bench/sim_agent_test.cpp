// The scale benchmark's simulated node agent (tools/bench/scale/sim_agent.h):
// its steps through a driver change, and the status fields the controller
// reads (observedGeneration, DriverReady/PartitionReady of the generation,
// operations), the provisioned start, MIG layouts, an install outliving its
// permission.
#include "scale/sim_agent.h"

#include <gtest/gtest.h>

#include "gpupool/api/conditions.h"

namespace gpupool::bench {
namespace {

using namespace std::chrono_literals;
using api::ConditionStatus;
using api::OperationPhase;
using api::OperationType;

SimHardware h100() {
  SimHardware h;
  h.catalog_id = "h100-sxm5-80gb";
  h.model = "NVIDIA H100 80GB HBM3";
  h.memory_mib = 81559;
  h.mig_capable = true;
  h.gpus = 8;
  return h;
}

SimObserved spec(std::int64_t generation, std::optional<std::string> driver, bool allowed) {
  SimObserved o;
  o.gpunode = true;
  o.pooled = true;
  o.generation = generation;
  o.driver = std::move(driver);
  o.disruption_allowed = allowed;
  o.node = true;
  return o;
}

const api::Condition& cond(const api::GPUNodeStatus& s, const char* type) {
  const auto* c = api::find_condition(s.conditions, type);
  EXPECT_NE(c, nullptr) << type;
  static const api::Condition none;
  return c ? *c : none;
}

// What the controller's gpunode_state reads: up to date for this generation.
bool up_to_date(const api::GPUNodeStatus& s, std::int64_t generation) {
  auto holds = [&](const char* type) {
    const auto* c = api::find_condition(s.conditions, type);
    return c && c->observed_generation == generation && c->status == ConditionStatus::true_;
  };
  return s.observed_generation == generation && holds("DriverReady") && holds("PartitionReady");
}

TEST(SimAgent, ADriverChangeStepByStep) {
  const auto t0 = std::chrono::system_clock::time_point{} + 1000h;
  SimAgent a("n1", h100(), 2s);

  // Provisioned as the spec asks: nothing to do, up to date.
  auto o = spec(1, "570.133.20", false);
  a.observe(o);
  EXPECT_EQ(a.next(o, t0), SimStep::report);
  a.done(SimStep::report, o, t0);
  auto s = a.status(o, t0);
  EXPECT_TRUE(up_to_date(s, 1));
  EXPECT_EQ(s.driver_version, "570.133.20");
  EXPECT_EQ(s.gpu_count, 8);
  ASSERT_EQ(s.gpus.size(), 8u);
  EXPECT_EQ(s.gpus[3].catalog_id, "h100-sxm5-80gb");
  EXPECT_EQ(s.gpus[3].partition.mig_mode, api::MIGMode::disabled);
  EXPECT_EQ(cond(s, "Ready").status, ConditionStatus::true_);
  EXPECT_TRUE(s.operations.empty());

  // A new driver, no permission yet: waits, says so.
  o = spec(2, "580.82.07", false);
  a.observe(o);
  EXPECT_EQ(a.next(o, t0), SimStep::report);
  a.done(SimStep::report, o, t0);
  s = a.status(o, t0);
  EXPECT_FALSE(up_to_date(s, 2));
  EXPECT_EQ(cond(s, "DriverReady").reason, "VersionMismatch");
  EXPECT_EQ(cond(s, "Ready").reason, "ChangesPending");
  ASSERT_NE(api::find_operation(s.operations, OperationType::driver), nullptr);
  EXPECT_EQ(api::find_operation(s.operations, OperationType::driver)->reason, "WaitingForDisruption");

  // Permission: cordon, install, wait, loaded, uncordon, report.
  o = spec(3, "580.82.07", true);
  a.observe(o);
  EXPECT_EQ(a.next(o, t0), SimStep::cordon);
  o.unschedulable = true, o.pre_drain = "false";
  a.done(SimStep::cordon, o, t0);
  EXPECT_EQ(api::find_operation(a.status(o, t0).operations, OperationType::drain)->phase, OperationPhase::in_progress);
  EXPECT_EQ(a.next(o, t0), SimStep::start_install);
  a.done(SimStep::start_install, o, t0);
  EXPECT_EQ(a.install_done_at(), t0 + 2s);
  s = a.status(o, t0);
  EXPECT_EQ(cond(s, "Ready").reason, "Updating");
  EXPECT_EQ(api::find_operation(s.operations, OperationType::driver)->phase, OperationPhase::in_progress);
  EXPECT_EQ(api::find_operation(s.operations, OperationType::drain)->phase, OperationPhase::in_progress)
      << "the drain holds the node until the uncordon";
  EXPECT_EQ(a.next(o, t0 + 1s), SimStep::wait_install);
  EXPECT_EQ(a.next(o, t0 + 2s), SimStep::finish_install);
  a.done(SimStep::finish_install, o, t0 + 2s);
  EXPECT_EQ(a.driver(), "580.82.07");
  EXPECT_EQ(a.next(o, t0 + 2s), SimStep::uncordon);
  {
    // A Node read from before its own cordon: it still uncordons (its memory
    // says it holds the cordon), and never reports done while the cordon is on.
    SimObserved stale = o;
    stale.unschedulable = false, stale.pre_drain.reset();
    EXPECT_EQ(a.next(stale, t0 + 2s), SimStep::uncordon);
    EXPECT_EQ(api::find_operation(a.status(stale, t0 + 2s).operations, OperationType::drain)->phase,
              OperationPhase::in_progress);
  }
  o.unschedulable = false, o.pre_drain.reset();
  a.done(SimStep::uncordon, o, t0 + 2s);
  EXPECT_EQ(api::find_operation(a.status(o, t0 + 2s).operations, OperationType::drain)->phase, OperationPhase::succeeded);
  EXPECT_EQ(a.next(o, t0 + 2s), SimStep::report);
  a.done(SimStep::report, o, t0 + 2s);
  s = a.status(o, t0 + 2s);
  EXPECT_TRUE(up_to_date(s, 3));
  EXPECT_EQ(api::find_operation(s.operations, OperationType::driver)->phase, OperationPhase::succeeded);
  EXPECT_EQ(cond(s, "Ready").reason, "UpToDate");
  // The transition times say when it changed.
  EXPECT_EQ(cond(s, "DriverReady").last_transition_time.time(),
            std::chrono::time_point_cast<std::chrono::microseconds>(t0 + 2s));

  // The permission withdrawn (a new generation): reported again for it, nothing else.
  o = spec(4, "580.82.07", false);
  a.observe(o);
  EXPECT_EQ(a.next(o, t0 + 3s), SimStep::report);
  EXPECT_TRUE(up_to_date(a.status(o, t0 + 3s), 4));
}

TEST(SimAgent, StepsForWhatThePassRead) {
  const auto t0 = std::chrono::system_clock::time_point{} + 1000h;
  struct Row {
    const char* what;
    SimObserved o;
    SimStep want;
  };
  auto with = [](SimObserved o, auto f) {
    f(o);
    return o;
  };
  const std::vector<Row> rows = {
      {"no GPUNode yet", SimObserved{}, SimStep::create_gpunode},
      {"a change without its Node: nothing to cordon yet",
       with(spec(2, "580.82.07", true), [](SimObserved& o) { o.node = false; }), SimStep::report},
      {"an administrator's cordon: still cordoned by the agent (recording it)",
       with(spec(2, "580.82.07", true), [](SimObserved& o) { o.unschedulable = true; }), SimStep::cordon},
      {"annotated but not unschedulable (someone uncordoned): cordon again",
       with(spec(2, "580.82.07", true), [](SimObserved& o) { o.pre_drain = "false"; }), SimStep::cordon},
      {"nothing to change but a drain left over: uncordon",
       with(spec(2, "570.133.20", false), [](SimObserved& o) { o.pre_drain = "false", o.unschedulable = true; }),
       SimStep::uncordon},
  };
  for (const auto& r : rows) {
    SimAgent a("n1", h100(), 2s);
    a.observe(spec(1, "570.133.20", false));  // provisioned with 570
    a.observe(r.o);
    EXPECT_EQ(a.next(r.o, t0), r.want) << r.what;
  }
}

TEST(SimAgent, AnInstallRunsToItsEndWhateverTheSpecSaysMeanwhile) {
  const auto t0 = std::chrono::system_clock::time_point{} + 1000h;
  SimAgent a("n1", h100(), 2s);
  auto o = spec(1, "570.133.20", false);
  a.observe(o);
  o = spec(2, "580.82.07", true);
  o.unschedulable = true, o.pre_drain = "false";
  a.done(SimStep::start_install, o, t0);
  o = spec(3, "580.82.07", false);  // withdrawn
  o.unschedulable = true, o.pre_drain = "false";
  EXPECT_EQ(a.next(o, t0 + 1s), SimStep::wait_install);
  EXPECT_EQ(a.next(o, t0 + 2s), SimStep::finish_install);
}

TEST(SimAgent, ProvisionedStartAndMigLayouts) {
  const auto t0 = std::chrono::system_clock::time_point{} + 1000h;
  SimHardware a100 = h100();
  a100.catalog_id = "a100-sxm4-80gb";
  a100.gpus = 2;
  SimAgent a("n1", a100, 2s);
  // No layout asked yet (the controller waits for the GPUs): MIG off.
  auto o = spec(1, "570.133.20", false);
  a.observe(o);
  EXPECT_EQ(a.status(o, t0).gpus[0].partition.mig_mode, api::MIGMode::disabled);
  // The first layout is taken as applied.
  const api::GPUMIGLayout seven{0, true, std::vector<api::MIGInstance>(7, api::MIGInstance{"1g.10gb", std::nullopt})};
  o = spec(2, "570.133.20", false);
  o.mig = {seven, {1, false, {}}};
  a.observe(o);
  EXPECT_EQ(a.next(o, t0), SimStep::report);
  auto s = a.status(o, t0);
  EXPECT_TRUE(up_to_date(s, 2));
  EXPECT_EQ(s.gpus[0].partition.mig_mode, api::MIGMode::enabled);
  EXPECT_EQ(s.gpus[0].partition.instances.size(), 7u);
  EXPECT_EQ(s.gpus[0].partition.instances[6].gpu_instance_id, 7);
  EXPECT_EQ(s.gpus[1].partition.mig_mode, api::MIGMode::disabled);
  // A later layout change is a disruption like a driver.
  o = spec(3, "570.133.20", false);
  o.mig = {seven, seven};
  a.observe(o);
  EXPECT_TRUE(a.needs_change(o));
  EXPECT_EQ(cond(a.status(o, t0), "PartitionReady").status, ConditionStatus::false_);
}

TEST(SimAgent, NoDriverAskedTakesTheVendorsDefaultThenRollsToTheOneAsked) {
  SimHardware mi300x;
  mi300x.catalog_id = "mi300x-192gb";
  mi300x.vendor = api::GPUVendor::amd;
  SimAgent a("n1", mi300x, 2s);
  auto o = spec(1, std::nullopt, false);
  a.observe(o);
  EXPECT_EQ(a.driver(), default_driver(api::GPUVendor::amd));
  EXPECT_FALSE(a.needs_change(o));
  o = spec(2, "6.14.14", false);
  a.observe(o);
  EXPECT_TRUE(a.needs_change(o));
  EXPECT_EQ(a.status(o, {}).gpus[0].partition.mig_mode, api::MIGMode::not_supported);
}

TEST(SimAgent, ProvisionedByTheFirstSpecTheControllerWrote) {
  // The GPUNode the agent created (spec.nodeName only): nothing provisioned yet.
  SimAgent a("n1", h100(), 2s);
  auto o = spec(1, std::nullopt, false);
  o.pooled = false;
  a.observe(o);
  EXPECT_EQ(a.driver(), std::nullopt);
  EXPECT_EQ(a.status(o, {}).driver_version, default_driver(api::GPUVendor::nvidia));
  // The controller's spec: its driver is the one loaded, no disruption.
  o = spec(2, "570.133.20", false);
  a.observe(o);
  EXPECT_EQ(a.driver(), "570.133.20");
  EXPECT_FALSE(a.needs_change(o));
  EXPECT_TRUE(up_to_date(a.status(o, {}), 2));
}

}  // namespace
}  // namespace gpupool::bench
