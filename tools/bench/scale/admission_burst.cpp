#include "admission_burst.h"

#include <algorithm>
#include <charconv>
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>

#include "gpupool/kube/errors.h"
#include "gpupool/kube/json_access.h"
#include "parallel_writes.h"

namespace gpupool::bench {
namespace {

using Clock = std::chrono::steady_clock;

constexpr const char* kGate = "gpupool.io/quota";  // quota/charging.h's kQuotaGate
constexpr const char* kBurstLabel = "app=bench-burst";

bool has_gate(const rapidjson::Value& pod) {
  const rapidjson::Value* gates = kube::value_at(pod, {"spec", "schedulingGates"});
  if (gates == nullptr || !gates->IsArray()) return false;
  for (const auto& g : gates->GetArray()) {
    if (kube::string_of(kube::member(g, "name")) == kGate) return true;
  }
  return false;
}

std::string burst_name(std::size_t i) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "burst-%06zu", i);
  return buf;
}

double seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }

}  // namespace

std::size_t default_burst(std::size_t nodes) { return std::max<std::size_t>(20, nodes * 2000 / 5000); }

std::optional<long> whole_quantity(const rapidjson::Value* v) {
  if (v == nullptr) return std::nullopt;
  if (v->IsInt64()) return static_cast<long>(v->GetInt64());
  if (!v->IsString()) return std::nullopt;
  const std::string s = v->GetString();
  long n = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), n);
  if (s.empty() || ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return n;
}

std::vector<std::size_t> plan_burst(const std::vector<TenantRoom>& tenants, std::map<std::string, long> pool_room,
                                    std::size_t wanted) {
  std::vector<int> room;
  for (const auto& t : tenants) room.push_back(std::max(0, t.room));
  std::vector<std::size_t> out;
  bool any = true;
  while (out.size() < wanted && any) {
    any = false;
    for (std::size_t t = 0; t < tenants.size() && out.size() < wanted; ++t) {
      auto& pool = pool_room[tenants[t].pool];
      if (room[t] == 0 || pool <= 0) continue;
      --room[t];
      --pool;
      out.push_back(t);
      any = true;
    }
  }
  return out;
}

std::string burst_pod_manifest(const std::string& ns, const std::string& name, const std::string& resource) {
  return R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":")" + name + R"(","namespace":")" + ns +
         R"(","labels":{"app":"bench-burst"}},"spec":{"automountServiceAccountToken":false,)"
         R"("tolerations":[{"operator":"Exists"}],"containers":[{"name":"main","image":"registry.example.com/train:1",)"
         R"("resources":{"requests":{"cpu":"100m","memory":"128Mi"},"limits":{")" + resource + R"(":"1"}}}]}})";
}

AdmissionFigures measure_admissions(kube::Client& client, const ClusterShape& shape, std::size_t wanted, int writers,
                                    std::chrono::seconds timeout) {
  AdmissionFigures f;
  f.wanted = wanted;
  // Room, as the statuses say it now.
  std::map<std::string, std::pair<long, long>> quota;  // namespace -> granted, used
  const auto quotas = client.list(kube::ResourceRef{{"gpupool.io", "v1alpha1", "tenantquotas"}, "", "", ""});
  for (const auto& q : quotas["items"].GetArray()) {
    const std::string ns = kube::string_of(kube::value_at(q, {"metadata", "namespace"}));
    quota[ns] = {0, 0};
    for (const auto& t : shape.tenants) {
      if (t.ns != ns) continue;
      const auto& resource = shape.pools[static_cast<std::size_t>(t.pool)].resource;
      const auto* status = kube::member(q, "status");
      quota[ns] = {whole_quantity(kube::member(kube::member(status, "granted"), resource)).value_or(0),
                   whole_quantity(kube::member(kube::member(status, "used"), resource)).value_or(0)};
    }
  }
  std::map<std::string, long> pool_room;
  const auto pools = client.list(kube::ResourceRef{{"gpupool.io", "v1alpha1", "gpupools"}, "", "", ""});
  for (const auto& p : pools["items"].GetArray()) {
    const std::string name = kube::string_of(kube::value_at(p, {"metadata", "name"}));
    for (const auto& ps : shape.pools) {
      if (ps.name == name) {
        pool_room[name] = whole_quantity(kube::value_at(p, {"status", "capacity", ps.resource})).value_or(0);
      }
    }
  }
  std::vector<TenantRoom> rooms;
  for (const auto& t : shape.tenants) {
    const auto& pool = shape.pools[static_cast<std::size_t>(t.pool)].name;
    const auto [granted, used] = quota[t.ns];
    pool_room[pool] -= used;
    rooms.push_back({t.ns, pool, static_cast<int>(std::max(0L, granted - used))});
  }
  const auto plan = plan_burst(rooms, pool_room, wanted);
  f.pods = plan.size();
  if (plan.empty()) return f;
  auto resource_of = [&](std::size_t i) {
    return shape.pools[static_cast<std::size_t>(shape.tenants[plan[i]].pool)].resource;
  };

  // The gate in place: a dry run comes back gated.
  const kube::ResourceRef pods{kube::core::pods(), "", "", ""};
  {
    const auto deadline = Clock::now() + std::chrono::minutes(1);
    kube::WriteOptions dry;
    dry.dry_run = true;
    std::string why = "no answer";
    for (;;) {
      try {
        const auto answer = client.create(pods.with_namespace(shape.tenants[plan[0]].ns),
                                          burst_pod_manifest(shape.tenants[plan[0]].ns, "burst-dry-run", resource_of(0)), dry);
        if (has_gate(answer)) break;
        why = "a dry run came back without the gate";
      } catch (const kube::ApiError& e) {
        why = e.what();  // refused by the gate's admission policy until the webhook is configured
      }
      if (Clock::now() > deadline) throw std::runtime_error("the quota gate is not in place after a minute: " + why);
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
  }

  // The watch, from a list of none yet.
  kube::ListOptions lo;
  lo.label_selector = kBurstLabel;
  const auto listed = client.list(pods, lo);
  lo.resource_version = kube::string_of(kube::value_at(listed, {"metadata", "resourceVersion"}));
  std::mutex mu;
  std::condition_variable cv;
  std::set<std::string> admitted;
  std::string ungated;
  Clock::time_point last_admitted;
  std::jthread watcher([&](std::stop_token stop) {
    auto options = lo;
    while (!stop.stop_requested()) {
      try {
        client.watch(pods, options, [&](const kube::WatchEvent& e) {
          if (e.type != kube::WatchEventType::Added && e.type != kube::WatchEventType::Modified) return true;
          const auto pod = kube::parse_json(e.object);
          const std::string key = kube::string_of(kube::value_at(pod, {"metadata", "namespace"})) + "/" +
                                  kube::string_of(kube::value_at(pod, {"metadata", "name"}));
          std::lock_guard lock(mu);
          if (has_gate(pod) || admitted.count(key)) return true;
          if (e.type == kube::WatchEventType::Added) ungated = key;
          admitted.insert(key);
          last_admitted = Clock::now();
          cv.notify_all();
          return true;
        }, stop);
      } catch (const std::exception&) {
        // A 410 here would mean minutes of backlog; the deadline below reports it.
      }
    }
  });

  const auto t0 = Clock::now();
  const auto created = create_all(client, plan.size(), writers,
                                  [&](std::size_t i) { return pods.with_namespace(shape.tenants[plan[i]].ns); },
                                  [&](std::size_t i) { return burst_pod_manifest(shape.tenants[plan[i]].ns, burst_name(i), resource_of(i)); });
  f.create_s = created.seconds;
  std::unique_lock lock(mu);
  const bool all = cv.wait_until(lock, t0 + timeout, [&] { return admitted.size() >= plan.size(); });
  if (!ungated.empty()) throw std::runtime_error("burst pod " + ungated + " was created without the quota gate");
  if (!all) {
    throw std::runtime_error(std::to_string(admitted.size()) + " of " + std::to_string(plan.size()) +
                             " burst pods admitted within the timeout");
  }
  f.admit_s = seconds(last_admitted - t0);
  f.per_second = f.admit_s > 0 ? static_cast<double>(plan.size()) / f.admit_s : 0;
  lock.unlock();
  watcher.request_stop();
  return f;
}

}  // namespace gpupool::bench
