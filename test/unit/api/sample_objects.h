// Hand-built gpupool.io objects for the API tests: one of each kind with every
// field set (non-default values where there is a choice), and minimal ones.
#pragma once

#include <string>
#include <string_view>

#include "gpupool/api/kinds.h"

namespace gpupool::api::testing {

inline Quantity q(std::string_view text) { return *parse_quantity(text).value; }
inline QuantityValue qs(std::string_view text) { return {q(text), false}; }
inline QuantityValue qn(std::string_view text) { return {q(text), true}; }
inline Time t(std::string_view text) { return *Time::parse(text).value; }
inline Duration d(std::string_view text) { return Duration::literal(text); }

inline ObjectMeta full_meta(std::string name, std::string ns = "") {
  ObjectMeta m;
  m.name = std::move(name);
  m.namespace_ = std::move(ns);
  m.labels = {{"team", "ml"}, {"gpupool.io/tier", "gold"}};
  m.annotations = {{"note", "hand-built"}};
  m.generation = 7;
  m.resource_version = "12345";
  m.uid = "0b1c2d3e-0000-4000-8000-000000000001";
  m.creation_timestamp = t("2024-05-01T12:00:00Z");
  m.deletion_timestamp = t("2024-05-02T08:30:00.5+02:00");
  m.finalizers = {"gpupool.io/cleanup"};
  return m;
}

inline Condition condition(std::string type) {
  return Condition{std::move(type), ConditionStatus::false_, 6, t("2024-05-01T12:01:02Z"), "NotYet", "waiting"};
}

inline UpgradeStrategy full_upgrade() {
  UpgradeStrategy u;
  u.max_unavailable = "25%";
  u.failure_budget = 0;
  u.drain.timeout = d("1h30m");
  u.drain.skip_pod_label = "";
  u.drain.delete_empty_dir_data = true;
  u.drain.force = true;
  u.maintenance_windows = {
      MaintenanceWindow{{Weekday::sat, Weekday::sun}, "22:00", d("4h"), "Europe/Berlin"},
      MaintenanceWindow{{Weekday::mon}, "02:30", d("90m"), "UTC"},
  };
  return u;
}

inline DriverSpec full_driver(bool with_upgrade) {
  DriverSpec drv;
  drv.version = "570.133.20";
  drv.installer.kind = InstallerKind::package;
  drv.installer.image = "nvcr.io/nvidia/driver:570.133.20";
  drv.installer.parameters = {{"NVIDIA_DRIVER_CAPABILITIES", "all"}, {"x", ""}};
  if (with_upgrade) drv.upgrade_strategy = full_upgrade();
  return drv;
}

inline Monitoring full_monitoring() {
  Monitoring m;
  m.enabled = false;
  m.scrape_interval = d("15s");
  m.alerts.enabled = false;
  m.dashboard.enabled = true;
  return m;
}

inline GPUPool full_gpupool() {
  GPUPool p;
  p.metadata = full_meta("training");
  auto& s = p.spec;
  s.node_selector.match_labels = {{"gpu", "a100"}};
  s.node_selector.match_expressions = {
      LabelSelectorRequirement{"zone", SelectorOperator::in, {"a", "b"}},
      LabelSelectorRequirement{"spot", SelectorOperator::does_not_exist, {}},
  };
  s.priority = 500;
  s.vendor = Vendor::nvidia;
  s.policy_ref = LocalObjectReference{"default-policy"};
  s.paused = true;
  s.driver = full_driver(true);
  Partitioning part;
  MIGPartitioning mig;
  mig.strategy = MIGStrategy::mixed;
  mig.layout = "all-balanced";
  mig.devices = {MIGDeviceLayout{{0, 1}, {{"3g.40gb", 2}}}, MIGDeviceLayout{{}, {{"1g.10gb", 7}, {"2g.20gb", 0}}}};
  part.nvidia = mig;
  part.amd = AMDPartitioning{AMDComputePartition::cpx, AMDMemoryPartition::nps4};
  s.partitioning = part;
  s.sharing.mode = SharingMode::time_slicing;
  s.sharing.time_slicing = TimeSlicing{4, true};
  s.sharing.mps = MPS{8, 50};
  s.monitoring = full_monitoring();
  s.node_labels = {{"gpupool.io/pool", "training"}};
  s.node_taints = {Taint{"gpu", "true", TaintEffect::no_schedule}, Taint{"dedicated", "", TaintEffect::no_execute}};

  GPUPoolStatus st;
  st.observed_generation = 7;
  st.conditions = {condition("Ready"), condition("Progressing")};
  st.nodes = NodeCounts{10, 8, 1, 1, 2};
  st.capacity = {{"nvidia.com/gpu", qn("32")}, {"nvidia.com/mig-1g.10gb", qs("14")}};
  st.granted = {{"nvidia.com/gpu", qs("1.5k")}, {"amd.com/gpu", qn("-3")}};
  st.rollout = RolloutStatus{"570.133.20", 3, 6, 1, true, "node n1 failed"};
  p.status = st;
  return p;
}

inline GPUPolicy full_gpupolicy() {
  GPUPolicy p;
  p.metadata = full_meta("default-policy");
  QuotaRules q;
  q.namespace_selector = LabelSelector{{{"tenant", "yes"}}, {{"env", SelectorOperator::not_in, {"dev"}}}};
  q.namespaces = {"team-a", "team-b"};
  q.approval = ApprovalMode::manual;
  q.max_per_tenant = {{"nvidia.com/gpu", qn("8")}, {"amd.com/gpu", qs("4")}};
  q.borrowing = Borrowing{true, 50};
  q.fair_share = FairShare{0, {{"team-a", 3}, {"team-b", 1}}};
  q.reclaim_grace_period = d("0s");
  q.reserve = {{"nvidia.com/gpu", qn("2")}, {"gpupool.io/gpu", qs("1.5")}};
  q.partial_grants = false;
  q.charge_basis = ChargeBasis::memory;
  q.on_capacity_loss = GuaranteeLossAction::evict;
  q.expiry = Expiry{GuaranteeLossAction::evict, d("0s")};
  q.device_classes = {{"gpu.nvidia.com", "nvidia.com/gpu"}, {"mig-1g.10gb.nvidia.com", "gpupool.io/gpu"}};
  p.spec.quota = q;
  HealthRules h;
  h.xids = {XIDRule{{48, 79}, HealthAction::cordon}, XIDRule{{13}, HealthAction::none}};
  h.temperature = TemperatureRule{85, 95, HealthAction::none};
  h.ecc = ECCRule{0, 0, HealthAction::taint};
  h.recovery_period = d("1h");
  h.max_unhealthy_nodes = 2;
  p.spec.health = h;
  p.spec.upgrade = full_upgrade();
  GPUPolicyStatus st;
  st.observed_generation = 3;
  st.conditions = {condition("Ready")};
  st.pools = {"training", "inference"};
  p.status = st;
  return p;
}

inline TenantQuota full_tenantquota() {
  TenantQuota tq;
  tq.metadata = full_meta("team-a-gpus", "team-a");
  tq.spec.pool_ref = LocalObjectReference{"training"};
  tq.spec.resources = {{"nvidia.com/gpu", qn("4")}, {"nvidia.com/mig-1g.10gb", qs("2")}};
  tq.spec.borrowing_limit = {{"nvidia.com/gpu", qs("2")}};
  tq.spec.priority = 10;
  tq.spec.namespaces = {"team-a", "team-a-ci"};
  tq.spec.expires_at = t("2025-01-01T00:00:00Z");
  TenantQuotaStatus st;
  st.observed_generation = 2;
  st.phase = QuotaPhase::partially_granted;
  st.granted = {{"nvidia.com/gpu", qn("3")}};
  st.used = {{"nvidia.com/gpu", qn("0")}};
  st.borrowed = {{"nvidia.com/gpu", qs("1")}};
  st.waiting = {{"gpupool.io/gpu", qs("500m")}};
  st.approved = ApprovalRecord{{{"nvidia.com/gpu", qn("4")}, {"gpupool.io/gpu", qs("2.5")}},
                               {{"nvidia.com/gpu", qs("2")}},
                               6,
                               t("2024-05-01T12:00:00Z")};
  st.conditions = {condition("Granted")};
  tq.status = st;
  return tq;
}

inline GPUNode full_gpunode() {
  GPUNode n;
  n.metadata = full_meta("node-1");
  auto& s = n.spec;
  s.node_name = "node-1";
  s.pool = "training";
  s.driver = full_driver(false);
  s.partitioning.mig = {
      GPUMIGLayout{0, true, {MIGInstance{"3g.40gb", 0}, MIGInstance{"1g.10gb", std::nullopt}}},
      GPUMIGLayout{1, false, {}},
  };
  s.partitioning.amd = AMDPartitioning{AMDComputePartition::spx, std::nullopt};
  s.sharing.mode = SharingMode::mps;
  s.sharing.mps = MPS{4, std::nullopt};
  s.monitoring = full_monitoring();
  s.disruption_allowed = true;
  s.partitioning.strategy = MIGStrategy::mixed;
  s.drain.force = true;
  s.cordon_on_failure = false;
  HealthRules h;
  h.xids = {XIDRule{{79}, HealthAction::taint}};
  h.temperature = TemperatureRule{80, 90, HealthAction::cordon};
  h.recovery_period = d("30m");
  h.max_unhealthy_nodes = "25%";
  s.health = h;

  GPUNodeStatus st;
  st.observed_generation = 5;
  st.conditions = {condition("Ready"), condition("DriverReady")};
  st.gpu_count = 2;
  GPUStatus g;
  g.index = 0;
  g.uuid = "GPU-1234";
  g.model = "NVIDIA A100-SXM4-80GB";
  g.catalog_id = "a100-sxm4-80gb";
  g.vendor = GPUVendor::nvidia;
  g.memory_mib = 81920;
  g.pci_bus_id = "00000000:3B:00.0";
  g.partition.capable = true;
  g.partition.mig_mode = MIGMode::enabled;
  g.partition.instances = {MIGInstanceStatus{"3g.40gb", 0, 1, "MIG-abc", 40192}, MIGInstanceStatus{"1g.10gb", 4, 2, "MIG-def", 0}};
  g.partition.compute_partition = AMDComputePartition::dpx;
  g.partition.memory_partition = AMDMemoryPartition::nps2;
  g.health = GPUHealth::degraded;
  g.health_reasons = {"XID 48", "ECC"};
  GPUStatus g2;
  g2.index = 1;
  st.gpus = {g, g2};
  st.driver_version = "570.133.20";
  st.cuda_version = "12.8";
  st.operations = {OperationStatus{OperationType::partition, OperationPhase::in_progress, 5, "Configuring", "applying",
                                   t("2024-05-01T12:00:00Z")},
                   OperationStatus{OperationType::drain, OperationPhase::failed, 0, "", "", std::nullopt}};
  st.interconnect = {GPULink{0, 1, GPULinkType::nvlink, 12}};
  st.last_heartbeat_time = t("2024-05-01T12:05:00Z");
  n.status = st;
  return n;
}

inline GPUPool minimal_gpupool() {
  GPUPool p;
  p.metadata.name = "minimal";
  return p;
}

inline GPUPolicy minimal_gpupolicy() {
  GPUPolicy p;
  p.metadata.name = "minimal";
  return p;
}

inline TenantQuota minimal_tenantquota() {
  TenantQuota tq;
  tq.metadata.name = "minimal";
  tq.metadata.namespace_ = "team-a";
  tq.spec.pool_ref.name = "training";
  tq.spec.resources = {{"nvidia.com/gpu", qn("1")}};
  return tq;
}

inline GPUNode minimal_gpunode() {
  GPUNode n;
  n.metadata.name = "node-1";
  n.spec.node_name = "node-1";
  return n;
}

}  // namespace gpupool::api::testing
