#include "usage_probe.h"

#include <rapidjson/document.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <map>
#include <mutex>
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

const kube::ResourceRef kQuotas{{"gpupool.io", "v1alpha1", "tenantquotas"}, "", "", ""};

// Every TenantQuota change as a watch delivers it, stamped on arrival: the
// probes wait on this rather than polling (a read every millisecond was load
// on the API server the controller's own writes then queued behind).
class QuotaWatch {
 public:
  QuotaWatch(kube::Client& client, const std::string& from_version)
      : thread_([this, &client, from_version](std::stop_token stop) { run(client, from_version, stop); }) {}

  // When `ns`'s quota first showed status.used[resource] == want in an
  // event that arrived at `since` or later; nullopt once `deadline` passes.
  std::optional<Clock::time_point> wait_for(const std::string& ns, const std::string& resource, int want,
                                            Clock::time_point since, Clock::time_point deadline) {
    std::unique_lock lock(mu_);
    for (;;) {
      if (!failure_.empty()) throw std::runtime_error("watching TenantQuotas: " + failure_);
      for (const Seen& s : seen_[ns]) {
        if (s.at < since) continue;
        const auto u = s.used.find(resource);
        if ((u == s.used.end() ? 0 : u->second) == want) return s.at;  // a resource at zero is left out
      }
      if (cv_.wait_until(lock, deadline) == std::cv_status::timeout) return std::nullopt;
    }
  }

 private:
  struct Seen {
    Clock::time_point at;
    std::map<std::string, int> used;  // status.used, resource -> devices (-1: unreadable)
  };

  void run(kube::Client& client, const std::string& from_version, std::stop_token stop) {
    kube::ListOptions options;
    options.resource_version = from_version;
    options.allow_watch_bookmarks = true;
    try {
      const auto result = client.watch(
          kQuotas, options,
          [&](const kube::WatchEvent& event) {
            if (event.type != kube::WatchEventType::Added && event.type != kube::WatchEventType::Modified) return true;
            const auto at = Clock::now();
            rapidjson::Document doc;
            doc.Parse(event.object.data(), event.object.size());
            if (doc.HasParseError() || !doc.IsObject()) return true;
            const rapidjson::Value* ns = kube::member(kube::member(doc, "metadata"), "namespace");
            const rapidjson::Value* used = kube::member(kube::member(doc, "status"), "used");
            if (ns == nullptr || !ns->IsString()) return true;
            Seen seen{at, {}};
            if (used != nullptr && used->IsObject()) {
              for (const auto& m : used->GetObject()) seen.used[m.name.GetString()] = used_of(doc, m.name.GetString());
            }
            {
              std::lock_guard lock(mu_);
              auto& list = seen_[ns->GetString()];
              list.push_back(std::move(seen));
              if (list.size() > 64) list.erase(list.begin());  // the probes look back less far than this
            }
            cv_.notify_all();
            return true;
          },
          stop);
      if (result.end == kube::WatchEnd::Gone) fail("the resourceVersion went out of the watch window");
    } catch (const std::exception& e) {
      fail(e.what());
    }
  }

  void fail(const std::string& why) {
    {
      std::lock_guard lock(mu_);
      failure_ = why;
    }
    cv_.notify_all();
  }

  std::mutex mu_;
  std::condition_variable cv_;
  std::map<std::string, std::vector<Seen>> seen_;  // by namespace, in arrival order
  std::string failure_;
  std::jthread thread_;  // last: stopped and joined before the members it uses go
};

}  // namespace

double UsageLag::p50_ms() const { return percentile(lags_ms, 50); }
double UsageLag::p99_ms() const { return percentile(lags_ms, 99); }
double UsageLag::delete_p50_ms() const { return percentile(delete_ms, 50); }
double UsageLag::delete_p99_ms() const { return percentile(delete_ms, 99); }

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
    kube::ListOptions one;
    one.limit = 1;
    rapidjson::Document listed = client.list(kQuotas, one);
    const rapidjson::Value* version = kube::member(kube::member(listed, "metadata"), "resourceVersion");
    if (version == nullptr || !version->IsString()) throw std::runtime_error("a TenantQuota list without a resourceVersion");
    QuotaWatch watch(client, version->GetString());
    for (std::size_t index : probe_pods(shape, probes)) {
      const PodShape& pod = shape.pods[index];
      const TenantShape& tenant = shape.tenants[static_cast<std::size_t>(pod.tenant)];
      const std::string& resource = shape.pools[static_cast<std::size_t>(tenant.pool)].resource;
      const int want = --used[static_cast<std::size_t>(pod.tenant)];
      const auto sent = Clock::now();
      client.remove(kube::ResourceRef{kube::core::pods(), tenant.ns, pod_name(index), ""}, at_once());
      const auto t0 = Clock::now();
      // An event arriving before the delete's answer counts from the answer (0 ms).
      const auto shown = watch.wait_for(tenant.ns, resource, want, sent, t0 + timeout);
      if (!shown) {
        throw std::runtime_error("TenantQuota " + tenant.ns + "/quota did not show " + pod_name(index) +
                                 " gone within the timeout (status.used " + resource + " should be " +
                                 std::to_string(want) + ")");
      }
      out.lags_ms.push_back(std::max(0.0, std::chrono::duration<double, std::milli>(*shown - t0).count()));
      out.delete_ms.push_back(std::chrono::duration<double, std::milli>(t0 - sent).count());
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
