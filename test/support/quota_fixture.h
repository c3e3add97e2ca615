// TenantQuota tests on the real control plane: FleetTest (kwok nodes,
// simulated agents, the controller) plus namespaces, a GPUPolicy and the
// pool "quota" made of the fleet, and helpers to apply quotas and wait for
// their phase. Namespaces and the policy are deleted in TearDown.
#pragma once

#include <ctime>

#include "support/fleet_fixture.h"
#include "support/recorders.h"

namespace gpupool::test {

// `t` as RFC 3339 in UTC, to the second (what expiresAt holds).
inline std::string rfc3339(std::chrono::system_clock::time_point t) {
  const std::time_t tt = std::chrono::system_clock::to_time_t(t);
  char text[32];
  std::tm utc{};
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&tt, &utc));
  return text;
}

inline const kube::ResourceRef kQuotas{{"gpupool.io", "v1alpha1", "tenantquotas"}, "", "", ""};

// Every change of the TenantQuotas asking pool `pool`, in the order of one
// watch stream (etcd's revision order): what they are granted of `resource`
// (whole devices) together, summed at every moment; the most ever seen.
class GrantedRecorder {
 public:
  GrantedRecorder(kube::Client& client, std::string pool, std::string resource)
      : pool_(std::move(pool)), resource_(std::move(resource)) {
    thread_ = std::jthread([this, &client](std::stop_token stop) {
      watch_until_stopped(client, kQuotas, stop, [&](kube::WatchEventType type, const rapidjson::Document& q) {
        if (str(q, {"spec", "poolRef", "name"}) != pool_) return;
        const std::string key = str(q, {"metadata", "namespace"}) + "/" + str(q, {"metadata", "name"});
        const std::string amount = type == kube::WatchEventType::Deleted ? "" : str(q, {"status", "granted", resource_.c_str()});
        std::lock_guard lock(mu_);
        granted_.set(key, amount.empty() ? 0 : std::stoi(amount));
      }, [&] {
        std::lock_guard lock(mu_);
        granted_.clear();
      });
    });
  }
  int most() {
    std::lock_guard lock(mu_);
    return granted_.most;
  }
  int now() {
    std::lock_guard lock(mu_);
    return granted_.now;
  }

 private:
  std::string pool_, resource_;
  std::mutex mu_;
  SummedAmounts granted_;
  std::jthread thread_;
};

class QuotaTest : public FleetTest {
 protected:
  void TearDown() override {
    // Quotas first: a namespace being deleted keeps them a while, and the next test's pool has the same name.
    for (const auto& ns : namespaces_) cluster().kubectl_result({"delete", "tenantquotas", "--all", "-n", ns, "--ignore-not-found"});
    for (const auto& ns : namespaces_) cluster().kubectl_result({"delete", "namespace", ns, "--ignore-not-found", "--wait=false"});
    cluster().kubectl_result({"delete", "gpupolicy", "quota-test", "--ignore-not-found"});
    FleetTest::TearDown();
  }
  void apply(const std::string& yaml) {
    const std::string path = dir_ + "/apply.yaml";
    std::ofstream(path) << yaml;
    std::string out;
    ASSERT_EQ(cluster().kubectl({"apply", "--server-side", "-f", path}, &out), 0) << out << "\n" << yaml;
  }
  void make_namespace(const std::string& name, const std::string& labels) {
    namespaces_.push_back(name);
    apply("apiVersion: v1\nkind: Namespace\nmetadata:\n  name: " + name + "\n  labels: {" + labels + "}\n");
  }
  void quota(const std::string& ns, const std::string& name, const std::string& resources, int priority) {
    apply("apiVersion: gpupool.io/v1alpha1\nkind: TenantQuota\nmetadata:\n  name: " + name + "\n  namespace: " + ns +
          "\nspec:\n  poolRef: {name: quota}\n  priority: " + std::to_string(priority) + "\n  resources: {" + resources + "}\n");
  }
  rapidjson::Document get_quota(const std::string& ns, const std::string& name) {
    return client_->get(kube::ResourceRef{kQuotas.gvr, ns, name, ""});
  }
  // Waits until the quota is in `phase`; shows its status and the controller's log otherwise.
  [[nodiscard]] bool wait_phase(const std::string& ns, const std::string& name, const std::string& phase) {
    std::string last;
    const bool ok = testenv::wait_until([&] {
      try {
        auto q = get_quota(ns, name);
        last = q.HasMember("status") ? kube::to_json(q["status"]) : "(no status)";
        return str(q, {"status", "phase"}) == phase;
      } catch (const std::exception& e) {
        last = e.what();
        return false;
      }
    }, 60s);
    if (!ok) {
      ADD_FAILURE() << ns << "/" << name << " never " << phase << "\nstatus: " << last << "\ncontroller log:\n"
                    << log_tail("controller.log");
    }
    return ok;
  }
  // The GPUPolicy quota-test with `quota_rules` (YAML under spec.quota) and the
  // pool "quota" using it, with the capacity of the fleet's GPUs reported
  // (`gpus` nvidia.com/gpu). Call through ASSERT_NO_FATAL_FAILURE.
  void policy_and_pool(const std::string& quota_rules, const std::string& gpus = "4") {
    apply("apiVersion: gpupool.io/v1alpha1\nkind: GPUPolicy\nmetadata:\n  name: quota-test\nspec:\n  quota:\n" + quota_rules);
    apply_pool(pool_yaml("quota", "pool-test: quota", "  policyRef: {name: quota-test}\n"));
    ASSERT_TRUE(wait_pool("quota", 120s, [&](const rapidjson::Value& p) { return str(p, {"status", "capacity", "nvidia.com/gpu"}) == gpus; },
                          "the pool's capacity"));
  }
  std::vector<std::string> namespaces_;
};


}  // namespace gpupool::test
