#include "gpupool/quota_controller/pool_view.h"

#include "gpupool/api/codec.h"
#include "gpupool/kube/client.h"
#include "gpupool/kube/json_access.h"
#include "gpupool/runtime/field_index.h"
#include "gpupool/stored/gpunode.h"
#include "gpupool/quota_controller/pool_unit_costs.h"

namespace gpupool::quota_controller {

quota::Amounts to_amounts(const std::map<std::string, api::QuantityValue>& m) {
  quota::Amounts out;
  for (const auto& [r, q] : m) {
    if (auto v = q.quantity.micro_value(); v && *v > 0) out[r] = *v;
  }
  return out;
}

std::map<std::string, api::QuantityValue> to_quantities(const quota::Amounts& a) {
  std::map<std::string, api::QuantityValue> out;
  for (const auto& [r, v] : a) out[r] = api::QuantityValue{api::Quantity::from_micro(v), false};
  return out;
}

void index_gpunodes_by_pool(runtime::Store<kube::Object>& gpunodes) { runtime::index_by_field(gpunodes, {"spec", "pool"}); }

void index_quotas_by_pool(runtime::Store<kube::Object>& quotas) {
  runtime::index_by_field(quotas, {"spec", "poolRef", "name"});
}

std::vector<runtime::Store<kube::Object>::Ptr> pool_gpunodes(runtime::Store<kube::Object>& gpunodes, const std::string& pool) {
  return runtime::by_field(gpunodes, {"spec", "pool"}, pool);
}

std::vector<runtime::Store<kube::Object>::Ptr> pool_quotas(runtime::Store<kube::Object>& quotas, const std::string& pool) {
  return runtime::by_field(quotas, {"spec", "poolRef", "name"}, pool);
}

namespace {

// What a GPUNode whose object does not decode (a field this version does not
// know, from a newer agent) reports, read from its DOM as far as it goes:
// its capacity must not vanish from the pool for a field the grants never
// read. Returns its GPU count; adds its MIG instances to `reported`.
std::int64_t reported_in_dom(const kube::Object& gpunode, std::vector<ReportedInstance>& reported) {
  const rapidjson::Value* status = kube::member(gpunode.doc, "status");
  std::int64_t gpus = 0;
  if (const rapidjson::Value* count = kube::member(status, "gpuCount"); count && count->IsInt()) gpus = count->GetInt();
  const rapidjson::Value* list = kube::member(status, "gpus");
  if (list == nullptr || !list->IsArray()) return gpus;
  for (const auto& gpu : list->GetArray()) {
    const rapidjson::Value* gpu_memory = kube::member(gpu, "memoryMiB");
    const rapidjson::Value* instances = kube::value_at(gpu, {"partition", "instances"});
    if (gpu_memory == nullptr || !gpu_memory->IsInt64() || gpu_memory->GetInt64() <= 0 || instances == nullptr ||
        !instances->IsArray()) {
      continue;
    }
    for (const auto& inst : instances->GetArray()) {
      const rapidjson::Value* memory = kube::member(inst, "memoryMiB");
      if (memory == nullptr || !memory->IsInt64() || memory->GetInt64() <= 0) continue;
      reported.push_back({kube::string_of(kube::member(inst, "profile")), memory->GetInt64(), gpu_memory->GetInt64()});
    }
  }
  return gpus;
}

}  // namespace

PoolView read_pool(const std::string& name, runtime::Store<kube::Object>& pools, runtime::Store<kube::Object>& policies,
                   runtime::Store<kube::Object>& gpunodes) {
  PoolView v;
  if (auto p = pools.get(name); p && !p->deleting) {
    auto decoded = api::decode_gpupool(p->doc);
    if (decoded.ok()) v.pool = std::move(*decoded.value);
  }
  if (v.pool && v.pool->spec.policy_ref) {
    v.policy_name = v.pool->spec.policy_ref->name;
    if (auto p = policies.get(v.policy_name)) {
      auto decoded = api::decode_gpupolicy(p->doc);
      if (decoded.ok()) v.policy = std::move(*decoded.value);
    }
  }
  if (v.pool && v.pool->status) v.capacity = to_amounts(v.pool->status->capacity);

  // The members' GPUs and the MIG instances they report (sizes as reported).
  std::int64_t gpus = 0;
  std::vector<ReportedInstance> reported;
  for (const auto& g : pool_gpunodes(gpunodes, name)) {
    if (const auto status = stored::gpunode_status(*g)) {
      gpus += status->gpu_count;
      for (const auto& gpu : status->gpus) {
        if (gpu.memory_mib <= 0) continue;  // not reported
        for (const auto& inst : gpu.partition.instances) {
          if (inst.memory_mib > 0) reported.push_back({inst.profile, inst.memory_mib, gpu.memory_mib});
        }
      }
    } else {
      gpus += reported_in_dom(*g, reported);
    }
  }
  if (gpus > 0) v.capacity[std::string(quota::kGpuUnit)] = gpus * quota::kMicro;
  if (v.pool) {
    const auto* rules = v.rules();
    const auto basis = rules && rules->charge_basis == api::ChargeBasis::memory ? quota::ChargeBasis::memory
                                                                                : quota::ChargeBasis::compute;
    v.unit_costs = pool_unit_costs(*v.pool, v.capacity, gpu::Catalog::builtin(), basis, reported);
  }
  return v;
}

namespace {

// FNV-1a over the bytes, continuing from `h`.
std::uint64_t fnv1a(std::uint64_t h, std::string_view bytes) {
  for (const char c : bytes) {
    h ^= static_cast<unsigned char>(c);
    h *= 0x100000001b3ULL;
  }
  return h;
}

}  // namespace

PoolView PoolReader::read(const std::string& name, runtime::Store<kube::Object>& pools,
                          runtime::Store<kube::Object>& policies, runtime::Store<kube::Object>& gpunodes) {
  bool versioned = true;
  auto version_of = [&](const runtime::Store<kube::Object>::Ptr& obj) -> std::string {
    if (!obj) return "";
    if (obj->resource_version.empty()) versioned = false;
    return (obj->deleting ? "deleting " : "") + obj->resource_version;
  };
  const auto pool = pools.get(name);
  Entry now;
  now.pool_version = version_of(pool);
  const std::string policy_name = pool ? kube::string_at(pool->doc, {"spec", "policyRef", "name"}) : "";
  if (!policy_name.empty()) now.policy_version = policy_name + " " + version_of(policies.get(policy_name));
  std::uint64_t h = 0xcbf29ce484222325ULL;
  for (const auto& g : pool_gpunodes(gpunodes, name)) {
    h = fnv1a(fnv1a(h, g->name), std::string_view("\0", 1));
    h = fnv1a(fnv1a(h, version_of(g)), std::string_view("\0", 1));
    ++now.members;
  }
  now.members_hash = h;

  std::lock_guard lock(mu_);
  if (versioned) {
    if (auto it = entries_.find(name); it != entries_.end() && it->second.pool_version == now.pool_version &&
                                       it->second.policy_version == now.policy_version &&
                                       it->second.members == now.members && it->second.members_hash == now.members_hash) {
      return it->second.view;
    }
  }
  ++reads_;
  now.view = read_pool(name, pools, policies, gpunodes);
  if (!versioned) {
    entries_.erase(name);
    return now.view;
  }
  // Pools gone from the store are dropped once more are kept than it holds.
  if (entries_.size() >= pools.size()) std::erase_if(entries_, [&](const auto& e) { return !pools.get(e.first); });
  return entries_.insert_or_assign(name, std::move(now)).first->second.view;
}

std::size_t PoolReader::reads() const {
  std::lock_guard lock(mu_);
  return reads_;
}

quota::NamespaceLabels read_namespaces(runtime::Store<kube::Object>& namespaces) {
  quota::NamespaceLabels out;
  for (const auto& ns : namespaces.list()) {
    std::map<std::string, std::string> labels;
    if (const rapidjson::Value* l = kube::value_at(ns->doc, {"metadata", "labels"}); l && l->IsObject()) {
      for (const auto& m : l->GetObject()) {
        if (m.value.IsString()) labels[m.name.GetString()] = m.value.GetString();
      }
    }
    out.emplace(ns->name, std::move(labels));
  }
  return out;
}

quota::ChargeableQuota chargeable(const api::TenantQuota& q) {
  quota::ChargeableQuota c;
  c.key = kube::object_key(q.metadata.namespace_, q.metadata.name);
  c.ns = q.metadata.namespace_;
  c.pool = q.spec.pool_ref.name;
  c.namespaces = q.spec.namespaces;
  for (const auto& [r, v] : q.spec.resources) c.resources.push_back(r);
  return c;
}

std::vector<QuotaReader::Decoded> QuotaReader::read(const runtime::Store<kube::Object>& quotas) {
  std::vector<Decoded> out;
  std::map<std::string, Entry> now;  // the entries of the quotas stored now (gone ones dropped)
  std::lock_guard lock(mu_);
  for (const auto& obj : quotas.list()) {
    if (obj->deleting) continue;
    const std::string key = kube::object_key(obj->ns, obj->name);
    auto was = entries_.find(key);
    Entry e;
    if (was != entries_.end() && was->second.resource_version == obj->resource_version && !obj->resource_version.empty()) {
      e = std::move(was->second);
    } else {
      auto decoded = api::decode_tenantquota(obj->doc);
      ++decodes_;
      e.resource_version = obj->resource_version;
      if (decoded.ok()) e.quota = std::make_shared<const api::TenantQuota>(std::move(*decoded.value));
    }
    now.emplace(key, std::move(e));
  }
  entries_ = std::move(now);
  for (const auto& [key, e] : entries_) {
    if (e.quota) out.push_back(e.quota);
  }
  return out;
}

std::size_t QuotaReader::decodes() const {
  std::lock_guard lock(mu_);
  return decodes_;
}

std::int32_t weight_of(const std::string& ns, const api::QuotaRules* rules) {
  if (!rules) return 1;
  auto w = rules->fair_share.weights.find(ns);
  return w != rules->fair_share.weights.end() ? w->second : rules->fair_share.default_weight;
}

}  // namespace gpupool::quota_controller
