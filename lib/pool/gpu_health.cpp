#include "gpupool/pool/gpu_health.h"

#include <algorithm>
#include <tuple>

#include "gpupool/api/meta.h"

namespace gpupool::pool {
namespace {

constexpr std::size_t kMaxReasons = 32;  // the CRD's maxItems for healthReasons

std::string time_text(HealthTime t) { return api::Time(std::chrono::floor<std::chrono::microseconds>(t)).text(); }

const api::XIDRule* xid_rule(const api::HealthRules& rules, std::int32_t code) {
  for (const auto& r : rules.xids) {
    if (std::find(r.codes.begin(), r.codes.end(), code) != r.codes.end()) return &r;
  }
  return nullptr;
}

// Whether a remembered cause still crosses the rules as they are now.
bool still_applies(const api::HealthRules& rules, const HealthCause& c) {
  switch (c.kind) {
    case HealthCauseKind::xid:
      return xid_rule(rules, c.xid) != nullptr;
    case HealthCauseKind::temperature_critical:
      return rules.temperature && c.worst > rules.temperature->critical_celsius;
    case HealthCauseKind::temperature_warning:
      return rules.temperature && c.worst > rules.temperature->warning_celsius;
    case HealthCauseKind::ecc_uncorrectable:
      return rules.ecc && rules.ecc->uncorrectable_errors > 0 && c.worst >= rules.ecc->uncorrectable_errors;
    case HealthCauseKind::ecc_correctable:
      return rules.ecc && c.worst > rules.ecc->correctable_errors_per_day;
  }
  return false;
}

api::GPUHealth severity(const api::HealthRules& rules, const HealthCause& c) {
  if (c.kind == HealthCauseKind::temperature_warning) return api::GPUHealth::degraded;
  return rule_action(rules, c.kind, c.xid) == api::HealthAction::none ? api::GPUHealth::degraded
                                                                      : api::GPUHealth::unhealthy;
}

std::string describe(const api::HealthRules& rules, const HealthCause& c) {
  switch (c.kind) {
    case HealthCauseKind::xid: {
      std::string out = "XID " + std::to_string(c.xid) + " at " + time_text(c.last_seen);
      if (const auto d = xid_description(c.xid); !d.empty()) out += ": " + std::string(d);
      return out;
    }
    case HealthCauseKind::temperature_critical:
      return "temperature " + std::to_string(c.worst) + " °C above critical " +
             std::to_string(rules.temperature->critical_celsius) + " °C";
    case HealthCauseKind::temperature_warning:
      return "temperature " + std::to_string(c.worst) + " °C above warning " +
             std::to_string(rules.temperature->warning_celsius) + " °C";
    case HealthCauseKind::ecc_uncorrectable:
      return std::to_string(c.worst) + " uncorrectable ECC errors, threshold " +
             std::to_string(rules.ecc->uncorrectable_errors);
    case HealthCauseKind::ecc_correctable:
      return std::to_string(c.worst) + " correctable ECC errors in 24 h, threshold " +
             std::to_string(rules.ecc->correctable_errors_per_day);
  }
  return "";
}

// Marks `kind`/`xid` as seen at `at` with `value`, starting an episode when new.
void see(std::vector<HealthCause>& causes, HealthCauseKind kind, std::int32_t xid, HealthTime at, std::int64_t value) {
  auto it = std::find_if(causes.begin(), causes.end(),
                         [&](const HealthCause& c) { return c.kind == kind && c.xid == xid; });
  if (it == causes.end()) {
    causes.push_back(HealthCause{kind, xid, at, at, value});
    return;
  }
  it->first_seen = std::min(it->first_seen, at);
  it->last_seen = std::max(it->last_seen, at);
  it->worst = std::max(it->worst, value);
}

}  // namespace

std::string_view xid_description(std::int32_t code) {
  switch (code) {
    case 13: return "Graphics Engine Exception";
    case 31: return "GPU memory page fault";
    case 32: return "Invalid or corrupted push buffer stream";
    case 38: return "Driver firmware error";
    case 43: return "GPU stopped processing";
    case 45: return "Preemptive cleanup, due to previous errors";
    case 48: return "Double Bit ECC Error";
    case 61: return "Internal micro-controller breakpoint/warning";
    case 62: return "Internal micro-controller halt";
    case 63: return "ECC page retirement or row remapping recording event";
    case 64: return "ECC page retirement or row remapper recording failure";
    case 68: return "Video processor exception";
    case 69: return "Graphics Engine class error";
    case 74: return "NVLink error";
    case 79: return "GPU has fallen off the bus";
    case 92: return "High single-bit ECC error rate";
    case 94: return "Contained ECC error";
    case 95: return "Uncontained ECC error";
    case 109: return "Context switch timeout";
    case 119: return "GSP RPC timeout";
    case 120: return "GSP error";
    default: return "";
  }
}

api::HealthAction stronger(api::HealthAction a, api::HealthAction b) {
  auto rank = [](api::HealthAction x) {
    return x == api::HealthAction::cordon ? 2 : x == api::HealthAction::taint ? 1 : 0;
  };
  return rank(a) >= rank(b) ? a : b;
}

api::HealthAction rule_action(const api::HealthRules& rules, HealthCauseKind kind, std::int32_t xid) {
  switch (kind) {
    case HealthCauseKind::xid:
      if (const auto* r = xid_rule(rules, xid)) return r->action;
      return api::HealthAction::none;
    case HealthCauseKind::temperature_critical:
      return rules.temperature ? rules.temperature->action : api::HealthAction::none;
    case HealthCauseKind::temperature_warning:
      return api::HealthAction::none;
    case HealthCauseKind::ecc_uncorrectable:
    case HealthCauseKind::ecc_correctable:
      return rules.ecc ? rules.ecc->action : api::HealthAction::none;
  }
  return api::HealthAction::none;
}

GpuHealthJudgment judge_gpu_health(const api::HealthRules& rules, const GpuHealthMemory& previous,
                                   const GpuObservation& observed, HealthTime now) {
  const auto recovery = std::max(std::chrono::duration_cast<HealthTime::duration>(rules.recovery_period.value()),
                                 HealthTime::duration{0});
  GpuHealthJudgment j;
  std::vector<HealthCause> causes = previous.causes;

  // What was seen now.
  for (const auto& x : observed.xids) {
    if (xid_rule(rules, x.code) == nullptr) continue;  // unlisted
    const HealthTime at = std::min(x.at, now);
    if (at + recovery <= now) continue;  // already over
    see(causes, HealthCauseKind::xid, x.code, at, 0);
  }
  if (rules.temperature && observed.temperature_celsius) {
    const std::int32_t t = *observed.temperature_celsius;
    if (t > rules.temperature->critical_celsius) see(causes, HealthCauseKind::temperature_critical, 0, now, t);
    if (t > rules.temperature->warning_celsius) see(causes, HealthCauseKind::temperature_warning, 0, now, t);
  }
  if (rules.ecc && observed.ecc_uncorrectable && rules.ecc->uncorrectable_errors > 0 &&
      *observed.ecc_uncorrectable >= rules.ecc->uncorrectable_errors) {
    see(causes, HealthCauseKind::ecc_uncorrectable, 0, now, *observed.ecc_uncorrectable);
  }
  if (rules.ecc && observed.ecc_correctable_last_day &&
      *observed.ecc_correctable_last_day > rules.ecc->correctable_errors_per_day) {
    see(causes, HealthCauseKind::ecc_correctable, 0, now, *observed.ecc_correctable_last_day);
  }

  // Drop what no longer counts: rules changed (ends now) or recovered (ends
  // recoveryPeriod after it was last seen).
  std::optional<HealthTime> ended;
  std::vector<HealthCause> kept;
  for (const auto& c : causes) {
    std::optional<HealthTime> end;
    if (!still_applies(rules, c)) {
      end = std::min(now, c.last_seen + recovery);
    } else if (c.last_seen + recovery <= now) {
      end = c.last_seen + recovery;
    }
    if (end) {
      ended = ended ? std::max(*ended, *end) : *end;
    } else {
      kept.push_back(c);
    }
  }
  std::sort(kept.begin(), kept.end(), [](const HealthCause& a, const HealthCause& b) {
    return std::tie(a.kind, a.xid) < std::tie(b.kind, b.xid);
  });
  j.memory.causes = kept;
  if (kept.empty()) {
    j.memory.healthy_since = ended ? ended : previous.healthy_since;
    j.healthy_since = j.memory.healthy_since;
  }

  // The verdict.
  const bool critical_counts = std::any_of(kept.begin(), kept.end(), [](const HealthCause& c) {
    return c.kind == HealthCauseKind::temperature_critical;
  });
  struct Line {
    api::GPUHealth severity;
    const HealthCause* cause;
  };
  std::vector<Line> lines;
  for (const auto& c : kept) {
    const auto s = severity(rules, c);
    if (s == api::GPUHealth::unhealthy) {
      j.health = api::GPUHealth::unhealthy;
      j.action = stronger(j.action, rule_action(rules, c.kind, c.xid));
      j.unhealthy_since = j.unhealthy_since ? std::min(*j.unhealthy_since, c.first_seen) : c.first_seen;
    } else if (j.health == api::GPUHealth::healthy) {
      j.health = api::GPUHealth::degraded;
    }
    const HealthTime expires = c.last_seen + recovery;
    j.next_check = j.next_check ? std::min(*j.next_check, expires) : expires;
    // The warning says nothing more while the critical temperature counts.
    if (c.kind == HealthCauseKind::temperature_warning && critical_counts) continue;
    lines.push_back({s, &c});
  }
  std::stable_sort(lines.begin(), lines.end(), [](const Line& a, const Line& b) {
    return (a.severity == api::GPUHealth::unhealthy) > (b.severity == api::GPUHealth::unhealthy);
  });
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (i + 1 == kMaxReasons && lines.size() > kMaxReasons) {
      j.reasons.push_back("and " + std::to_string(lines.size() - i) + " more causes");
      break;
    }
    const auto& c = *lines[i].cause;
    std::string reason = describe(rules, c);
    if (c.kind == HealthCauseKind::xid || c.last_seen != now) {
      reason += "; clears at " + time_text(c.last_seen + recovery);
    }
    j.reasons.push_back(std::move(reason));
  }
  return j;
}

namespace {

// Digits at the start of `s`, consumed; nullopt when none.
std::optional<std::int64_t> take_number(std::string_view& s) {
  std::size_t n = 0;
  std::int64_t v = 0;
  while (n < s.size() && n < 18 && s[n] >= '0' && s[n] <= '9') v = v * 10 + (s[n++] - '0');
  if (n == 0) return std::nullopt;
  s.remove_prefix(n);
  return v;
}

bool take(std::string_view& s, std::string_view prefix) {
  if (s.substr(0, prefix.size()) != prefix) return false;
  s.remove_prefix(prefix.size());
  return true;
}

}  // namespace

std::optional<ReasonCause> parse_health_reason(std::string_view reason) {
  std::string_view s = reason;
  if (take(s, "XID ")) {
    const auto code = take_number(s);
    if (!code || *code > 1023 || (!s.empty() && s[0] != ' ' && s[0] != ':')) return std::nullopt;
    return ReasonCause{HealthCauseKind::xid, static_cast<std::int32_t>(*code)};
  }
  if (take(s, "temperature ")) {
    if (!take_number(s) || !take(s, " °C above ")) return std::nullopt;
    if (take(s, "critical ")) return ReasonCause{HealthCauseKind::temperature_critical, 0};
    if (take(s, "warning ")) return ReasonCause{HealthCauseKind::temperature_warning, 0};
    return std::nullopt;
  }
  if (take_number(s)) {
    if (take(s, " uncorrectable ECC errors")) return ReasonCause{HealthCauseKind::ecc_uncorrectable, 0};
    if (take(s, " correctable ECC errors")) return ReasonCause{HealthCauseKind::ecc_correctable, 0};
  }
  return std::nullopt;
}

}  // namespace gpupool::pool
