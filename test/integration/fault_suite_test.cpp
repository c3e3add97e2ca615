// The fault suite: while a pool rolls a new driver out over 8 nodes
// (maxUnavailable 2) and two tenants keep creating GPU pods against their
// grants, production's faults strike one after another:
// - all along, the agents and both controller replicas talk to the API
//   server through the fault proxy, which answers a share of requests with
//   429, 500 and (writes) 409 and cuts every connection, watches included,
//   at random moments;
// - an agent is SIGKILLed while its node is being disrupted, and restarted;
// - etcd and kube-apiserver are restarted (state on disk);
// - the leading controller's webhook becomes unreachable for a while;
// - the leading controller is SIGKILLed (the standby takes over).
// Afterwards every status is right, no process crashed and nothing the test
// created is lost; recorders watching throughout prove that maxUnavailable
// was never exceeded and that no tenant held more than its grant at any
// moment. The faults' choices (proxy draws, which agent, when the cuts
// come, how long the outage) come from one seed, printed; set
// GPUPOOL_FAULT_SEED to repeat a run.
#include <gtest/gtest.h>

#include <atomic>
#include <csignal>
#include <fstream>
#include <sstream>
#include <cstdlib>
#include <iostream>
#include <mutex>
#include <random>
#include <thread>

#include "gpupool/common/stoppable_sleep.h"
#include "gpupool/faultproxy/fault_proxy.h"
#include "gpupool/kube/base64.h"
#include "gpupool/testenv/serving_cert.h"
#include "gpupool/webhook/certificates.h"
#include "support/quota_fixture.h"
#include "support/recorders.h"

namespace gpupool::test {
namespace {

constexpr int kNodeCount = 8;
constexpr int kMaxUnavailable = 2;
constexpr int kGrant = 4;  // nvidia.com/gpu per tenant
const std::vector<std::string> kTenantNamespaces = {"fault-a", "fault-b"};
constexpr const char* kNewDriver = "560.35.03";

std::uint64_t fault_seed() {
  if (const char* s = std::getenv("GPUPOOL_FAULT_SEED"); s && *s) return std::stoull(s);
  return std::random_device{}();
}

std::string tenant_pod(const std::string& ns, const std::string& name) {
  return R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":")" + name + R"(","namespace":")" + ns +
         R"("},"spec":{"tolerations":[{"operator":"Exists"}],"containers":[{"name":"c","image":"busybox",)"
         R"("resources":{"limits":{"nvidia.com/gpu":"1"}}}]}})";
}

// The load and fault threads' rhythm (not a wait for a condition): false
// once stopped.
bool pause_for(std::chrono::milliseconds d, std::stop_token stop) { return common::sleep_for(d, stop); }

class FaultSuiteTest : public QuotaTest {
 protected:
  // One controller replica as a Deployment would keep it: restarted when it
  // exits, each run with its own log.
  struct Replica {
    int serve_port = 0;    // its webhook server
    int webhook_port = 0;  // its webhook proxy: the URL it tells the API server
    std::unique_ptr<testenv::Process> proc;
    std::string log;  // the current run's
    int runs = 0;
    bool held = false;  // killed by the test: not restarted until it says so
  };

  void TearDown() override {
    supervisor_ = {};
    for (auto& r : replicas_) r.proc.reset();
    webhook_proxies_.clear();
    QuotaTest::TearDown();
    api_proxy_.reset();
  }

  // Starts replica `i` (its next run): leader election, the API server
  // through the fault proxy, its webhook behind its own proxy, certificates
  // from the Secret (as cert-manager keeps them). Lease 6 s, renew deadline
  // 4 s: shorter than the defaults, long enough for a loaded machine.
  void start_replica(int i) {
    Replica& r = replicas_[i];
    r.log = "controller-" + std::to_string(i) + "." + std::to_string(++r.runs) + ".log";
    testenv::SpawnSpec spec;
    spec.path = GPUPOOL_CONTROLLER_BIN;
    spec.args = {"--kubeconfig", components_kubeconfig(), "--metrics-bind-address=0", "--health-probe-bind-address=0",
                 "--log-format=json", "--agent-namespace", "gpupool-system",
                 "--webhook-bind-address", "127.0.0.1:" + std::to_string(r.serve_port),
                 "--webhook-url", "https://127.0.0.1:" + std::to_string(r.webhook_port),
                 "--webhook-cert-source", "secret", "--webhook-secret", "gpupool-system/fault-webhook-tls",
                 "--leader-elect", "--leader-election-namespace", "gpupool-system", "--leader-elect-lease-duration=6",
                 "--leader-elect-renew-deadline=4", "--leader-elect-retry-period=0.5"};
    spec.log_file = dir_ + "/" + r.log;
    webhooks_started_ = true;
    r.proc = std::make_unique<testenv::Process>(testenv::Process::spawn(spec));
  }

  // Restarts replicas that exited, as a Deployment would. A replica that
  // lost its lease exits 1 by design ("leadership lost"); any other exit is
  // a crash, kept in crashes_.
  void supervise(std::stop_token stop) {
    while (pause_for(200ms, stop)) {
      std::lock_guard lock(replicas_mu_);
      for (int i = 0; i < 2; ++i) {
        Replica& r = replicas_[i];
        if (!r.proc || r.held || r.proc->running()) continue;
        const int status = r.proc->exit_status().value_or(-1);
        if (status == 1 && whole_log(r.log).find("leadership lost; exiting") != std::string::npos) {
          ++leadership_exits_;
        } else {
          crashes_.push_back(r.log + " exited with status " + std::to_string(status) + "\n" + log_tail(r.log));
        }
        start_replica(i);
      }
    }
  }

  // The whole log of a run (log_tail() is only its end).
  std::string whole_log(const std::string& log) {
    std::ifstream in(dir_ + "/" + log);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  }
  // The leader-election identity a run logged when it started.
  std::string identity_of(const std::string& log) {
    const std::string text = whole_log(log);
    const auto at_id = text.find("identity ");
    if (at_id == std::string::npos) return "";
    const auto from = at_id + 9;
    return text.substr(from, text.find_first_of(")\" ", from) - from);
  }
  // The identity holding the controller's leader Lease now ("" when none).
  std::string lease_holder() {
    try {
      return str(client_->get(kube::ResourceRef{{"coordination.k8s.io", "v1", "leases"}, "gpupool-system",
                                                "gpupool-controller.gpupool.io", ""}),
                 {"spec", "holderIdentity"});
    } catch (const kube::ApiError&) {
      return "";
    }
  }
  // Which replica's current run holds the Lease; -1: none.
  int leading_replica() {
    const std::string holder = lease_holder();
    std::lock_guard lock(replicas_mu_);
    for (int i = 0; i < 2; ++i) {
      if (!holder.empty() && replicas_[i].proc && holder == identity_of(replicas_[i].log)) return i;
    }
    return -1;
  }

  std::unique_ptr<faultproxy::FaultProxy> api_proxy_;
  std::vector<std::unique_ptr<faultproxy::FaultProxy>> webhook_proxies_;
  std::mutex replicas_mu_;
  Replica replicas_[2];
  std::vector<std::string> crashes_;  // under replicas_mu_
  int leadership_exits_ = 0;          // under replicas_mu_
  std::jthread supervisor_;
};

TEST_F(FaultSuiteTest, ARolloutAndTenantsLoseNothingAndBreakNoLimitUnderFaults) {
  const std::uint64_t seed = fault_seed();
  std::cout << "fault seed: " << seed << " (GPUPOOL_FAULT_SEED=" << seed << " repeats these faults)" << std::endl;
  RecordProperty("fault_seed", std::to_string(seed));
  std::mt19937_64 rng(seed);

  // The API fault proxy, trusted like the apiserver (a certificate from its CA).
  {
    const testenv::ServingCert cert = testenv::issue_serving_cert(cluster());
    faultproxy::Options po;
    po.upstream_url = cluster().server();
    po.upstream_ca_pem = cluster().ca_pem();
    po.cert_pem = cert.cert_pem;
    po.key_pem = cert.key_pem;
    po.seed = seed;
    po.max_connections = 512;
    api_proxy_ = std::make_unique<faultproxy::FaultProxy>(po);
  }
  components_kubeconfig_ = cluster().kubeconfig_for(testenv::kAdminUser, api_proxy_->url());

  // The webhook's certificate, as cert-manager would keep it; each replica's
  // webhook sits behind a proxy serving the same certificate.
  webhook::SubjectNames names;
  names.ip_addresses = {"127.0.0.1"};
  const webhook::CertificateBundle tls = webhook::generate_bundle(names);
  cluster().kubectl_result({"create", "namespace", "gpupool-system"});
  {
    auto b64 = [](const std::string& pem) { return "\"" + kube::base64_encode(pem) + "\""; };
    client_->create(kube::ResourceRef{kube::core::secrets(), "gpupool-system", "", ""},
                    R"({"apiVersion":"v1","kind":"Secret","type":"kubernetes.io/tls","metadata":{"name":"fault-webhook-tls"},)"
                    R"("data":{"tls.crt":)" + b64(tls.cert_pem) + R"(,"tls.key":)" + b64(tls.key_pem) + R"(,"ca.crt":)" +
                        b64(tls.ca_cert_pem) + "}}");
  }
  const auto ports = testenv::pick_free_ports(4);
  for (int r = 0; r < 2; ++r) {
    faultproxy::Options wo;
    wo.upstream_url = "https://127.0.0.1:" + std::to_string(ports[r]);
    wo.upstream_ca_pem = tls.ca_cert_pem;
    wo.cert_pem = tls.cert_pem;
    wo.key_pem = tls.key_pem;
    wo.listen = "127.0.0.1:" + std::to_string(ports[2 + r]);
    webhook_proxies_.push_back(std::make_unique<faultproxy::FaultProxy>(wo));
  }

  const auto names_of_nodes = fleet(0, kNodeCount, {{"pool-test", "quota"}},
                                    "driverVersion: \"550.54.15\"\ngpus: [{model: a100-sxm4-80gb, count: 2}]\ninstall: {seconds: 4}\n");
  std::map<std::string, testenv::Process*> agent_of;
  for (std::size_t i = 0; i < names_of_nodes.size(); ++i) agent_of[names_of_nodes[i]] = agents_.at(i).get();

  // Replica 0 leads (started first), replica 1 stands by.
  for (int i = 0; i < 2; ++i) {
    replicas_[i].serve_port = ports[i];
    replicas_[i].webhook_port = ports[2 + i];
  }
  start_replica(0);
  ASSERT_TRUE(testenv::wait_until([&] { return leading_replica() == 0; }, 60s)) << log_tail(replicas_[0].log);
  start_replica(1);
  supervisor_ = std::jthread([this](std::stop_token stop) { supervise(stop); });

  for (const auto& ns : kTenantNamespaces) make_namespace(ns, "gpupool.io/tenant: " + ns);
  ASSERT_NO_FATAL_FAILURE(policy_and_pool("    approval: Automatic\n", std::to_string(2 * kNodeCount)));
  for (const auto& ns : kTenantNamespaces) {
    apply("apiVersion: gpupool.io/v1alpha1\nkind: TenantQuota\nmetadata:\n  name: train\n  namespace: " + ns +
          "\nspec:\n  poolRef: {name: quota}\n  resources: {nvidia.com/gpu: " + std::to_string(kGrant) + "}\n");
    ASSERT_TRUE(wait_phase(ns, "train", "Granted"));
  }
  ASSERT_TRUE(testenv::wait_until([&] {
    try {
      const std::string m = kube::to_json(client_->get(kube::ResourceRef{
          {"admissionregistration.k8s.io", "v1", "mutatingwebhookconfigurations"}, "", "gpupool-mutating-webhook", ""}));
      return std::all_of(kTenantNamespaces.begin(), kTenantNamespaces.end(),
                         [&](const std::string& ns) { return m.find('"' + ns + '"') != std::string::npos; });
    } catch (const kube::ApiError&) {
      return false;
    }
  }, 60s)) << "the gate never covered the tenants\n" << log_tail("controller.log");

  // The recorders watch the API server directly (not through the proxy).
  DisruptionRecorder disruption(*client_, std::set<std::string>(names_of_nodes.begin(), names_of_nodes.end()));
  AdmittedRecorder admitted(*client_, {kTenantNamespaces.begin(), kTenantNamespaces.end()});

  // Tenants create 1-GPU pods, two a second each, directly; a pod counts as
  // created once the API server said so (201, or 409 for a retry of one it
  // had created).
  std::mutex created_mu;
  std::vector<std::string> created;  // "namespace/name"
  std::vector<std::pair<std::chrono::steady_clock::time_point, std::string>> refusals;
  std::vector<std::jthread> tenants;
  for (const auto& ns : kTenantNamespaces) {
    tenants.emplace_back([&, ns](std::stop_token stop) {
      kube::Client c(rest_config(cluster(), cluster().admin_token()));
      for (int i = 0; i < 400 && !stop.stop_requested(); ++i) {
        const std::string name = "job-" + std::to_string(i);
        for (;;) {
          try {
            c.create(kube::ResourceRef{kube::core::pods(), ns, "", ""}, tenant_pod(ns, name));
          } catch (const kube::ApiError& e) {
            if (e.code() != 409) {
              std::lock_guard lock(created_mu);
              refusals.emplace_back(std::chrono::steady_clock::now(), e.what());
              if (pause_for(250ms, stop)) continue;
              return;
            }
          } catch (const std::exception& e) {  // the API server away
            {
              std::lock_guard lock(created_mu);
              refusals.emplace_back(std::chrono::steady_clock::now(), e.what());
            }
            if (pause_for(250ms, stop)) continue;
            return;
          }
          std::lock_guard lock(created_mu);
          created.push_back(ns + "/" + name);
          break;
        }
        if (!pause_for(500ms, stop)) return;
      }
    });
  }

  // The rollout starts (the tenants' bare pods are evicted: drain.force); the
  // proxy's error shares and cuts begin with it.
  client_->patch(kPools.with_name("quota"), kube::PatchType::MergePatch,
                 std::string(R"({"spec":{"driver":{"version":")") + kNewDriver +
                     R"(","installer":{"kind":"container","image":"nvcr.io/nvidia/driver:560.35.03"},)"
                     R"("upgradeStrategy":{"drain":{"force":true},"maxUnavailable":)" + std::to_string(kMaxUnavailable) + "}}}}");
  api_proxy_->set_error_share(429, 0.03);
  api_proxy_->set_error_share(500, 0.03);
  api_proxy_->set_error_share(409, 0.05, faultproxy::Fault::kDefaultRetryAfter, {.method = "PATCH"});
  api_proxy_->set_error_share(409, 0.05, faultproxy::Fault::kDefaultRetryAfter, {.method = "PUT"});
  const std::uint64_t cut_seed = rng();
  std::atomic<int> cuts{0};
  std::jthread cutter([&, cut_seed](std::stop_token stop) {
    std::mt19937_64 r(cut_seed);
    while (pause_for(std::chrono::milliseconds(500 + r() % 2000), stop)) {
      api_proxy_->cut_connections();
      ++cuts;
    }
  });

  auto updated = [&] {
    int n = 0;
    for (const auto& node : names_of_nodes) {
      try {
        n += str(get(kGpuNodes, node), {"status", "driverVersion"}) == kNewDriver ? 1 : 0;
      } catch (const std::exception&) {
      }
    }
    return n;
  };

  // 1. An agent dies (SIGKILL) while its node is disrupted, and comes back.
  std::string victim;
  ASSERT_TRUE(testenv::wait_until([&] {
    std::vector<std::string> disrupted;
    for (const auto& node : names_of_nodes) {
      try {
        if (flag(get(kNodes, node), {"spec", "unschedulable"}) && flag(get(kGpuNodes, node), {"spec", "disruptionAllowed"})) {
          disrupted.push_back(node);
        }
      } catch (const std::exception&) {
      }
    }
    if (disrupted.empty()) return false;
    victim = disrupted[rng() % disrupted.size()];
    return true;
  }, 120s)) << "no node was ever disrupted\n" << log_tail("controller.log");
  std::cout << "fault: SIGKILL the agent of " << victim << std::endl;
  agent_of[victim]->signal(SIGKILL);
  ASSERT_TRUE(agent_of[victim]->wait_until(std::chrono::steady_clock::now() + 10s));
  start_agent(victim);
  agent_of[victim] = agents_.back().get();

  // 2. etcd and kube-apiserver restart (their data stays on disk).
  std::cout << "fault: restart etcd and kube-apiserver" << std::endl;
  cluster().restart_etcd_and_apiserver();

  // 3. The webhook is unreachable for a while (whichever replica leads: the
  // configuration names the leader's).
  const auto outage = std::chrono::milliseconds(4000 + rng() % 4000);
  std::cout << "fault: the webhook unreachable for " << outage.count() << " ms" << std::endl;
  const auto outage_start = std::chrono::steady_clock::now();
  for (auto& p : webhook_proxies_) p->refuse_for(outage);
  const auto outage_end = outage_start + outage;
  auto refused_since = [&](std::chrono::steady_clock::time_point t0) {
    std::lock_guard lock(created_mu);
    return std::any_of(refusals.begin(), refusals.end(), [&](const auto& r) { return r.first >= t0; });
  };
  EXPECT_TRUE(testenv::wait_until([&] { return refused_since(outage_start); }, outage + 5s))
      << "no pod creation was refused while the webhook was unreachable";

  // 4. The leader dies (SIGKILL, no release); the other replica takes over.
  // Which one leads by now depends on the faults before (a replica may have
  // lost its lease and been restarted): the Lease says.
  int leader = -1;
  ASSERT_TRUE(testenv::wait_until([&] { return (leader = leading_replica()) >= 0; }, 60s))
      << "no replica holds the Lease: " << lease_holder();
  const int survivor = 1 - leader;
  std::string leader_log, survivor_identity;
  {
    std::lock_guard lock(replicas_mu_);
    replicas_[leader].held = true;
    leader_log = replicas_[leader].log;
    survivor_identity = identity_of(replicas_[survivor].log);
  }
  const int updated_before_leader_kill = updated();
  std::cout << "fault: SIGKILL the leading controller, " << leader_log << " (" << updated_before_leader_kill << " of "
            << kNodeCount << " nodes updated)" << std::endl;
  replicas_[leader].proc->signal(SIGKILL);
  ASSERT_TRUE(replicas_[leader].proc->wait_until(std::chrono::steady_clock::now() + 10s));
  ASSERT_TRUE(testenv::wait_until([&] { return leading_replica() == survivor; }, 60s))
      << "the standby never took the Lease (holder " << lease_holder() << ")\n" << log_tail(replicas_[survivor].log);
  {
    std::lock_guard lock(replicas_mu_);  // back, as its Deployment would have it, now a standby
    replicas_[leader].held = false;
    start_replica(leader);
  }
  EXPECT_LT(updated_before_leader_kill, kNodeCount) << "the rollout ended before the last fault: the suite proved less than it says";

  // 5. A rolling update of the Deployment and the DaemonSet: the new leader
  // and an agent are stopped with SIGTERM while the rollout and the tenants
  // go on, and must exit 0 (a crash at exit, like the use-after-free of
  // informers outliving their reconcilers, shows here), then come back.
  {
    std::lock_guard lock(replicas_mu_);
    replicas_[survivor].held = true;
  }
  std::cout << "fault: SIGTERM the leading controller, " << replicas_[survivor].log << std::endl;
  const int leader_exit = replicas_[survivor].proc->terminate(30s);
  EXPECT_EQ(leader_exit, 0) << replicas_[survivor].log << "\n" << log_tail(replicas_[survivor].log);
  {
    std::lock_guard lock(replicas_mu_);
    replicas_[survivor].held = false;
    start_replica(survivor);
  }
  const std::string stopped_agent = names_of_nodes[rng() % names_of_nodes.size()];
  std::cout << "fault: SIGTERM the agent of " << stopped_agent << std::endl;
  EXPECT_EQ(agent_of[stopped_agent]->terminate(30s), 0) << stopped_agent << "\n" << log_tail(stopped_agent + ".log");
  start_agent(stopped_agent);
  agent_of[stopped_agent] = agents_.back().get();

  // The faults stop; everything must converge.
  cutter.request_stop();
  cutter.join();
  api_proxy_->reset();
  ASSERT_TRUE(wait_pool("quota", 240s, [&](const rapidjson::Value& p) {
    return condition(p, "Ready") == "True" && at(p, {"status", "rollout", "updated"}) &&
           p["status"]["rollout"]["updated"].GetInt() == kNodeCount;
  }, "the rollout finished after the faults"));
  for (auto& t : tenants) t.request_stop();
  tenants.clear();

  // Every node: the new driver, permission withdrawn, not cordoned. The
  // agent uncordons its node once the permission is withdrawn, which may be
  // a moment after the pool counts the node updated.
  for (const auto& node : names_of_nodes) {
    auto g = get(kGpuNodes, node);
    EXPECT_EQ(str(g, {"status", "driverVersion"}), kNewDriver) << node;
    EXPECT_FALSE(flag(g, {"spec", "disruptionAllowed"})) << node;
    EXPECT_TRUE(testenv::wait_until([&] { return !flag(get(kNodes, node), {"spec", "unschedulable"}); }, 30s))
        << node << " still cordoned\n" << log_tail(node + ".log");
  }
  auto pool = get(kPools, "quota");
  EXPECT_EQ(pool["status"]["nodes"]["total"].GetInt(), kNodeCount);
  EXPECT_EQ(pool["status"]["nodes"]["ready"].GetInt(), kNodeCount);

  // The limits held at every moment.
  const auto [most_disrupted, when] = disruption.worst();
  EXPECT_LE(most_disrupted, kMaxUnavailable) << "more than maxUnavailable nodes disrupted " << when;
  EXPECT_GE(most_disrupted, 1) << "the recorder saw no disruption (" << disruption.seen() << " events)";
  for (const auto& ns : kTenantNamespaces) {
    EXPECT_LE(admitted.most(ns), kGrant) << "tenant " << ns << " held more than its grant at some moment";
    EXPECT_GE(admitted.most(ns), 1) << "tenant " << ns << " never got a GPU";
  }

  // Nothing lost: every pod the API server accepted is there, unless it had
  // been bound to a node and was evicted by a drain (the only deleter here).
  std::map<std::string, rapidjson::Document> now;
  for (const auto& ns : kTenantNamespaces) {
    auto list = client_->list(kube::ResourceRef{kube::core::pods(), ns, "", ""});
    for (const auto& p : list["items"].GetArray()) {
      rapidjson::Document d;
      d.CopyFrom(p, d.GetAllocator());
      now.emplace(ns + "/" + str(p, {"metadata", "name"}), std::move(d));
    }
  }
  int evicted = 0;
  ASSERT_FALSE(created.empty());
  for (const auto& key : created) {
    if (now.count(key)) continue;
    ++evicted;
    EXPECT_NE(admitted.bound_to(key), "") << key << " was created, is gone, and was never bound to a node: lost";
  }
  EXPECT_GT(evicted, 0) << "no tenant pod was evicted by the rollout's drains";

  // What the webhook outage refused (told the tenant at once, not half made).
  int refused_in_outage = 0;
  std::string a_refusal;
  for (const auto& [t, what] : refusals) {
    if (t < outage_start || t > outage_end + 2s) continue;
    ++refused_in_outage;
    a_refusal = what;
  }
  std::cout << refused_in_outage << " creations refused during the webhook outage, e.g.: " << a_refusal << std::endl;

  // Every quota's status: used = the GPUs of its admitted pods, waiting = the
  // rest.
  for (const auto& ns : kTenantNamespaces) {
    std::string last;
    EXPECT_TRUE(testenv::wait_until([&] {
      int used = 0, waiting = 0;
      const auto pods = client_->list(kube::ResourceRef{kube::core::pods(), ns, "", ""});
      for (const auto& p : pods["items"].GetArray()) {
        (has_gate(p) ? waiting : used) += gpus_of(p);
      }
      auto q = get_quota(ns, "train");
      last = kube::to_json(q["status"]) + " against pods: used " + std::to_string(used) + ", waiting " + std::to_string(waiting);
      return str(q, {"status", "used", "nvidia.com/gpu"}) == std::to_string(used) &&
             str(q, {"status", "waiting", "nvidia.com/gpu"}) == std::to_string(waiting) && used == kGrant;
    }, 60s)) << ns << ": " << last << "\n" << log_tail(replicas_[survivor].log);
  }

  // No process crashed: replicas exited only when killed or when they lost
  // their lease (by design); every agent runs; the control plane too.
  supervisor_ = {};
  {
    std::lock_guard lock(replicas_mu_);
    EXPECT_TRUE(crashes_.empty()) << crashes_.size() << " controller crash(es), first: " << crashes_.front();
    for (auto& r : replicas_) EXPECT_TRUE(r.proc->running()) << log_tail(r.log);
    std::cout << leadership_exits_ << " replica exit(s) after losing the lease, restarted" << std::endl;
  }
  for (const auto& [node, agent] : agent_of) EXPECT_TRUE(agent->running()) << node << "\n" << log_tail(node + ".log");
  EXPECT_TRUE(cluster().running());

  const auto stats = api_proxy_->stats();
  std::cout << "fault proxy: " << stats.requests << " requests, " << stats.injected << " answered with an error, " << cuts.load()
            << " cuts (" << stats.cut << " connections); " << created.size() << " pods created, " << evicted
            << " evicted, " << refusals.size() << " creations refused; seed " << seed << std::endl;
  EXPECT_GT(stats.injected, 0u);
}

}  // namespace
}  // namespace gpupool::test
