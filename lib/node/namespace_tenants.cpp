#include "gpupool/node/namespace_tenants.h"

#include <spdlog/spdlog.h>

#include <algorithm>

#include "gpupool/kube/client.h"
#include "gpupool/kube/errors.h"
#include "gpupool/kube/resource.h"
#include "gpupool/quota/eligibility.h"

namespace gpupool::node {

NamespaceTenants::NamespaceTenants(Fetcher fetch, NamespaceTenantsOptions options, Clock clock)
    : fetch_(std::move(fetch)), options_(options), clock_(std::move(clock)) {}

std::map<std::string, std::string> NamespaceTenants::tenants(const std::set<std::string>& namespaces) {
  std::lock_guard lock(mu_);
  const auto now = clock_();
  std::map<std::string, std::string> out;
  for (const auto& ns : namespaces) out[ns] = refresh(ns, now);
  std::erase_if(entries_, [&](const auto& e) { return now - e.second.asked > options_.forget_after; });
  return out;
}

std::size_t NamespaceTenants::size() const {
  std::lock_guard lock(mu_);
  return entries_.size();
}

const std::string& NamespaceTenants::refresh(const std::string& ns, std::chrono::steady_clock::time_point now) {
  auto [it, added] = entries_.try_emplace(ns);
  Entry& e = it->second;
  e.asked = now;
  if (added) e.tenant = ns;
  if (!added && now < e.next_fetch) return e.tenant;
  std::string error;
  try {
    const auto labels = fetch_(ns);
    if (labels) {
      const quota::NamespaceLabels known{{ns, *labels}};
      e.tenant = quota::tenant_of(ns, known);
    } else {
      e.tenant = ns;
    }
    e.next_fetch = now + options_.ttl;
    if (e.failing) spdlog::info("gpu metrics: the tenant of namespace {} can be read again: {}", ns, e.tenant);
    e.failing = false;
    return e.tenant;
  } catch (const std::exception& x) {
    error = x.what();
  } catch (...) {
    error = "unknown error";
  }
  e.next_fetch = now + std::min(options_.retry, options_.ttl);
  if (!e.failing) {
    spdlog::warn("gpu metrics: cannot read namespace {} for its tenant (label {}), using {} until it can be read: {}",
                 ns, quota::kTenantLabel, e.tenant, error);
  }
  e.failing = true;
  return e.tenant;
}

NamespaceTenants::Fetcher namespace_label_fetcher(std::shared_ptr<kube::Client> client) {
  return [client = std::move(client)](const std::string& ns) -> std::optional<NamespaceTenants::Labels> {
    rapidjson::Document doc;
    try {
      doc = client->get({kube::core::namespaces(), "", ns, ""});
    } catch (const kube::ApiError& e) {
      if (e.is_not_found()) return std::nullopt;
      throw;
    }
    NamespaceTenants::Labels labels;
    if (doc.IsObject() && doc.HasMember("metadata") && doc["metadata"].IsObject()) {
      const auto& meta = doc["metadata"];
      if (meta.HasMember("labels") && meta["labels"].IsObject()) {
        for (const auto& l : meta["labels"].GetObject()) {
          if (l.value.IsString()) labels[l.name.GetString()] = l.value.GetString();
        }
      }
    }
    return labels;
  };
}

}  // namespace gpupool::node
