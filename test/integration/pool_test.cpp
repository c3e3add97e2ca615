// The GPUPool controller end to end: the real control plane, kwok nodes, one
// simulated gpupool-agent per node and the gpupool-controller process.
#include <gtest/gtest.h>

#include <algorithm>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <mutex>
#include <set>
#include <thread>

#include "gpupool/kube/client.h"
#include "gpupool/kube/errors.h"
#include "gpupool/testenv/process.h"
#include "support/cluster_fixture.h"
#include "support/fleet_fixture.h"
#include "support/kube_test_helpers.h"
#include "support/recorders.h"

namespace gpupool::test {
namespace {

using namespace std::chrono_literals;
namespace fs = std::filesystem;


class PoolTest : public FleetTest {};

TEST_F(PoolTest, ApplyingAPoolBringsEveryMemberToTheDriverAndLayoutAndReportsCapacity) {
  const auto names = fleet(0, 3, {{"pool-test", "converge"}});
  ReadyRecorder ready(*client_, "converge");
  start_controller();
  apply_pool(pool_yaml("converge", "pool-test: converge",
                       "  priority: 10\n"
                       "  driver:\n    version: \"550.90.07\"\n    installer: {kind: container, image: nvcr.io/nvidia/driver:550.90.07}\n"
                       "    upgradeStrategy: {maxUnavailable: 1}\n"
                       "  partitioning:\n    nvidia: {strategy: mixed, layout: all-3g.40gb}\n"
                       "  nodeLabels: {team: research}\n"
                       "  nodeTaints: [{key: gpupool.io/dedicated, value: research, effect: NoSchedule}]\n"));
  // preinstalled cannot install: the simulated backend installs any kind itself.
  // Capacity comes from the Nodes' status, which the agents' device plugin
  // updates after their GPUNode reports the layout applied: it may trail
  // Ready by a pass.
  ASSERT_TRUE(wait_pool("converge", 180s, [](const rapidjson::Value& p) {
    return condition(p, "Ready") == "True" && str(p, {"status", "capacity", "nvidia.com/mig-3g.40gb"}) == "12";
  }, "the pool Ready with every member's capacity"));
  auto p = get(kPools, "converge");
  EXPECT_EQ(p["status"]["nodes"]["total"].GetInt(), 3);
  EXPECT_EQ(p["status"]["nodes"]["ready"].GetInt(), 3);
  EXPECT_EQ(str(p, {"status", "capacity", "nvidia.com/mig-3g.40gb"}), "12");  // 3 nodes x 2 GPUs x 2
  EXPECT_EQ(condition(p, "Progressing", "reason"), "Complete");
  EXPECT_EQ(condition(p, "Conflict"), "False");
  EXPECT_EQ(p["status"]["rollout"]["updated"].GetInt(), 3);
  for (const auto& n : names) {
    auto g = get(kGpuNodes, n);
    EXPECT_EQ(str(g, {"spec", "pool"}), "converge");
    EXPECT_EQ(str(g, {"status", "driverVersion"}), "550.90.07");
    EXPECT_FALSE(flag(g, {"spec", "disruptionAllowed"})) << "permission withdrawn once done";
    auto node = get(kNodes, n);
    EXPECT_EQ(label(node, "gpupool.io/pool"), "converge");
    EXPECT_EQ(label(node, "team"), "research");
    const auto taints = taint_keys(node);
    EXPECT_NE(std::find(taints.begin(), taints.end(), "gpupool.io/dedicated=research"), taints.end());
    EXPECT_FALSE(flag(node, {"spec", "unschedulable"}));
  }
  // Withdrawing a done node's permission bumps its generation; its report of
  // the one before still holds (the annotation says which), so the pool
  // stays Ready while the agents report the new one.
  for (const auto& n : names) {
    wait_for(60s, [&] {
      auto g = get(kGpuNodes, n);
      return at(g, {"status", "observedGeneration"}) && at(g, {"metadata", "generation"}) &&
             g["status"]["observedGeneration"].GetInt64() == g["metadata"]["generation"].GetInt64();
    }, "agent of " + n + " reported its latest generation");
    auto g = get(kGpuNodes, n);
    EXPECT_EQ(str(g, {"metadata", "annotations", "gpupool.io/settled-generation"}),
              std::to_string(g["metadata"]["generation"].GetInt64() - 1)) << n;
  }
  p = get(kPools, "converge");
  EXPECT_EQ(condition(p, "Ready"), "True");
  const auto went = ready.seen();
  const auto first_true = std::find(went.begin(), went.end(), "True");
  EXPECT_EQ(std::find(first_true, went.end(), "False"), went.end()) << "Ready went back to False once True";
  // The device plugin's ConfigMap holds the config the agents select.
  auto cm = client_->get(kube::ResourceRef{kube::core::configmaps(), "gpupool-system", "nvidia-device-plugin-configs", ""});
  EXPECT_NE(str(cm, {"data", "gpupool-mixed-exclusive"}).find("migStrategy: mixed"), std::string::npos);
  EXPECT_EQ(label(get(kNodes, names[0]), "nvidia.com/device-plugin.config"), "gpupool-mixed-exclusive");
  // kube-scheduler places a pod on the new MIG devices.
  const std::string pod = R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"mig-user"},"spec":{"tolerations":[{"operator":"Exists"}],)"
                          R"("nodeSelector":{"gpupool.io/pool":"converge"},"containers":[{"name":"c","image":"busybox",)"
                          R"("resources":{"limits":{"nvidia.com/mig-3g.40gb":"1"}}}]}})";
  client_->create(kube::ResourceRef{kube::core::pods(), ns(), "", ""}, pod);
  wait_for(60s, [&] {
    return !str(client_->get(kube::ResourceRef{kube::core::pods(), ns(), "mig-user", ""}), {"spec", "nodeName"}).empty();
  }, "the MIG pod scheduled");
}

TEST_F(PoolTest, TenNodesWithMaxUnavailableTwoNeverHaveMoreThanTwoDisruptedAndFinish) {
  const auto names = fleet(10, 10, {{"pool-test", "rolling"}},
                           "driverVersion: \"550.54.15\"\ngpus: [{model: a100-sxm4-80gb, count: 1}]\ninstall: {seconds: 1}\n");
  DisruptionRecorder recorder(*client_, std::set<std::string>(names.begin(), names.end()));
  start_controller();
  apply_pool(pool_yaml("rolling", "pool-test: rolling",
                       "  driver:\n    version: \"560.35.03\"\n    installer: {kind: container, image: nvcr.io/nvidia/driver:560.35.03}\n"
                       "    upgradeStrategy: {maxUnavailable: 2}\n"));
  ASSERT_TRUE(wait_pool("rolling", 300s, [](const rapidjson::Value& p) { return condition(p, "Ready") == "True"; }, "the rollout finished"));
  for (const auto& n : names) EXPECT_EQ(str(get(kGpuNodes, n), {"status", "driverVersion"}), "560.35.03") << n;
  const auto [most, when] = recorder.worst();
  EXPECT_LE(most, 2) << "more than maxUnavailable nodes disrupted " << when;
  EXPECT_GE(most, 1) << "the recorder saw no disruption at all (" << recorder.seen() << " events)";
}

TEST_F(PoolTest, EqualPrioritiesConflictAndTheNodeIsLeftAloneUntilOneIsRaised) {
  const auto names = fleet(30, 1, {{"pool-test", "tie"}, {"zone", "z1"}});
  const std::string n = names.at(0);
  apply_pool(pool_yaml("tie-a", "pool-test: tie", "  priority: 5\n  partitioning:\n    nvidia: {strategy: mixed, layout: all-1g.10gb}\n"));
  apply_pool(pool_yaml("tie-b", "zone: z1", "  priority: 5\n"));
  start_controller();
  for (const char* pool : {"tie-a", "tie-b"}) {
    ASSERT_TRUE(wait_pool(pool, 60s, [](const rapidjson::Value& p) { return condition(p, "Conflict") == "True"; }, "Conflict on both"));
    const std::string other = std::string(pool) == "tie-a" ? "tie-b" : "tie-a";
    EXPECT_NE(condition(get(kPools, pool), "Conflict", "message").find("node " + n + " is also selected by " + other),
              std::string::npos);
  }
  wait_for(30s, [&] { return label(get(kNodes, n), "gpupool.io/pool-conflict") == "tie-a_tie-b"; }, "the node labelled conflicted");
  auto node = get(kNodes, n);
  EXPECT_EQ(label(node, "gpupool.io/pool"), "");
  auto g = get(kGpuNodes, n);
  EXPECT_EQ(str(g, {"spec", "pool"}), "") << "a pool acted on a node in a tie";
  EXPECT_FALSE(at(g, {"spec", "partitioning", "mig"})) << "a layout was sent to a node in a tie";

  cluster().kubectl_result({"patch", "gpupool", "tie-a", "--type=merge", "-p", R"({"spec":{"priority":6}})"});
  ASSERT_TRUE(wait_pool("tie-a", 120s, [](const rapidjson::Value& p) { return condition(p, "Ready") == "True"; }, "tie-a Ready"));
  EXPECT_EQ(condition(get(kPools, "tie-a"), "Conflict"), "False");
  ASSERT_TRUE(wait_pool("tie-b", 60s, [](const rapidjson::Value& p) { return condition(p, "Conflict") == "False"; }, "tie-b's Conflict gone"));
  wait_for(30s, [&] {
    auto x = get(kNodes, n);
    return label(x, "gpupool.io/pool") == "tie-a" && label(x, "gpupool.io/pool-conflict").empty();
  }, "the node in tie-a, no longer labelled conflicted");
  EXPECT_EQ(str(get(kGpuNodes, n), {"spec", "pool"}), "tie-a");
}

TEST_F(PoolTest, DeletingThePoolCleansUpButKeepsTheAdministratorsCordonAndTaint) {
  const auto names = fleet(40, 2, {{"pool-test", "bye"}});
  // An administrator's own cordon and taint on the first node.
  client_->patch(kNodes.with_name(names[0]), kube::PatchType::MergePatch,
                 R"({"spec":{"unschedulable":true,"taints":[{"key":"admin/maintenance","value":"disk","effect":"NoSchedule"}]}})");
  start_controller();
  apply_pool(pool_yaml("bye", "pool-test: bye",
                       "  nodeLabels: {team: bye}\n"
                       "  nodeTaints: [{key: gpupool.io/dedicated, value: bye, effect: NoSchedule}]\n"));
  wait_for(120s, [&] {
    for (const auto& n : names) {
      auto x = get(kNodes, n);
      const auto t = taint_keys(x);
      if (label(x, "team") != "bye" || std::find(t.begin(), t.end(), "gpupool.io/dedicated=bye") == t.end()) return false;
      if (str(get(kGpuNodes, n), {"spec", "pool"}) != "bye") return false;
    }
    return true;
  }, "labels, taints and GPUNodes of the pool in place");

  std::string out;
  ASSERT_EQ(cluster().kubectl({"delete", "gpupool", "bye", "--timeout=120s"}, &out), 0) << out << log_tail("controller.log");
  pools_.erase("bye");
  for (const auto& n : names) {
    auto x = get(kNodes, n);
    EXPECT_EQ(label(x, "gpupool.io/pool"), "") << n;
    EXPECT_EQ(label(x, "team"), "") << n;
    const auto t = taint_keys(x);
    EXPECT_EQ(std::find(t.begin(), t.end(), "gpupool.io/dedicated=bye"), t.end()) << n;
    auto g = get(kGpuNodes, n);
    EXPECT_EQ(str(g, {"spec", "pool"}), "") << n;
    EXPECT_FALSE(flag(g, {"spec", "disruptionAllowed"})) << n;
  }
  auto admin = get(kNodes, names[0]);
  EXPECT_TRUE(flag(admin, {"spec", "unschedulable"})) << "the administrator's cordon was undone";
  const auto t = taint_keys(admin);
  EXPECT_NE(std::find(t.begin(), t.end(), "admin/maintenance=disk"), t.end()) << "the administrator's taint was removed";
  EXPECT_FALSE(flag(get(kNodes, names[1]), {"spec", "unschedulable"}));
}

TEST_F(PoolTest, AnInstallFailureStopsAtTheFailureBudgetAndResumesAfterTheDocumentedClearing) {
  const std::string ok_world = "driverVersion: \"550.54.15\"\ngpus: [{model: a100-sxm4-80gb, count: 1}]\n";
  const auto names = fleet(50, 3, {{"pool-test", "budget"}}, ok_world);
  world(names[0], ok_world + "install: {fail: \"nvidia-installer: kernel module build failed\"}\n");
  DisruptionRecorder recorder(*client_, {names[0], names[1], names[2]});
  start_controller();
  apply_pool(pool_yaml("budget", "pool-test: budget",
                       "  driver:\n    version: \"560.35.03\"\n    installer: {kind: container, image: nvcr.io/nvidia/driver:560.35.03}\n"
                       "    upgradeStrategy: {maxUnavailable: 1, failureBudget: 0, cordonOnFailure: false}\n"));
  ASSERT_TRUE(wait_pool("budget", 120s, [](const rapidjson::Value& p) { return condition(p, "Degraded") == "True"; },
                        "Degraded after the first failure"));
  auto p = get(kPools, "budget");
  const std::string message = condition(p, "Degraded", "message");
  EXPECT_NE(message.find(names[0]), std::string::npos) << message;
  EXPECT_NE(message.find("kernel module build failed"), std::string::npos) << message;
  EXPECT_NE(message.find("gpupool.io/retry=true"), std::string::npos) << message;
  EXPECT_EQ(condition(p, "Progressing", "reason"), "FailureBudgetExceeded");
  EXPECT_EQ(p["status"]["rollout"]["failed"].GetInt(), 1);
  // The failing node need not go first: the first node whose agent reports
  // on the new spec is granted first. Those before it finish; once it is
  // granted (and fails) no other node is granted.
  auto count = [&p](const char* field) {  // a count of 0 may be left out
    const auto& r = p["status"]["rollout"];
    return r.HasMember(field) ? r[field].GetInt() : 0;
  };
  EXPECT_EQ(count("pending") + count("updated"), 2);
  EXPECT_LE(recorder.worst().first, 1) << "maxUnavailable 1 exceeded " << recorder.worst().second;
  const auto failing_granted = recorder.turned_on('g', names[0]);
  ASSERT_EQ(failing_granted.size(), 1u);
  for (const auto& n : {names[1], names[2]}) {
    for (const auto rv : recorder.turned_on('g', n)) {
      EXPECT_LT(rv, failing_granted.front()) << n << " was granted at revision " << rv << ", past the failure budget (" << names[0]
                                             << " granted at " << failing_granted.front() << " and failed)";
    }
  }
  // A Warning Event on the pool names the node.
  wait_for(30s, [&] {
    auto events = client_->list(kube::ResourceRef{{"events.k8s.io", "v1", "events"}, "default", "", ""});
    for (const auto& e : events["items"].GetArray()) {
      if (str(e, {"reason"}) == "NodeFailed" && str(e, {"regarding", "name"}) == "budget" &&
          str(e, {"note"}).find(names[0]) != std::string::npos) {
        return true;
      }
    }
    return false;
  }, "a NodeFailed Event on the pool");
  // And a Warning on the Node itself, where `kubectl describe node` shows it.
  wait_for(30s, [&] {
    auto events = client_->list(kube::ResourceRef{{"events.k8s.io", "v1", "events"}, "default", "", ""});
    for (const auto& e : events["items"].GetArray()) {
      if (str(e, {"reason"}) == "UpdateFailed" && str(e, {"regarding", "kind"}) == "Node" &&
          str(e, {"regarding", "name"}) == names[0] && str(e, {"note"}).find("kernel module build failed") != std::string::npos) {
        return true;
      }
    }
    return false;
  }, "an UpdateFailed Event on the Node");

  // The administrator fixes the node, then clears the failure as documented.
  world(names[0], ok_world);
  std::string out;
  ASSERT_EQ(cluster().kubectl({"annotate", "gpunode", names[0], "gpupool.io/retry=true"}, &out), 0) << out;
  ASSERT_TRUE(wait_pool("budget", 180s, [](const rapidjson::Value& x) { return condition(x, "Ready") == "True"; },
                        "the rollout finished after the clearing"));
  EXPECT_EQ(condition(get(kPools, "budget"), "Degraded"), "False");
  for (const auto& n : names) EXPECT_EQ(str(get(kGpuNodes, n), {"status", "driverVersion"}), "560.35.03") << n;
  EXPECT_FALSE(at(get(kGpuNodes, names[0]), {"metadata", "annotations", "gpupool.io/retry"})) << "the annotation stays";
}

TEST_F(PoolTest, NodesLabelledOutAndInMidRolloutAreHandled) {
  const std::string slow = "driverVersion: \"550.54.15\"\ngpus: [{model: a100-sxm4-80gb, count: 1}]\ninstall: {seconds: 2}\n";
  const auto names = fleet(60, 4, {{"pool-test", "moving"}}, slow);
  const auto newcomer = fleet(64, 1, {{"pool-test", "elsewhere"}}, slow).at(0);
  start_controller();
  apply_pool(pool_yaml("moving", "pool-test: moving",
                       "  driver:\n    version: \"560.35.03\"\n    installer: {kind: container, image: nvcr.io/nvidia/driver:560.35.03}\n"
                       "    upgradeStrategy: {maxUnavailable: 1}\n  nodeLabels: {team: moving}\n"));
  wait_for(60s, [&] { return flag(get(kGpuNodes, names[0]), {"spec", "disruptionAllowed"}); }, "the rollout started");
  // The last node (still waiting its turn) leaves; a new one joins.
  client_->patch(kNodes.with_name(names[3]), kube::PatchType::MergePatch, R"({"metadata":{"labels":{"pool-test":"gone"}}})");
  client_->patch(kNodes.with_name(newcomer), kube::PatchType::MergePatch, R"({"metadata":{"labels":{"pool-test":"moving"}}})");
  ASSERT_TRUE(wait_pool("moving", 240s, [](const rapidjson::Value& p) {
    return condition(p, "Ready") == "True" && p["status"]["nodes"]["total"].GetInt() == 4;
  }, "the rollout finished over the new membership"));
  for (const auto& n : {names[0], names[1], names[2], newcomer}) {
    EXPECT_EQ(str(get(kGpuNodes, n), {"status", "driverVersion"}), "560.35.03") << n;
    EXPECT_EQ(label(get(kNodes, n), "team"), "moving") << n;
  }
  auto left = get(kGpuNodes, names[3]);
  EXPECT_EQ(str(left, {"spec", "pool"}), "");
  EXPECT_FALSE(at(left, {"spec", "driver"})) << "a node in no pool has nothing desired";
  EXPECT_EQ(str(left, {"status", "driverVersion"}), "550.54.15") << "the node that left was upgraded anyway";
  auto left_node = get(kNodes, names[3]);
  EXPECT_EQ(label(left_node, "gpupool.io/pool"), "");
  EXPECT_EQ(label(left_node, "team"), "");
}

TEST_F(PoolTest, AControllerKilledMidRolloutResumesWithinMaxUnavailable) {
  const auto names = fleet(70, 6, {{"pool-test", "killed"}},
                           "driverVersion: \"550.54.15\"\ngpus: [{model: a100-sxm4-80gb, count: 1}]\ninstall: {seconds: 2}\n");
  DisruptionRecorder recorder(*client_, std::set<std::string>(names.begin(), names.end()));
  start_controller();
  apply_pool(pool_yaml("killed", "pool-test: killed",
                       "  driver:\n    version: \"560.35.03\"\n    installer: {kind: container, image: nvcr.io/nvidia/driver:560.35.03}\n"
                       "    upgradeStrategy: {maxUnavailable: 2}\n"));
  wait_for(60s, [&] {
    int granted = 0;
    for (const auto& n : names) granted += flag(get(kGpuNodes, n), {"spec", "disruptionAllowed"}) ? 1 : 0;
    return granted > 0;
  }, "nodes granted");
  controller_->signal(SIGKILL);
  controller_->wait_until(std::chrono::steady_clock::now() + 10s);
  controller_.reset();
  std::filesystem::rename(dir_ + "/controller.log", dir_ + "/controller-killed.log");
  start_controller();
  ASSERT_TRUE(wait_pool("killed", 300s, [](const rapidjson::Value& p) { return condition(p, "Ready") == "True"; },
                        "the rollout finished after the restart"));
  for (const auto& n : names) EXPECT_EQ(str(get(kGpuNodes, n), {"status", "driverVersion"}), "560.35.03") << n;
  const auto [most, when] = recorder.worst();
  EXPECT_LE(most, 2) << "more than maxUnavailable nodes disrupted " << when;
}

// The gap between an agent's check of its permission and its cordon: the
// controller writes a new spec over a permission the agent has read but not
// acted on. The agent here is stopped (SIGSTOP) holding a permission; until
// it has seen the new spec, its node still counts as disrupted, so no other
// node is granted in its place.
TEST_F(PoolTest, APermissionWithdrawnByANewSpecHoldsItsSlotUntilTheAgentHasSeenIt) {
  const std::string slow = "driverVersion: \"550.54.15\"\ngpus: [{model: a100-sxm4-80gb, count: 1}]\ninstall: {seconds: 1}\n";
  const auto names = fleet(80, 3, {{"pool-test", "unseen"}}, slow);
  const std::string& held = names[0];  // first in name order: granted first
  DisruptionRecorder recorder(*client_, std::set<std::string>(names.begin(), names.end()));
  start_controller();
  // A window that is closed now (it opens in 6 hours, every day): specs are
  // written and reported on, nothing granted.
  const int hour = static_cast<int>((std::chrono::duration_cast<std::chrono::hours>(
                                         std::chrono::system_clock::now().time_since_epoch()).count() + 6) % 24);
  const std::string start = (hour < 10 ? "0" : "") + std::to_string(hour) + ":00";
  auto pool = [&](const std::string& version, const std::string& windows) {
    return pool_yaml("unseen", "pool-test: unseen",
                     "  driver:\n    version: \"" + version + "\"\n    installer: {kind: container, image: nvcr.io/nvidia/driver:" +
                         version + "}\n    upgradeStrategy:\n      maxUnavailable: 1\n" + windows);
  };
  apply_pool(pool("560.35.03", "      maintenanceWindows: [{days: [Mon, Tue, Wed, Thu, Fri, Sat, Sun], start: '" +
                                   start + "', duration: 1h}]\n"));
  auto reported = [&](const std::string& n) {
    auto g = get(kGpuNodes, n);
    return at(g, {"status", "observedGeneration"}) &&
           g["status"]["observedGeneration"].GetInt64() == g["metadata"]["generation"].GetInt64() &&
           !str(g, {"spec", "driver", "version"}).empty();
  };
  for (const auto& n : names) wait_for(60s, [&] { return reported(n); }, n + " reporting on its new spec");
  ASSERT_TRUE(wait_pool("unseen", 60s, [](const rapidjson::Value& p) {
    return condition(p, "Progressing", "reason") == "OutsideMaintenanceWindow";
  }, "the pool waiting for its window"));

  // Its agent stops (its Lease lasts 40 s: still alive to the controller);
  // the window opens, and the node is granted.
  size_t held_index = 0;
  for (size_t i = 0; i < names.size(); ++i) {
    if (names[i] == held) held_index = i;
  }
  auto& agent = *agents_.at(held_index);
  agent.signal(SIGSTOP);
  struct Resume {
    testenv::Process& p;
    ~Resume() { p.signal(SIGCONT); }
  } resume{agent};
  apply_pool(pool("560.35.03", ""));
  wait_for(20s, [&] { return flag(get(kGpuNodes, held), {"spec", "disruptionAllowed"}); }, held + " granted");

  // A new version: the controller writes it over the permission.
  apply_pool(pool("565.57.01", ""));
  wait_for(20s, [&] {
    return !str(get(kGpuNodes, held), {"metadata", "annotations", "gpupool.io/withdrawn-generation"}).empty();
  }, held + "'s withdrawal recorded");
  // The others report on the new spec and wait: the stopped agent's node holds the slot.
  for (size_t i = 1; i < names.size(); ++i) wait_for(20s, [&] { return reported(names[i]); }, names[i] + " reporting");
  const std::string waiting = "1 of 3 nodes unavailable (maxUnavailable 1): " + held;
  ASSERT_TRUE(wait_pool("unseen", 20s, [&](const rapidjson::Value& p) {
    return str(p, {"status", "rollout", "message"}).find(waiting) != std::string::npos;
  }, "the others waiting on " + held));
  for (size_t i = 1; i < names.size(); ++i) {
    EXPECT_FALSE(flag(get(kGpuNodes, names[i]), {"spec", "disruptionAllowed"})) << names[i] << " granted in its place";
  }

  // The agent goes on: it sees the new spec, not the old permission, and the rollout finishes.
  agent.signal(SIGCONT);
  ASSERT_TRUE(wait_pool("unseen", 120s, [](const rapidjson::Value& p) { return condition(p, "Ready") == "True"; },
                        "the rollout finished"));
  for (const auto& n : names) EXPECT_EQ(str(get(kGpuNodes, n), {"status", "driverVersion"}), "565.57.01") << n;
  const auto [most, when] = recorder.worst();
  EXPECT_LE(most, 1) << "more than maxUnavailable nodes disrupted " << when;
}

TEST_F(PoolTest, AMissingPolicyIsAConditionAndThePolicyListsItsPools) {
  const auto names = fleet(80, 1, {{"pool-test", "policy"}});
  start_controller();
  apply_pool(pool_yaml("with-policy", "pool-test: policy",
                       "  policyRef: {name: strict}\n  sharing: {mode: timeSlicing, timeSlicing: {replicas: 4}}\n"));
  ASSERT_TRUE(wait_pool("with-policy", 60s, [](const rapidjson::Value& p) {
    return condition(p, "Ready", "reason") == "PolicyNotFound";
  }, "PolicyNotFound"));
  EXPECT_NE(condition(get(kPools, "with-policy"), "Ready", "message").find("GPUPolicy strict (spec.policyRef) not found"),
            std::string::npos);
  EXPECT_NE(str(get(kGpuNodes, names[0]), {"spec", "sharing", "mode"}), "timeSlicing") << "acted without its policy";

  std::string out;
  const std::string policy = dir_ + "/policy.yaml";
  std::ofstream(policy) << "apiVersion: gpupool.io/v1alpha1\nkind: GPUPolicy\nmetadata:\n  name: strict\nspec: {}\n";
  ASSERT_EQ(cluster().kubectl({"apply", "-f", policy}, &out), 0) << out;
  ASSERT_TRUE(wait_pool("with-policy", 120s, [](const rapidjson::Value& p) { return condition(p, "Ready") == "True"; },
                        "Ready once the policy exists"));
  wait_for(30s, [&] {
    auto p = client_->get(kube::ResourceRef{{"gpupool.io", "v1alpha1", "gpupolicies"}, "", "strict", ""});
    const auto* pools = at(p, {"status", "pools"});
    return pools && pools->IsArray() && pools->Size() == 1 && std::string((*pools)[0].GetString()) == "with-policy";
  }, "the policy lists the pool");
  // Time-slicing reached the node without a drain, and its device plugin config exists.
  EXPECT_EQ(label(get(kNodes, names[0]), "nvidia.com/device-plugin.config"), "gpupool-mixed-ts4");
  auto cm = client_->get(kube::ResourceRef{kube::core::configmaps(), "gpupool-system", "nvidia-device-plugin-configs", ""});
  const std::string ts4 = str(cm, {"data", "gpupool-mixed-ts4"});
  EXPECT_NE(ts4.find("timeSlicing"), std::string::npos) << ts4;
  EXPECT_NE(ts4.find("replicas: 4"), std::string::npos) << ts4;
  cluster().kubectl_result({"delete", "gpupolicy", "strict", "--wait=false"});
}

}  // namespace
}  // namespace gpupool::test
