#include "gpu_health_tracker.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>

#include "gpupool/kube/json_access.h"
#include "gpupool/pool/health_remediation.h"

namespace gpupool::node {
namespace {

constexpr auto kDay = std::chrono::hours(24);

std::optional<std::int32_t> whole_celsius(const std::optional<double>& c) {
  if (!c || !std::isfinite(*c)) return std::nullopt;
  const double r = std::round(*c);
  if (r < -1000 || r > 1000) return std::nullopt;  // nothing a sensor reports; not a reading
  return static_cast<std::int32_t>(r);
}

std::string list_gpus(const std::vector<std::string>& lines) {
  std::string out;
  for (std::size_t i = 0; i < lines.size() && i < 3; ++i) out += (i ? "; " : "") + lines[i];
  if (lines.size() > 3) out += "; and " + std::to_string(lines.size() - 3) + " more GPUs";
  return out;
}

}  // namespace

std::optional<std::int64_t> GpuHealthTracker::correctable_last_day(EccHistory& h, std::int64_t count,
                                                                   pool::HealthTime at, pool::HealthTime now) {
  if (!h.read_at || at > *h.read_at) {
    if (!h.samples.empty() && count < h.samples.back().second) h.samples.clear();  // the count restarted
    if (h.samples.empty() || at - h.samples.back().first >= options_.ecc_sample_spacing) h.samples.emplace_back(at, count);
    h.read_at = at;
    h.latest = count;
  }
  if (h.samples.empty()) return std::nullopt;
  // The base: the newest sample at least 24 h old, else the oldest kept.
  std::size_t base = 0;
  for (std::size_t i = 0; i < h.samples.size(); ++i) {
    if (h.samples[i].first <= now - kDay) base = i;
  }
  h.samples.erase(h.samples.begin(), h.samples.begin() + static_cast<std::ptrdiff_t>(base));
  return std::max<std::int64_t>(h.latest - h.samples.front().second, 0);
}

std::map<std::string, GpuVerdict> GpuHealthTracker::judge(const std::optional<api::HealthRules>& rules,
                                                          const std::vector<GpuIdentity>& gpus,
                                                          const TelemetrySnapshot* snapshot, pool::HealthTime now) {
  std::lock_guard lock(mu_);
  std::map<std::string, GpuVerdict> out;
  if (!rules) {
    // No rules: nothing is judged and nothing remembered; XIDs stay unjudged
    // (rules added within their recovery period still see them).
    memory_.clear();
    for (const auto& g : gpus) out[g.uuid] = GpuVerdict{};
    return out;
  }
  const bool collected = snapshot != nullptr && snapshot->sequence > 0;
  const bool fresh = collected && snapshot->metrics_at && now - *snapshot->metrics_at <= options_.metrics_fresh;

  std::set<std::string> present;
  for (const auto& g : gpus) {
    present.insert(g.uuid);
    pool::GpuObservation obs;
    if (collected) {
      if (auto x = snapshot->xids.find(g.index); x != snapshot->xids.end()) {
        for (const auto& [code, c] : x->second.codes) {
          auto& judged = xids_judged_[{g.index, code}];
          if (c.count < judged) judged = 0;  // a new poller (cannot happen within one agent): start over
          if (c.count == judged) continue;
          if (judged == 0 && c.first != c.last) obs.xids.push_back({code, c.first});
          obs.xids.push_back({code, c.last});
          judged = c.count;
        }
      }
    }
    if (fresh) {
      if (const auto* m = snapshot->gpu(g.index)) {
        obs.temperature_celsius = whole_celsius(m->temperature_celsius);
        obs.ecc_uncorrectable = m->ecc_uncorrected_total;
        if (m->ecc_corrected_total) {
          obs.ecc_correctable_last_day = correctable_last_day(ecc_[g.uuid], *m->ecc_corrected_total, *snapshot->metrics_at, now);
        }
      }
    }
    const auto j = pool::judge_gpu_health(*rules, memory_[g.uuid], obs, now);
    memory_[g.uuid] = j.memory;
    GpuVerdict v;
    v.health = j.health;
    v.reasons = j.reasons;
    v.next_check = j.next_check;
    if (!collected && j.health == api::GPUHealth::healthy) v.health = api::GPUHealth::unknown;
    out[g.uuid] = std::move(v);
  }
  // Forget GPUs that are gone and have nothing left to remember.
  for (auto it = memory_.begin(); it != memory_.end();) {
    if (!present.count(it->first) && it->second.causes.empty()) {
      ecc_.erase(it->first);
      it = memory_.erase(it);
    } else {
      ++it;
    }
  }
  return out;
}

std::vector<GpuIdentity> gpu_identities(const std::vector<api::GPUStatus>& gpus) {
  std::vector<GpuIdentity> out;
  for (const auto& g : gpus) out.push_back({g.index, g.uuid.empty() ? "index-" + std::to_string(g.index) : g.uuid});
  return out;
}

void apply_verdicts(std::vector<api::GPUStatus>& gpus, const std::map<std::string, GpuVerdict>& verdicts) {
  const auto ids = gpu_identities(gpus);
  for (std::size_t i = 0; i < gpus.size(); ++i) {
    auto it = verdicts.find(ids[i].uuid);
    if (it == verdicts.end()) {
      gpus[i].health = api::GPUHealth::unknown;
      gpus[i].health_reasons.clear();
    } else {
      gpus[i].health = it->second.health;
      gpus[i].health_reasons = it->second.reasons;
    }
  }
}

api::Condition healthy_condition(const std::vector<api::GPUStatus>& gpus, bool has_rules, std::int64_t generation,
                                 const api::Time& now) {
  api::Condition c;
  c.type = "Healthy";
  c.observed_generation = generation;
  c.last_transition_time = now;
  std::vector<std::string> unhealthy, degraded, unknown;
  for (const auto& g : gpus) {
    const std::string first = g.health_reasons.empty() ? std::string() : ": " + g.health_reasons.front();
    const std::string line = "GPU " + std::to_string(g.index) + first;
    if (g.health == api::GPUHealth::unhealthy) unhealthy.push_back(line);
    if (g.health == api::GPUHealth::degraded) degraded.push_back(line);
    if (g.health == api::GPUHealth::unknown) unknown.push_back("GPU " + std::to_string(g.index));
  }
  if (!unhealthy.empty()) {
    c.status = api::ConditionStatus::false_;
    c.reason = "GPUUnhealthy";
    c.message = list_gpus(unhealthy);
  } else if (!unknown.empty()) {
    c.status = api::ConditionStatus::unknown;
    c.reason = "NotMeasured";
    c.message = "not judged yet: " + list_gpus(unknown);
  } else if (!degraded.empty()) {
    c.status = api::ConditionStatus::true_;
    c.reason = "GPUDegraded";
    c.message = "degraded, nothing taken out: " + list_gpus(degraded);
  } else if (!has_rules) {
    c.status = api::ConditionStatus::true_;
    c.reason = "NoHealthRules";
    c.message = "spec.health is not set: no GPU is judged";
  } else {
    c.status = api::ConditionStatus::true_;
    c.reason = "AllHealthy";
    c.message = std::to_string(gpus.size()) + " GPUs healthy";
  }
  return c;
}

bool node_taken_out_for_health(const rapidjson::Value& node) {
  bool tainted = false;
  if (const auto* t = kube::value_at(node, {"spec", "taints"}); t && t->IsArray()) {
    for (const auto& x : t->GetArray()) {
      tainted = tainted || (x.IsObject() && x.HasMember("key") && x["key"].IsString() &&
                            std::string_view(x["key"].GetString()) == pool::kUnhealthyTaintKey);
    }
  }
  const auto* u = kube::value_at(node, {"spec", "unschedulable"});
  const bool unschedulable = u && u->IsBool() && u->GetBool();
  std::optional<std::string> record;
  if (const auto* a = kube::value_at(node, {"metadata", "annotations", pool::kHealthRemediationAnnotation});
      a && a->IsString()) {
    record = a->GetString();
  }
  return pool::is_taken_out_for_health(tainted, unschedulable, record);
}

backend::Inventory without_unhealthy(const backend::Inventory& inventory, const std::vector<api::GPUStatus>& gpus,
                                     std::vector<int>* withdrawn) {
  backend::Inventory out = inventory;
  std::erase_if(out.gpus, [&](const backend::GpuInfo& g) {
    const bool bad = std::any_of(gpus.begin(), gpus.end(), [&](const api::GPUStatus& s) {
      return s.index == g.index && s.uuid == g.uuid && s.health == api::GPUHealth::unhealthy;
    });
    if (bad && withdrawn) withdrawn->push_back(g.index);
    return bad;
  });
  return out;
}

}  // namespace gpupool::node
