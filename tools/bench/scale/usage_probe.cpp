#include "usage_probe.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <map>
#include <numeric>
#include <stdexcept>
#include <thread>

#include "gpupool/kube/errors.h"
#include "gpupool/kube/json_access.h"
#include "seed_manifests.h"

namespace gpupool::bench {
namespace {

using Clock = std::chrono::steady_clock;

// Deleted at once (grace period 0): kwok would otherwise finish it a moment later.
kube::DeleteOptions at_once() {
  kube::DeleteOptions o;
  o.grace_period_seconds = 0;
  return o;
}

double percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const auto rank = static_cast<std::size_t>(std::ceil(p / 100.0 * static_cast<double>(v.size())));
  return v[std::min(v.size(), std::max<std::size_t>(rank, 1)) - 1];
}

// status.used[resource] as a number (absent: 0; unreadable: -1).
int used_of(const rapidjson::Value& quota, const std::string& resource) {
  const rapidjson::Value* v = kube::member(kube::member(kube::member(quota, "status"), "used"), resource);
  if (v == nullptr) return 0;
  if (v->IsInt()) return v->GetInt();
  if (v->IsString()) {
    try {
      return std::stoi(v->GetString());
    } catch (const std::exception&) {
      return -1;
    }
  }
  return -1;
}

}  // namespace

double UsageLag::p50_ms() const { return percentile(lags_ms, 50); }
double UsageLag::p99_ms() const { return percentile(lags_ms, 99); }

std::vector<std::size_t> probe_pods(const ClusterShape& shape, std::size_t count) {
  std::map<int, std::vector<std::size_t>> by_tenant;
  for (std::size_t i = 0; i < shape.pods.size(); ++i) {
    if (shape.pods[i].gpu) by_tenant[shape.pods[i].tenant].push_back(i);
  }
  std::vector<std::vector<std::size_t>> queues;
  for (auto& [tenant, pods] : by_tenant) queues.push_back(std::move(pods));
  std::stable_sort(queues.begin(), queues.end(), [](const auto& a, const auto& b) { return a.size() > b.size(); });
  std::vector<std::size_t> out;
  for (std::size_t round = 0; out.size() < count; ++round) {
    bool any = false;
    for (const auto& q : queues) {
      if (round < q.size() && out.size() < count) {
        out.push_back(q[round]);
        any = true;
      }
    }
    if (!any) break;
  }
  return out;
}

UsageLag measure_usage_lag(kube::Client& client, const ClusterShape& shape, std::size_t probes, int churn_writers,
                           std::chrono::milliseconds timeout) {
  UsageLag out;
  std::atomic<bool> stop{false};
  std::atomic<std::size_t> churn_events{0};
  std::vector<std::thread> churn;
  const auto churn_start = Clock::now();
  for (int w = 0; w < churn_writers; ++w) {
    churn.emplace_back([&, w] {
      for (std::size_t k = 0; !stop; ++k) {
        const auto& tenant = shape.tenants[(static_cast<std::size_t>(w) * 7919 + k) % shape.tenants.size()];
        const std::string name = "churn-" + std::to_string(w) + "-" + std::to_string(k);
        const auto& node = shape.nodes[(static_cast<std::size_t>(w) * 104729 + k) % shape.nodes.size()];
        const std::string body = R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":")" + name + R"(","namespace":")" +
                                 tenant.ns + R"("},"spec":{"nodeName":")" + node.name +
                                 R"(","automountServiceAccountToken":false,"tolerations":[{"operator":"Exists"}],)"
                                 R"("containers":[{"name":"main","image":"registry.example.com/web:1"}]}})";
        try {
          client.create(kube::ResourceRef{kube::core::pods(), tenant.ns, "", ""}, body);
          ++churn_events;
          client.remove(kube::ResourceRef{kube::core::pods(), tenant.ns, name, ""}, at_once());
          ++churn_events;
        } catch (const std::exception&) {
          // Churn is load, not a check: a refused request is just one event fewer.
        }
      }
    });
  }
  std::vector<int> used = shape.tenant_used;
  std::string failure;
  try {
    for (std::size_t index : probe_pods(shape, probes)) {
      const PodShape& pod = shape.pods[index];
      const TenantShape& tenant = shape.tenants[static_cast<std::size_t>(pod.tenant)];
      const std::string& resource = shape.pools[static_cast<std::size_t>(tenant.pool)].resource;
      const kube::ResourceRef quota{{"gpupool.io", "v1alpha1", "tenantquotas"}, tenant.ns, "quota", ""};
      const int want = --used[static_cast<std::size_t>(pod.tenant)];
      client.remove(kube::ResourceRef{kube::core::pods(), tenant.ns, pod_name(index), ""},
                    at_once());
      const auto t0 = Clock::now();
      for (;;) {
        if (used_of(client.get(quota), resource) == want) break;
        if (Clock::now() - t0 > timeout) {
          throw std::runtime_error("TenantQuota " + tenant.ns + "/quota did not show " + pod_name(index) +
                                   " gone within the timeout (status.used " + resource + " should be " +
                                   std::to_string(want) + ")");
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
      }
      out.lags_ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
    }
  } catch (const std::exception& e) {
    failure = e.what();
  }
  stop = true;
  for (auto& t : churn) t.join();
  const double seconds = std::chrono::duration<double>(Clock::now() - churn_start).count();
  out.churn_events_per_s = seconds > 0 ? static_cast<double>(churn_events) / seconds : 0;
  if (!failure.empty()) throw std::runtime_error(failure);
  return out;
}

}  // namespace gpupool::bench
