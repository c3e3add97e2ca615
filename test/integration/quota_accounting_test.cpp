// TenantQuota usage kept incrementally by the controller (usage_ledger.h, fed
// by its pod informer) against a full recount, on the real control plane:
// after 10,000 random pod creations, phase changes and deletions from several
// clients at once, while the controller admits pods past the gate
// gpupool.io/quota on its own, each quota's status.used and status.waiting
// settle on what charging.h's rules give for a fresh LIST of the pods.
//
// The operations come from a seeded std::mt19937 (the seed is printed; set
// GPUPOOL_QUOTA_ACCOUNTING_SEED to replay a run's choices, though not the
// interleaving of its threads; GPUPOOL_QUOTA_ACCOUNTING_OPS changes the count).
// Phase changes the API server refuses are counted, not failures (v1.37.2
// refuses none of these: a pod's status.phase may leave Succeeded or Failed).
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <iostream>
#include <map>
#include <mutex>
#include <random>
#include <sstream>
#include <thread>

#include "gpupool/api/quantity.h"
#include "gpupool/kube/json_projection.h"
#include "gpupool/quota/charging.h"
#include "support/quota_fixture.h"

namespace gpupool::test {
namespace {

constexpr const char* kTenantNamespaces[] = {"qacct-a1", "qacct-a2", "qacct-a3"};  // tenant acct-a, quota "devices"
constexpr const char* kUnitsNamespace = "qacct-b";                                    // its own tenant, quota "units"
constexpr const char* kFreeNamespace = "qacct-free";                                  // no quota covers it
constexpr const char* kNever = "quota-accounting.test/never";  // a node label no node has: pods stay unbound
constexpr const char* kHold = "quota-accounting.test/hold";    // a scheduling gate of someone else

std::uint32_t env_or(const char* name, std::uint32_t fallback) {
  const char* v = std::getenv(name);
  return v && *v ? static_cast<std::uint32_t>(std::stoul(v)) : fallback;
}

// A random pod: no GPUs (sometimes), or nvidia.com/gpu 0-3 in one or two
// containers and sometimes an init container (a sidecar now and then); the
// gate already in the spec sometimes, another gate sometimes; pinned to the
// pool or to a pool no quota is in sometimes. Most pods select a node label
// no node has, so they stay Pending and only this test sets their phase; the
// others may run on the kwok nodes once admitted.
struct PodMaker {
  std::mt19937& rng;
  bool chance(double p) { return std::uniform_real_distribution<double>(0, 1)(rng) < p; }
  int between(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); }

  std::string container(const std::string& name, const std::string& resource, int count, bool gpu, bool sidecar) {
    std::string res;
    if (!gpu) {
      res = R"({"requests":{"cpu":"10m"}})";
    } else {
      const std::string q = "\"" + resource + "\":\"" + std::to_string(count) + "\"";
      res = chance(0.5) ? "{\"limits\":{" + q + "}}" : "{\"requests\":{" + q + "},\"limits\":{" + q + "}}";
    }
    return R"({"name":")" + name + R"(","image":"busybox")" + (sidecar ? R"(,"restartPolicy":"Always")" : "") +
           R"(,"resources":)" + res + "}";
  }

  std::string pod(const std::string& ns, const std::string& name, std::map<std::string, int>& kinds) {
    const bool gpu = !chance(0.15);
    const std::string resource = ns == kUnitsNamespace && chance(0.1) ? "nvidia.com/mig-1g.10gb" : "nvidia.com/gpu";
    ++kinds[gpu ? (resource == "nvidia.com/gpu" ? "gpu" : "mig") : "cpu-only"];
    std::string spec = R"("terminationGracePeriodSeconds":0,"tolerations":[{"operator":"Exists"}],)";

    std::vector<std::string> gates;
    if (chance(0.2)) gates.push_back(quota::kQuotaGate), ++kinds["self-gated"];
    if (chance(0.08)) gates.push_back(kHold), ++kinds["other-gate"];
    if (!gates.empty()) {
      std::string g;
      for (const auto& x : gates) g += (g.empty() ? "" : ",") + std::string(R"({"name":")") + x + "\"}";
      spec += R"("schedulingGates":[)" + g + "],";
    }

    std::string selector;
    if (chance(0.9)) selector += "\"" + std::string(kNever) + "\":\"true\"";
    else ++kinds["schedulable"];
    if (chance(0.12)) {
      const bool elsewhere = chance(0.35);
      selector += std::string(selector.empty() ? "" : ",") + R"("gpupool.io/pool":")" +
                  (elsewhere ? "elsewhere" : "quota") + "\"";
      ++kinds[elsewhere ? "pinned-elsewhere" : "pinned"];
    }
    if (!selector.empty()) spec += R"("nodeSelector":{)" + selector + "},";

    if (chance(0.2)) {
      const bool sidecar = chance(0.3);
      spec += R"("initContainers":[)" + container("init", resource, between(0, 3), gpu, sidecar) + "],";
      ++kinds[sidecar ? "sidecar" : "init"];
    }
    std::string cs = container("c0", resource, between(0, 3), gpu, false);
    if (chance(0.3)) cs += "," + container("c1", resource, between(0, 3), gpu, false);
    spec += R"("containers":[)" + cs + "]";
    return R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":")" + name + R"(","namespace":")" + ns +
           R"(","labels":{"app":"quota-accounting"}},"spec":{)" + spec + "}}";
  }
};

// What one client thread did.
struct Tally {
  std::map<std::string, int> ops;        // create, phase, delete
  std::map<std::string, int> kinds;      // the kinds of pods created
  std::map<std::string, int> phases;     // phase set -> times
  std::map<std::string, int> refused;    // "from -> to" -> times the API server refused it
  std::vector<std::string> unexpected;   // errors that are not refusals
  void merge(const Tally& o) {
    for (const auto& [k, v] : o.ops) ops[k] += v;
    for (const auto& [k, v] : o.kinds) kinds[k] += v;
    for (const auto& [k, v] : o.phases) phases[k] += v;
    for (const auto& [k, v] : o.refused) refused[k] += v;
    unexpected.insert(unexpected.end(), o.unexpected.begin(), o.unexpected.end());
  }
};

std::string show(const std::map<std::string, int>& m) {
  std::string out;
  for (const auto& [k, v] : m) out += (out.empty() ? "" : ", ") + k + ": " + std::to_string(v);
  return "{" + out + "}";
}

using Texts = std::map<std::string, std::string>;  // resource -> quantity text

std::string show(const Texts& m) {
  std::string out;
  for (const auto& [k, v] : m) out += (out.empty() ? "" : ", ") + k + ": " + v;
  return "{" + out + "}";
}

// Amounts as the controller writes them into status (admission_reconciler.cpp).
Texts texts(const quota::Amounts& a) {
  Texts out;
  for (const auto& [r, v] : a) {
    if (v != 0) out[r] = api::Quantity::from_micro(v).text();
  }
  return out;
}

Texts status_texts(const rapidjson::Value& q, const char* field) {
  Texts out;
  const auto* m = at(q, {"status", field});
  if (m == nullptr || !m->IsObject()) return out;
  for (const auto& e : m->GetObject()) {
    out[e.name.GetString()] = e.value.IsString() ? e.value.GetString() : kube::to_json(e.value);
  }
  return out;
}

struct Recount {
  std::map<std::string, quota::Amounts> used, waiting;  // by quota key
  std::size_t pods = 0, charged = 0;
};

class QuotaAccountingTest : public QuotaTest {
 protected:
  [[nodiscard]] bool wait_covered(const std::vector<std::string>& nss) {
    std::string last;
    const bool ok = testenv::wait_until([&] {
      try {
        const auto b = kube::to_json(client_->get(kube::ResourceRef{
            {"admissionregistration.k8s.io", "v1", "validatingadmissionpolicybindings"}, "", "gpupool-quota-gate", ""}));
        const auto m = kube::to_json(client_->get(kube::ResourceRef{
            {"admissionregistration.k8s.io", "v1", "mutatingwebhookconfigurations"}, "", "gpupool-mutating-webhook", ""}));
        for (const auto& ns : nss) {
          if (b.find('"' + ns + '"') == std::string::npos || m.find('"' + ns + '"') == std::string::npos) {
            last = "not yet covering " + ns;
            return false;
          }
        }
        return true;
      } catch (const kube::ApiError& e) {
        last = e.what();
        return false;
      }
    }, 60s);
    if (!ok) ADD_FAILURE() << last << "\n" << log_tail("controller.log");
    return ok;
  }

  // Every pod of one LIST, charged by the library's own rules.
  Recount recount(const quota::ChargeMap& map) {
    Recount out;
    auto list = client_->list(kube::ResourceRef{kube::core::pods(), "", "", ""});
    for (const auto& item : list["items"].GetArray()) {
      const kube::PodProjection pod = kube::project_pod(kube::to_json(item));
      ++out.pods;
      const auto result = quota::charge_pod(pod, map);
      if (!result.charge) continue;
      ++out.charged;
      auto& into = result.charge->state == quota::PodQuotaState::admitted ? out.used : out.waiting;
      into[result.charge->quota] = quota::add(into[result.charge->quota], result.charge->charge);
    }
    return out;
  }
};

TEST_F(QuotaAccountingTest, UsageAfterTenThousandRandomPodChangesEqualsAFullRecount) {
  const std::uint32_t seed = env_or("GPUPOOL_QUOTA_ACCOUNTING_SEED", std::random_device{}());
  const int total_ops = static_cast<int>(env_or("GPUPOOL_QUOTA_ACCOUNTING_OPS", 10000));
  std::cout << "seed " << seed << " (GPUPOOL_QUOTA_ACCOUNTING_SEED=" << seed << " replays it), " << total_ops << " operations"
            << std::endl;
  RecordProperty("seed", std::to_string(seed));

  fleet(120, 2, {{"pool-test", "quota"}});  // 2 nodes x 2 A100 without MIG: 4 nvidia.com/gpu
  ASSERT_NO_FATAL_FAILURE(start_controller_with_webhook());
  for (const char* ns : kTenantNamespaces) make_namespace(ns, "gpupool.io/tenant: acct-a");
  make_namespace(kUnitsNamespace, "");
  make_namespace(kFreeNamespace, "");
  ASSERT_NO_FATAL_FAILURE(policy_and_pool("    approval: Automatic\n", "4"));
  apply(std::string("apiVersion: gpupool.io/v1alpha1\nkind: TenantQuota\nmetadata:\n  name: devices\n  namespace: ") +
        kTenantNamespaces[0] + "\nspec:\n  poolRef: {name: quota}\n  resources: {nvidia.com/gpu: 2}\n  namespaces: [" +
        kTenantNamespaces[0] + ", " + kTenantNamespaces[1] + ", " + kTenantNamespaces[2] + "]\n");
  quota(kUnitsNamespace, "units", "gpupool.io/gpu: \"1.5\"", 0);
  ASSERT_TRUE(wait_phase(kTenantNamespaces[0], "devices", "Granted"));
  ASSERT_TRUE(wait_phase(kUnitsNamespace, "units", "Granted"));
  ASSERT_TRUE(wait_covered({kTenantNamespaces[0], kTenantNamespaces[1], kTenantNamespaces[2], kUnitsNamespace}));

  // The recount's view of the quotas: as charging.h has them, with the unit
  // cost of the pool's devices (whole A100s: one gpupool.io/gpu each).
  const std::string devices_key = std::string(kTenantNamespaces[0]) + "/devices";
  const std::string units_key = std::string(kUnitsNamespace) + "/units";
  quota::NamespaceLabels labels;
  for (const char* ns : kTenantNamespaces) labels[ns] = {{quota::kTenantLabel, "acct-a"}};
  labels[kUnitsNamespace] = {};
  labels[kFreeNamespace] = {};
  const quota::ChargeMap map = quota::build_charge_map(
      {{devices_key, kTenantNamespaces[0], "quota", {kTenantNamespaces[0], kTenantNamespaces[1], kTenantNamespaces[2]},
        {"nvidia.com/gpu"}},
       {units_key, kUnitsNamespace, "quota", {}, {std::string(quota::kGpuUnit)}}},
      labels, {{"quota", {{"nvidia.com/gpu", quota::kMicro}}}});
  ASSERT_EQ(map.covering.size(), 4u);

  // The pod names: each belongs to one thread, its namespace drawn once.
  constexpr int kThreads = 8;
  constexpr int kSlots = 400;
  struct Slot {
    std::string ns, name;
    bool exists = false;
    std::string phase;  // as last set here
    std::chrono::steady_clock::time_point created;  // by its last create here
  };
  std::vector<Slot> slots(kSlots);
  {
    std::mt19937 rng(seed);
    for (int i = 0; i < kSlots; ++i) {
      const int r = std::uniform_int_distribution<int>(0, 99)(rng);
      slots[i].ns = r < 65 ? kTenantNamespaces[r % 3] : r < 90 ? kUnitsNamespace : kFreeNamespace;
      slots[i].name = "p" + std::to_string(i);
    }
  }

  const auto started = std::chrono::steady_clock::now();
  std::vector<Tally> tallies(kThreads);
  {
    std::vector<std::jthread> workers;
    for (int t = 0; t < kThreads; ++t) {
      workers.emplace_back([&, t] {
        Tally& tally = tallies[t];
        std::seed_seq sq{seed, static_cast<std::uint32_t>(t) + 1};
        std::mt19937 rng(sq);
        PodMaker maker{rng};
        kube::Client c(rest_config(cluster(), cluster().admin_token()));
        std::vector<Slot*> mine;
        for (int i = t; i < kSlots; i += kThreads) mine.push_back(&slots[i]);
        kube::DeleteOptions now;
        now.grace_period_seconds = 0;
        const int count = total_ops / kThreads + (t < total_ops % kThreads ? 1 : 0);
        for (int k = 0; k < count; ++k) {
          Slot& s = *mine[std::uniform_int_distribution<std::size_t>(0, mine.size() - 1)(rng)];
          const kube::ResourceRef ref{kube::core::pods(), s.ns, s.name, ""};
          // For an unexpected error: what was asked, and how long after this pod's create.
          std::string op = "create";
          const auto describe = [&](const char* error) {
            return s.ns + "/" + s.name + ": " + op + " (" + s.phase + ", " +
                   std::to_string(std::chrono::duration_cast<std::chrono::milliseconds>(
                                      std::chrono::steady_clock::now() - s.created).count()) +
                   " ms after its create): " + error;
          };
          try {
            if (!s.exists) {
              ++tally.ops["create"];
              c.create(ref.with_name(""), maker.pod(s.ns, s.name, tally.kinds));
              s.exists = true;
              s.phase = "Pending";
              s.created = std::chrono::steady_clock::now();
            } else if (maker.chance(0.6)) {
              static constexpr const char* kPhases[] = {"Running", "Running", "Running", "Running", "Succeeded",
                                                        "Succeeded", "Failed", "Failed", "Failed", "Pending"};
              const std::string to = kPhases[maker.between(0, 9)];
              ++tally.ops["phase"];
              op = "phase to " + to;
              try {
                c.patch(ref.with_subresource("status"), kube::PatchType::MergePatch,
                        R"({"status":{"phase":")" + to + "\"}}");
                ++tally.phases[to];
                s.phase = to;
              } catch (const kube::ApiError& e) {
                if (!e.is_invalid() && !e.is_forbidden()) throw;
                ++tally.refused[s.phase + " -> " + to];
              }
            } else {
              ++tally.ops["delete"];
              op = "delete";
              c.remove(ref, now);
              s.exists = false;
            }
          } catch (const kube::ApiError& e) {
            if (e.is_already_exists()) s.exists = true;
            if (e.is_not_found()) s.exists = false;
            tally.unexpected.push_back(describe(e.what()));
          } catch (const std::exception& e) {
            tally.unexpected.push_back(describe(e.what()));
          }
        }
      });
    }
  }
  const auto ops_done = std::chrono::steady_clock::now();
  Tally all;
  for (const auto& t : tallies) all.merge(t);
  const auto secs = [](auto d) { return std::chrono::duration<double>(d).count(); };
  std::cout << "operations " << show(all.ops) << " in " << secs(ops_done - started) << " s\n"
            << "pods created " << show(all.kinds) << "\n"
            << "phases set " << show(all.phases) << "\n"
            << "phase changes refused " << show(all.refused) << "\n"
            << "unexpected errors " << all.unexpected.size() << std::endl;
  for (std::size_t i = 0; i < all.unexpected.size() && i < 5; ++i) std::cout << "  " << all.unexpected[i] << "\n";
  EXPECT_TRUE(all.unexpected.empty()) << all.unexpected.size() << " unexpected errors, the first: " << all.unexpected.front();
  EXPECT_EQ(all.ops["create"] + all.ops["phase"] + all.ops["delete"], total_ops);

  // The controller's figures settle on the recount.
  Recount last;
  std::string diff;
  const bool settled = testenv::wait_until([&] {
    try {
      last = recount(map);
      diff.clear();
      for (const auto& key : {devices_key, units_key}) {
        const auto slash = key.find('/');
        const auto q = get_quota(key.substr(0, slash), key.substr(slash + 1));
        const Texts used = status_texts(q, "used"), waiting = status_texts(q, "waiting");
        const Texts want_used = texts(last.used[key]), want_waiting = texts(last.waiting[key]);
        if (used != want_used || waiting != want_waiting) {
          diff += key + ": status used " + show(used) + " waiting " + show(waiting) + "; recount used " + show(want_used) +
                  " waiting " + show(want_waiting) + "\n";
        }
      }
      // Equal, and not trivially: the controller has admitted pods of the
      // device quota (it does while any waiting pod fits) and holds others.
      if (diff.empty() && (last.used[devices_key].empty() || last.waiting[devices_key].empty())) {
        diff = devices_key + ": nothing admitted or nothing waiting yet\n";
      }
      return diff.empty();
    } catch (const std::exception& e) {
      diff = e.what();
      return false;
    }
  }, 60s);
  const auto done = std::chrono::steady_clock::now();
  std::cout << "settled " << (settled ? "" : "NOT ") << "after " << secs(done - ops_done) << " s more (" << secs(done - started)
            << " s in all); " << last.pods << " pods listed, " << last.charged << " charged; " << devices_key << " used "
            << show(texts(last.used[devices_key])) << " waiting " << show(texts(last.waiting[devices_key])) << "; "
            << units_key << " used " << show(texts(last.used[units_key])) << " waiting "
            << show(texts(last.waiting[units_key])) << std::endl;
  ASSERT_TRUE(settled) << "status and recount differ:\n" << diff << "controller log:\n" << log_tail("controller.log");

  // Both currencies took part.
  EXPECT_FALSE(last.used[units_key].empty() && last.waiting[units_key].empty()) << "nothing charged to " << units_key;
  EXPECT_GT(all.ops["create"], total_ops / 10);
  EXPECT_GT(all.ops["phase"], total_ops / 10);
  EXPECT_GT(all.ops["delete"], total_ops / 10);
}

}  // namespace
}  // namespace gpupool::test
