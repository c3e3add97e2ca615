// The quota gate on the real control plane, webhooks over real TLS: GPU pods
// in covered namespaces wait at the scheduling gate gpupool.io/quota and
// start only while their tenant's grant holds them; the admission policy
// refuses ungated GPU pods even with the webhook gone.
#include <gtest/gtest.h>

#include <csignal>
#include <atomic>
#include <ctime>
#include <mutex>
#include <thread>

#include "support/promtool.h"
#include "support/quota_fixture.h"
#include "support/recorders.h"

namespace gpupool::test {
namespace {

std::string gpu_pod(const std::string& ns, const std::string& name, int gpus, const std::string& extra_spec = "") {
  const std::string res = gpus > 0 ? R"(,"resources":{"limits":{"nvidia.com/gpu":")" + std::to_string(gpus) + R"("}})" : "";
  return R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":")" + name + R"(","namespace":")" + ns +
         R"("},"spec":{)" + extra_spec + R"("tolerations":[{"operator":"Exists"}],"containers":[{"name":"c","image":"busybox")" +
         res + "}]}}";
}

class QuotaGateTest : public QuotaTest {
 protected:
  // The gate's admission objects cover `ns` (the controller wrote them).
  [[nodiscard]] bool wait_covered(const std::string& ns) {
    return testenv::wait_until([&] {
      try {
        auto b = client_->get(kube::ResourceRef{{"admissionregistration.k8s.io", "v1", "validatingadmissionpolicybindings"},
                                                "", "gpupool-quota-gate", ""});
        auto m = client_->get(kube::ResourceRef{{"admissionregistration.k8s.io", "v1", "mutatingwebhookconfigurations"},
                                                "", "gpupool-mutating-webhook", ""});
        return kube::to_json(b).find('"' + ns + '"') != std::string::npos &&
               kube::to_json(m).find('"' + ns + '"') != std::string::npos;
      } catch (const kube::ApiError&) {
        return false;
      }
    }, 60s);
  }
  std::vector<rapidjson::Document> pods_in(const std::vector<std::string>& namespaces) {
    std::vector<rapidjson::Document> out;
    for (const auto& ns : namespaces) {
      auto list = client_->list(kube::ResourceRef{kube::core::pods(), ns, "", ""});
      for (auto& p : list["items"].GetArray()) {
        rapidjson::Document d;
        d.CopyFrom(p, d.GetAllocator());
        out.push_back(std::move(d));
      }
    }
    return out;
  }
};

// One tenant, three namespaces, one quota of 6 GPUs in a pool of 10: 200
// one-GPU pods created at once never hold more than 6 past the gate; the 6
// that fit run, pinned to the pool; the others wait, told why in numbers
// (and counted on the leader's /metrics: the pool's allocation, the pods at
// the gate, the quota's tenant); when running pods finish, waiting ones take
// their place.
TEST_F(QuotaGateTest, TwoHundredConcurrentPodsNeverExceedTheGrant) {
  fleet(110, 5, {{"pool-test", "quota"}});  // 5 nodes x 2 A100: 10 nvidia.com/gpu
  // Two replicas with leader election; the leader is killed halfway.
  const std::vector<std::string> election = {"--leader-elect", "--leader-election-namespace", ns(),
                                             "--leader-elect-lease-duration=4", "--leader-elect-renew-deadline=2.5",
                                             "--leader-elect-retry-period=0.5"};
  // The leader serves /metrics (the quota gauges, checked below).
  const int metrics_port = free_port();
  ASSERT_GT(metrics_port, 0);
  std::vector<std::string> leader_args = election;
  leader_args.push_back("--metrics-bind-address=127.0.0.1:" + std::to_string(metrics_port));
  start_controller_with_webhook(leader_args);
  std::unique_ptr<testenv::Process> standby;
  {
    const std::string address = "127.0.0.1:" + std::to_string(free_port());
    testenv::SpawnSpec spec;
    spec.path = GPUPOOL_CONTROLLER_BIN;
    spec.args = {"--kubeconfig", cluster().kubeconfig_path(), "--metrics-bind-address=0", "--health-probe-bind-address=0",
                 "--log-format=json", "--agent-namespace", "gpupool-system", "--webhook-bind-address", address,
                 "--webhook-url", "https://" + address};
    spec.args.insert(spec.args.end(), election.begin(), election.end());
    spec.log_file = dir_ + "/controller-standby.log";
    // Started once the first one leads, so which one leads is known.
    ASSERT_TRUE(testenv::wait_until([&] { return log_text("controller.log").find("became leader") != std::string::npos; }, 60s))
        << log_tail("controller.log");
    standby = std::make_unique<testenv::Process>(testenv::Process::spawn(spec));
  }
  const std::vector<std::string> nss = {"gt-a1", "gt-a2", "gt-a3"};
  for (const auto& ns : nss) make_namespace(ns, "gpupool.io/tenant: gate-a");
  ASSERT_NO_FATAL_FAILURE(policy_and_pool("    approval: Automatic\n", "10"));
  apply("apiVersion: gpupool.io/v1alpha1\nkind: TenantQuota\nmetadata:\n  name: train\n  namespace: gt-a1\nspec:\n"
        "  poolRef: {name: quota}\n  resources: {nvidia.com/gpu: 6}\n  namespaces: [gt-a1, gt-a2, gt-a3]\n");
  ASSERT_TRUE(wait_phase("gt-a1", "train", "Granted"));
  ASSERT_TRUE(wait_covered("gt-a3")) << log_tail("controller.log");

  AdmittedRecorder recorder(*client_, {nss.begin(), nss.end()});
  std::atomic<int> created{0};
  std::vector<std::string> errors;
  std::mutex errors_mu;
  {
    std::vector<std::jthread> creators;
    for (int t = 0; t < 8; ++t) {
      creators.emplace_back([&, t] {
        kube::Client c(rest_config(cluster(), cluster().admin_token()));
        for (int i = t; i < 200; i += 8) {
          const std::string& ns = nss[i % 3];
          try {
            c.create(kube::ResourceRef{kube::core::pods(), ns, "", ""}, gpu_pod(ns, "job-" + std::to_string(i), 1));
            ++created;
          } catch (const std::exception& e) {
            std::lock_guard lock(errors_mu);
            errors.push_back(e.what());
          }
        }
      });
    }
  }
  ASSERT_EQ(created.load(), 200) << (errors.empty() ? "" : errors.front());

  auto running = [&] {
    int n = 0;
    for (const auto& p : pods_in(nss)) n += str(p, {"status", "phase"}) == "Running" ? 1 : 0;
    return n;
  };
  ASSERT_TRUE(testenv::wait_until([&] { return running() == 6; }, 90s))
      << "running: " << running() << "\n" << log_tail("controller.log");
  ASSERT_TRUE(testenv::wait_until([&] {
    auto q = get_quota("gt-a1", "train");
    return str(q, {"status", "used", "nvidia.com/gpu"}) == "6" && str(q, {"status", "waiting", "nvidia.com/gpu"}) == "194";
  }, 30s)) << kube::to_json(get_quota("gt-a1", "train"));
  EXPECT_FALSE(at(get_quota("gt-a1", "train"), {"status", "borrowed", "nvidia.com/gpu"}));

  int gated = 0;
  std::string a_waiting_pod;
  for (const auto& p : pods_in(nss)) {
    if (has_gate(p)) {
      ++gated;
      a_waiting_pod = str(p, {"metadata", "namespace"}) + "/" + str(p, {"metadata", "name"});
      continue;
    }
    EXPECT_EQ(str(p, {"spec", "nodeSelector", "gpupool.io/pool"}), "quota") << "admitted pods are pinned to the pool";
  }
  EXPECT_EQ(gated, 194);

  // The same on the leader's /metrics: the pool's devices its admitted pods
  // hold, the pods at the gate, the quota's tenant; clean for promtool.
  {
    const std::vector<std::string> want = {
        R"(gpupool_pool_allocated{pool="quota",resource="nvidia.com/gpu"} 6)",
        R"(gpupool_tenantquota_pods_waiting{namespace="gt-a1",name="train"} 194)",
        R"(gpupool_tenantquota_info{namespace="gt-a1",name="train",pool="quota",tenant="gate-a"} 1)",
        R"(gpupool_tenantquota_waiting{namespace="gt-a1",name="train",resource="nvidia.com/gpu"} 194)"};
    std::string text;
    const bool all = testenv::wait_until([&] {
      const auto r = testenv::run_command("curl", {"-sf", "http://127.0.0.1:" + std::to_string(metrics_port) + "/metrics"});
      text = r.status == 0 ? r.out : "curl: exit " + std::to_string(r.status) + " " + r.err;
      for (const auto& line : want) {
        if (text.find(line) == std::string::npos) return false;
      }
      return true;
    }, 30s);
    EXPECT_TRUE(all) << "the leader's /metrics lack one of the quota gauges:\n" << text;
    if (const auto promtool = find_promtool()) {
      const auto lint = promtool_check_metrics(*promtool, text);
      EXPECT_EQ(lint.exit_code, 0) << "promtool check metrics: " << lint.output << "\non:\n" << text;
    } else {
      ADD_FAILURE() << "promtool not on PATH (Debian package prometheus)";
    }
  }

  // The waiting pod was told why.
  const auto slash = a_waiting_pod.find('/');
  std::string events;
  ASSERT_TRUE(testenv::wait_until([&] {
    cluster().kubectl({"get", "events", "-n", a_waiting_pod.substr(0, slash), "--field-selector",
                       "involvedObject.name=" + a_waiting_pod.substr(slash + 1), "-o", "jsonpath={.items[*].message}"},
                      &events);
    return events.find("TenantQuota gt-a1/train uses 6 of 6") != std::string::npos;
  }, 30s)) << events;

  // The leader dies (SIGKILL: no lease release); the standby takes over from
  // its own informers. Three running pods finish: three waiting pods take
  // their place, no more.
  controller_->signal(SIGKILL);
  ASSERT_TRUE(controller_->wait_until(std::chrono::steady_clock::now() + 10s));
  int finished = 0;
  kube::DeleteOptions now;
  now.grace_period_seconds = 0;
  for (const auto& p : pods_in(nss)) {
    if (finished == 3 || str(p, {"status", "phase"}) != "Running") continue;
    client_->remove(kube::ResourceRef{kube::core::pods(), str(p, {"metadata", "namespace"}), str(p, {"metadata", "name"}), ""},
                    now);
    ++finished;
  }
  ASSERT_TRUE(testenv::wait_until([&] {
    return str(get_quota("gt-a1", "train"), {"status", "waiting", "nvidia.com/gpu"}) == "191" && running() == 6;
  }, 60s)) << kube::to_json(get_quota("gt-a1", "train")) << "\n" << log_tail("controller-standby.log");
  EXPECT_NE(log_text("controller-standby.log").find("admitted by TenantQuota gt-a1/train"), std::string::npos)
      << "the standby, now leading, admitted the replacements";

  EXPECT_GT(recorder.events(), 200u);
  EXPECT_EQ(recorder.most(), 6) << "GPUs past the gate at the worst moment";
}

// Borrowing, then reclaim: the borrower runs 4 pods on a guarantee of 2
// while the lender is idle; when the lender's pods arrive they wait the
// grace period, then exactly the borrowed pods are evicted (Events say why)
// and the lender's pods run; the borrower keeps its guarantee.
TEST_F(QuotaGateTest, BorrowedCapacityIsReclaimedForTheLenderAfterTheGracePeriod) {
  fleet(116, 2, {{"pool-test", "quota"}});  // 4 nvidia.com/gpu
  start_controller_with_webhook();
  make_namespace("gt-lend", "");
  make_namespace("gt-borrow", "");
  ASSERT_NO_FATAL_FAILURE(policy_and_pool("    approval: Automatic\n    borrowing: {enabled: true}\n    reclaimGracePeriod: 4s\n"));
  quota("gt-lend", "q", "nvidia.com/gpu: 2", 0);
  apply("apiVersion: gpupool.io/v1alpha1\nkind: TenantQuota\nmetadata:\n  name: q\n  namespace: gt-borrow\nspec:\n"
        "  poolRef: {name: quota}\n  resources: {nvidia.com/gpu: 2}\n  borrowingLimit: {nvidia.com/gpu: 2}\n");
  ASSERT_TRUE(wait_phase("gt-lend", "q", "Granted"));
  ASSERT_TRUE(wait_phase("gt-borrow", "q", "Granted"));
  ASSERT_TRUE(wait_covered("gt-lend") && wait_covered("gt-borrow")) << log_tail("controller.log");
  AdmittedRecorder recorder(*client_, {"gt-lend", "gt-borrow"});

  auto running_in = [&](const std::string& ns) {
    int n = 0;
    for (const auto& p : pods_in({ns})) n += str(p, {"status", "phase"}) == "Running" && !at(p, {"metadata", "deletionTimestamp"});
    return n;
  };
  for (int i = 0; i < 5; ++i) {
    client_->create(kube::ResourceRef{kube::core::pods(), "gt-borrow", "", ""}, gpu_pod("gt-borrow", "b-" + std::to_string(i), 1, R"("terminationGracePeriodSeconds":1,)"));
  }
  ASSERT_TRUE(testenv::wait_until([&] { return running_in("gt-borrow") == 4; }, 60s)) << log_tail("controller.log");
  ASSERT_TRUE(testenv::wait_until([&] {
    auto q = get_quota("gt-borrow", "q");
    return str(q, {"status", "used", "nvidia.com/gpu"}) == "4" && str(q, {"status", "borrowed", "nvidia.com/gpu"}) == "2" &&
           str(q, {"status", "waiting", "nvidia.com/gpu"}) == "1";
  }, 30s)) << kube::to_json(get_quota("gt-borrow", "q"));

  const auto lender_arrives = std::chrono::steady_clock::now();
  for (int i = 0; i < 2; ++i) {
    client_->create(kube::ResourceRef{kube::core::pods(), "gt-lend", "", ""}, gpu_pod("gt-lend", "l-" + std::to_string(i), 1));
  }
  ASSERT_TRUE(testenv::wait_until([&] { return running_in("gt-lend") == 2; }, 60s)) << log_tail("controller.log");
  EXPECT_GE(std::chrono::steady_clock::now() - lender_arrives, 4s) << "reclaim waits the grace period";
  auto not_evicted = [&](const std::string& ns) {
    int n = 0;
    for (const auto& p : pods_in({ns})) n += !at(p, {"metadata", "deletionTimestamp"});
    return n;
  };
  ASSERT_TRUE(testenv::wait_until([&] { return running_in("gt-borrow") == 2 && not_evicted("gt-borrow") == 3; }, 60s));
  // The evicted pods count until they are gone (their grace period, then kwok).
  EXPECT_TRUE(testenv::wait_until([&] {
    auto borrower = get_quota("gt-borrow", "q");
    return str(borrower, {"status", "used", "nvidia.com/gpu"}) == "2" && !at(borrower, {"status", "borrowed", "nvidia.com/gpu"});
  }, 30s)) << kube::to_json(get_quota("gt-borrow", "q"));

  std::string reasons;
  ASSERT_TRUE(testenv::wait_until([&] {
    cluster().kubectl({"get", "events", "-n", "gt-borrow", "--field-selector", "reason=QuotaReclaimed", "-o",
                       "jsonpath={range .items[*]}{.involvedObject.name}{\"\\n\"}{end}"},
                      &reasons);
    return std::count(reasons.begin(), reasons.end(), '\n') == 2;
  }, 30s)) << reasons;
  EXPECT_EQ(recorder.most("gt-borrow"), 4);
  EXPECT_EQ(recorder.most("gt-lend"), 2);
  EXPECT_LE(recorder.most(), 4) << "never more GPUs past the gate than the pool has";
}

// An expired grant under quota.expiry {action: Evict}: its running pods are
// evicted once the grace period after expiresAt has passed, with an Event.
TEST_F(QuotaGateTest, PodsOfAnExpiredGrantAreEvictedAfterTheGracePeriodWhenThePolicySaysSo) {
  fleet(118, 1, {{"pool-test", "quota"}});
  start_controller_with_webhook();
  make_namespace("gt-exp", "");
  ASSERT_NO_FATAL_FAILURE(policy_and_pool("    approval: Automatic\n    expiry: {action: Evict, gracePeriod: 3s}\n", "2"));
  const auto expires_tp = std::chrono::system_clock::now() + 15s;  // time to grant and start the pods first
  const std::string expires = rfc3339(expires_tp);
  apply("apiVersion: gpupool.io/v1alpha1\nkind: TenantQuota\nmetadata:\n  name: q\n  namespace: gt-exp\nspec:\n"
        "  poolRef: {name: quota}\n  resources: {nvidia.com/gpu: 2}\n  expiresAt: \"" + std::string(expires) + "\"\n");
  ASSERT_TRUE(wait_phase("gt-exp", "q", "Granted"));
  ASSERT_TRUE(wait_covered("gt-exp")) << log_tail("controller.log");
  for (int i = 0; i < 2; ++i) {
    client_->create(kube::ResourceRef{kube::core::pods(), "gt-exp", "", ""},
                    gpu_pod("gt-exp", "e-" + std::to_string(i), 1, R"("terminationGracePeriodSeconds":1,)"));
  }
  auto live = [&] {
    int n = 0;
    for (const auto& p : pods_in({"gt-exp"})) n += str(p, {"status", "phase"}) == "Running" && !at(p, {"metadata", "deletionTimestamp"});
    return n;
  };
  ASSERT_TRUE(testenv::wait_until([&] { return live() == 2; }, 60s)) << log_tail("controller.log");
  ASSERT_TRUE(wait_phase("gt-exp", "q", "Expired"));
  ASSERT_TRUE(testenv::wait_until([&] { return live() == 0; }, 60s)) << log_tail("controller.log");
  // expiresAt is written to the second: allow for the truncation.
  EXPECT_GE(std::chrono::system_clock::now(), std::chrono::time_point_cast<std::chrono::seconds>(expires_tp) + 3s)
      << "evicted before the grace period was over";
  std::string reasons;
  ASSERT_TRUE(testenv::wait_until([&] {
    cluster().kubectl({"get", "events", "-n", "gt-exp", "--field-selector", "reason=QuotaExpired", "-o",
                       "jsonpath={.items[*].message}"}, &reasons);
    return reasons.find("expired at " + std::string(expires)) != std::string::npos;
  }, 30s)) << reasons;
}

// Capacity falls under a grant (one node's GPUs go from 2 to 1): the quota
// gets CapacityReduced and a smaller grant; under quota.onCapacityLoss: Evict
// its newest pod above the new grant is evicted with an Event, the others run on.
TEST_F(QuotaGateTest, PodsAboveAReducedGrantAreEvictedWhenThePolicySaysSo) {
  const auto nodes = fleet(122, 2, {{"pool-test", "quota"}});  // 4 nvidia.com/gpu
  start_controller_with_webhook();
  make_namespace("gt-loss", "");
  ASSERT_NO_FATAL_FAILURE(policy_and_pool("    approval: Automatic\n    onCapacityLoss: Evict\n"));
  quota("gt-loss", "q", "nvidia.com/gpu: 4", 0);
  ASSERT_TRUE(wait_phase("gt-loss", "q", "Granted"));
  ASSERT_TRUE(wait_covered("gt-loss")) << log_tail("controller.log");
  auto live = [&] {
    std::set<std::string> names;
    for (const auto& p : pods_in({"gt-loss"})) {
      if (str(p, {"status", "phase"}) == "Running" && !at(p, {"metadata", "deletionTimestamp"})) names.insert(str(p, {"metadata", "name"}));
    }
    return names;
  };
  for (int i = 0; i < 4; ++i) {
    client_->create(kube::ResourceRef{kube::core::pods(), "gt-loss", "", ""},
                    gpu_pod("gt-loss", "c-" + std::to_string(i), 1, R"("terminationGracePeriodSeconds":1,)"));
  }
  ASSERT_TRUE(testenv::wait_until([&] { return live().size() == 4; }, 60s)) << log_tail("controller.log");

  world(nodes[1], "driverVersion: \"550.54.15\"\ngpus: [{model: a100-sxm4-80gb, count: 1}]\n");
  ASSERT_TRUE(wait_pool("quota", 60s, [](const rapidjson::Value& p) { return str(p, {"status", "capacity", "nvidia.com/gpu"}) == "3"; },
                        "the pool's capacity falling to 3"));
  ASSERT_TRUE(testenv::wait_until([&] {
    auto q = get_quota("gt-loss", "q");
    const auto* conds = at(q, {"status", "conditions"});
    bool reduced = false;
    for (rapidjson::SizeType i = 0; conds && conds->IsArray() && i < conds->Size(); ++i) {
      reduced = reduced || (str((*conds)[i], {"type"}) == "CapacityReduced" && str((*conds)[i], {"status"}) == "True");
    }
    return reduced && str(q, {"status", "granted", "nvidia.com/gpu"}) == "3";
  }, 60s)) << kube::to_json(get_quota("gt-loss", "q"));
  // The newest pod (same second: the greatest name) goes; three run on.
  ASSERT_TRUE(testenv::wait_until([&] { return live() == std::set<std::string>{"c-0", "c-1", "c-2"}; }, 60s))
      << log_tail("controller.log");
  std::string evicted;
  ASSERT_TRUE(testenv::wait_until([&] {
    cluster().kubectl({"get", "events", "-n", "gt-loss", "--field-selector", "reason=QuotaCapacityLost", "-o",
                       "jsonpath={range .items[*]}{.involvedObject.name}{\"\\n\"}{end}"}, &evicted);
    return !evicted.empty();
  }, 30s));
  EXPECT_EQ(evicted, "c-3\n");
}

// Pods that get GPUs through DRA claims: gated, charged through the policy's
// deviceClasses mapping, admitted within the grant; a pod whose claims ask
// for a class no policy maps is let go at once.
TEST_F(QuotaGateTest, DraClaimsAreChargedThroughTheDeviceClassMapping) {
  fleet(119, 1, {{"pool-test", "quota"}});
  start_controller_with_webhook();
  make_namespace("gt-dra", "");
  ASSERT_NO_FATAL_FAILURE(
      policy_and_pool("    approval: Automatic\n    deviceClasses: {gpu.example.com: nvidia.com/gpu}\n", "2"));
  quota("gt-dra", "q", "nvidia.com/gpu: 1", 0);
  ASSERT_TRUE(wait_phase("gt-dra", "q", "Granted"));
  ASSERT_TRUE(wait_covered("gt-dra")) << log_tail("controller.log");
  for (const auto& [name, cls] : {std::pair{"one-gpu", "gpu.example.com"}, std::pair{"one-nic", "nic.example.com"}}) {
    apply(std::string("apiVersion: resource.k8s.io/v1\nkind: ResourceClaimTemplate\nmetadata:\n  name: ") + name +
          "\n  namespace: gt-dra\nspec:\n  spec:\n    devices:\n      requests:\n      - name: d\n        exactly:\n"
          "          deviceClassName: " + cls + "\n          count: 1\n");
  }
  auto claim_pod = [](const std::string& name, const std::string& claim_template) {
    return R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":")" + name + R"(","namespace":"gt-dra"},"spec":{)"
           R"("resourceClaims":[{"name":"d","resourceClaimTemplateName":")" + claim_template + R"("}],)"
           R"("containers":[{"name":"c","image":"busybox","resources":{"claims":[{"name":"d"}]}}]}})";
  };
  const kube::ResourceRef pods{kube::core::pods(), "gt-dra", "", ""};
  for (const char* name : {"gpu-0", "gpu-1"}) client_->create(pods, claim_pod(name, "one-gpu"));
  client_->create(pods, claim_pod("nic", "one-nic"));

  ASSERT_TRUE(testenv::wait_until([&] {
    auto q = get_quota("gt-dra", "q");
    return str(q, {"status", "used", "nvidia.com/gpu"}) == "1" && str(q, {"status", "waiting", "nvidia.com/gpu"}) == "1";
  }, 60s)) << kube::to_json(get_quota("gt-dra", "q")) << "\n" << log_tail("controller.log");
  int gated = 0, pinned = 0;
  for (const auto& p : pods_in({"gt-dra"})) {
    const std::string name = str(p, {"metadata", "name"});
    if (name == "nic") continue;
    gated += has_gate(p);
    pinned += str(p, {"spec", "nodeSelector", "gpupool.io/pool"}) == "quota";
  }
  EXPECT_EQ(gated, 1);
  EXPECT_EQ(pinned, 1);
  ASSERT_TRUE(testenv::wait_until([&] { return !has_gate(get(kube::ResourceRef{kube::core::pods(), "gt-dra", "", ""}, "nic")); },
                                  30s))
      << "a pod whose claims are not GPUs is let go";
  EXPECT_FALSE(at(get(kube::ResourceRef{kube::core::pods(), "gt-dra", "", ""}, "nic"), {"spec", "nodeSelector", "gpupool.io/pool"}));
}

// With the webhook unreachable, the API server's admission policy still
// refuses a GPU pod created without the gate in a covered namespace; pods
// without GPUs, and GPU pods that carry the gate themselves, are admitted.
TEST_F(QuotaGateTest, WithTheWebhookDownUngatedGpuPodsAreRefusedOthersAdmitted) {
  fleet(115, 1, {{"pool-test", "quota"}});
  start_controller_with_webhook();
  make_namespace("gt-down", "");
  ASSERT_NO_FATAL_FAILURE(policy_and_pool("    approval: Automatic\n", "2"));
  quota("gt-down", "q", "nvidia.com/gpu: 1", 0);
  ASSERT_TRUE(wait_covered("gt-down")) << log_tail("controller.log");

  controller_.reset();  // the webhook server goes with it; its configurations stay
  const kube::ResourceRef pods{kube::core::pods(), "gt-down", "", ""};
  // The API server loads policies asynchronously: wait (dry runs) until it applies the binding.
  kube::WriteOptions dry;
  dry.dry_run = true;
  std::string last;
  EXPECT_TRUE(testenv::wait_until([&] {
    try {
      client_->create(pods, gpu_pod("gt-down", "probe", 1), dry);
      last = "admitted";
      return false;
    } catch (const kube::ApiError& e) {
      last = e.what();
      return true;
    }
  }, 30s)) << last;
  try {
    client_->create(pods, gpu_pod("gt-down", "ungated", 1));
    ADD_FAILURE() << "an ungated GPU pod was admitted";
  } catch (const kube::ApiError& e) {
    EXPECT_TRUE(e.is_forbidden() || e.is_invalid()) << e.what();
    EXPECT_NE(std::string(e.what()).find("gpupool-quota-gate"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("spec.schedulingGates must hold gpupool.io/quota"), std::string::npos) << e.what();
  }
  EXPECT_NO_THROW(client_->create(pods, gpu_pod("gt-down", "no-gpu", 0)));
  EXPECT_NO_THROW(client_->create(pods, gpu_pod("gt-down", "self-gated", 1, R"("schedulingGates":[{"name":"gpupool.io/quota"}],)")));
  try {
    client_->create(pods, gpu_pod("gt-down", "bound", 1, R"("schedulingGates":[{"name":"gpupool.io/quota"}],"nodeName":"x",)"));
    ADD_FAILURE() << "a GPU pod naming its node was admitted";
  } catch (const kube::ApiError& e) {
    EXPECT_TRUE(e.is_forbidden() || e.is_invalid()) << e.what();
  }

  // A namespace no quota covers is not touched at all.
  make_namespace("gt-free", "");
  EXPECT_NO_THROW(client_->create(kube::ResourceRef{kube::core::pods(), "gt-free", "", ""}, gpu_pod("gt-free", "free", 1)));
}

// The usage a controller wrote stays in a quota's status while no controller
// runs; a restarted one rewrites it from the pods as they are then: here
// none, both deleted meanwhile, so no pod event names the quota.
TEST_F(QuotaGateTest, ARestartedControllerCorrectsUsageLeftByPodsDeletedWhileItWasDown) {
  fleet(117, 1, {{"pool-test", "quota"}});  // 2 nvidia.com/gpu
  start_controller_with_webhook();
  make_namespace("gt-restart", "");
  ASSERT_NO_FATAL_FAILURE(policy_and_pool("    approval: Automatic\n", "2"));
  quota("gt-restart", "q", "nvidia.com/gpu: 2", 0);
  ASSERT_TRUE(wait_phase("gt-restart", "q", "Granted"));
  ASSERT_TRUE(wait_covered("gt-restart")) << log_tail("controller.log");
  const kube::ResourceRef pods{kube::core::pods(), "gt-restart", "", ""};
  for (const char* name : {"a", "b"}) ASSERT_NO_THROW(client_->create(pods, gpu_pod("gt-restart", name, 1)));
  auto used = [&] { return str(get_quota("gt-restart", "q"), {"status", "used", "nvidia.com/gpu"}); };
  ASSERT_TRUE(testenv::wait_until([&] { return used() == "2"; }, 60s))
      << kube::to_json(get_quota("gt-restart", "q")) << "\n" << log_tail("controller.log");

  controller_.reset();
  kube::DeleteOptions now;
  now.grace_period_seconds = 0;
  for (const char* name : {"a", "b"}) client_->remove(pods.with_name(name), now);
  ASSERT_TRUE(testenv::wait_until([&] { return pods_in({"gt-restart"}).empty(); }, 30s));
  EXPECT_EQ(used(), "2") << "no controller ran: the status still shows the deleted pods";

  start_controller_with_webhook();
  EXPECT_TRUE(testenv::wait_until([&] { return !at(get_quota("gt-restart", "q"), {"status", "used"}); }, 60s))
      << kube::to_json(get_quota("gt-restart", "q")) << "\n" << log_tail("controller.log");
}

}  // namespace
}  // namespace gpupool::test
