#include "gpupool/pool/health_remediation.h"

#include <algorithm>
#include <tuple>

#include "gpupool/api/meta.h"
#include "name_list.h"

namespace gpupool::pool {
namespace {

std::string time_text(HealthTime t) { return api::Time(std::chrono::floor<std::chrono::microseconds>(t)).text(); }

std::string limit_text(const api::IntOrString& v) {
  if (const auto* i = std::get_if<std::int32_t>(&v.value)) return std::to_string(*i);
  return std::get<std::string>(v.value);
}

std::string taint_text() { return std::string(kUnhealthyTaintKey) + ":" + kUnhealthyTaintEffect; }

}  // namespace

std::string format_remediation_record(const RemediationRecord& r) {
  return std::string(api::to_string(r.action)) + " " + time_text(r.since);
}

std::optional<RemediationRecord> parse_remediation_record(std::string_view text) {
  const auto space = text.find(' ');
  if (space == std::string_view::npos) return std::nullopt;
  const auto action = api::parse_enum<api::HealthAction>(text.substr(0, space));
  if (!action || *action == api::HealthAction::none) return std::nullopt;
  const auto time = api::Time::parse(text.substr(space + 1));
  if (!time) return std::nullopt;
  return RemediationRecord{*action, HealthTime(std::chrono::duration_cast<HealthTime::duration>(
                                        time.value->time().time_since_epoch()))};
}

bool is_taken_out_for_health(bool has_unhealthy_taint, bool unschedulable, const std::optional<std::string>& record) {
  if (has_unhealthy_taint) return true;
  if (!unschedulable || !record) return false;
  const auto r = parse_remediation_record(*record);
  return r && r->action == api::HealthAction::cordon;
}

std::int32_t resolve_max_unhealthy_nodes(const api::IntOrString& value, std::int32_t members) {
  if (const auto* i = std::get_if<std::int32_t>(&value.value)) return std::max(*i, 0);
  const auto& s = std::get<std::string>(value.value);
  std::int64_t percent = 0;
  for (char c : s) {
    if (c < '0' || c > '9') break;
    percent = percent * 10 + (c - '0');
    if (percent > 100) break;
  }
  percent = std::min<std::int64_t>(percent, 100);
  const std::int64_t m = std::max(members, 0);
  std::int64_t n = percent * m / 100;
  if (percent > 0 && m > 0) n = std::max<std::int64_t>(n, 1);
  return static_cast<std::int32_t>(n);
}

NodeHealthSummary summarize_gpus(const api::HealthRules& rules, const std::vector<api::GPUStatus>& gpus) {
  NodeHealthSummary out;
  std::vector<std::string> lines;
  for (const auto& g : gpus) {
    if (g.health != api::GPUHealth::unhealthy) continue;
    auto action = api::HealthAction::none;
    for (const auto& r : g.health_reasons) {
      if (const auto cause = parse_health_reason(r)) {
        action = stronger(action, rule_action(rules, cause->kind, cause->xid));
      }
    }
    out.wanted = stronger(out.wanted, action);
    out.unhealthy_gpus.push_back(g.index);
    lines.push_back("GPU " + std::to_string(g.index) + ": " +
                    (g.health_reasons.empty() ? std::string("Unhealthy") : g.health_reasons.front()));
  }
  for (std::size_t i = 0; i < lines.size() && i < 3; ++i) out.reason += (i ? "; " : "") + lines[i];
  if (lines.size() > 3) out.reason += "; and " + std::to_string(lines.size() - 3) + " more GPUs";
  return out;
}

RemediationDecision decide_remediation(std::vector<HealthNode> nodes, const RemediationSettings& settings,
                                       HealthTime now) {
  std::sort(nodes.begin(), nodes.end(), [](const HealthNode& a, const HealthNode& b) { return a.name < b.name; });
  RemediationDecision d;
  d.limit = resolve_max_unhealthy_nodes(settings.max_unhealthy_nodes, static_cast<std::int32_t>(nodes.size()));
  std::vector<const HealthNode*> candidates;
  std::vector<std::string> unhealthy;

  for (const auto& n : nodes) {
    const auto parsed = n.record ? parse_remediation_record(*n.record) : std::nullopt;
    const bool ours_taint = n.has_unhealthy_taint;
    const bool ours_cordon = n.unschedulable && parsed && parsed->action == api::HealthAction::cordon;
    const bool ours = ours_taint || ours_cordon;
    if (!n.status_current) {
      d.unknown.push_back(n.name);
      if (ours) d.taken_out.push_back(n.name);
      continue;
    }
    if (n.wanted == api::HealthAction::none) {
      if (ours) {
        NodeRemediation c;
        c.node = n.name;
        c.remove_taint = ours_taint;
        c.uncordon = ours_cordon;
        c.event_reason = kEventHealthCleared;
        c.message = "GPUs no longer unhealthy: " +
                    std::string(ours_taint && ours_cordon ? "removed the taint " + taint_text() + " and uncordoned"
                                : ours_taint              ? "removed the taint " + taint_text()
                                                          : "uncordoned");
        d.clear.push_back(std::move(c));
      } else if (n.record) {
        NodeRemediation c;  // a record left behind: nothing of ours is on the node
        c.node = n.name;
        d.adjust.push_back(std::move(c));
      }
      continue;
    }
    unhealthy.push_back(n.name);
    if (ours) {
      // Keep it out, in the form the GPUs ask for now.
      const auto form = n.wanted == api::HealthAction::cordon && (ours_cordon || !n.unschedulable)
                            ? api::HealthAction::cordon
                            : api::HealthAction::taint;
      NodeRemediation c;
      c.node = n.name;
      c.action = form;
      c.add_taint = form == api::HealthAction::taint && !n.has_unhealthy_taint;
      c.remove_taint = form == api::HealthAction::cordon && n.has_unhealthy_taint;
      c.cordon = form == api::HealthAction::cordon && !n.unschedulable;
      c.uncordon = form == api::HealthAction::taint && ours_cordon;
      c.record = format_remediation_record({form, parsed ? parsed->since : now});
      if (c.add_taint || c.remove_taint || c.cordon || c.uncordon) {
        c.event_reason = form == api::HealthAction::cordon ? kEventHealthCordoned : kEventHealthTainted;
        c.message = form == api::HealthAction::cordon ? "cordoned instead of tainted: " + n.reason
                                                      : "tainted " + taint_text() + " instead of cordoned: " + n.reason;
      }
      if (c.add_taint || c.remove_taint || c.cordon || c.uncordon || c.record != n.record) {
        d.adjust.push_back(std::move(c));
      }
      d.taken_out.push_back(n.name);
      continue;
    }
    if (n.unschedulable) {
      d.not_ours.push_back(n.name);
      if (n.record) {
        NodeRemediation c;
        c.node = n.name;
        d.adjust.push_back(std::move(c));
      }
      continue;
    }
    candidates.push_back(&n);
  }

  // Longest unhealthy first, then by name.
  std::stable_sort(candidates.begin(), candidates.end(), [](const HealthNode* a, const HealthNode* b) {
    const bool a_none = !a->unhealthy_since, b_none = !b->unhealthy_since;
    return std::tie(a_none, a->unhealthy_since, a->name) < std::tie(b_none, b->unhealthy_since, b->name);
  });
  const std::string of_pool = " allowed nodes of pool " + settings.pool;
  for (const auto* n : candidates) {
    const auto out = static_cast<std::int32_t>(d.taken_out.size());
    if (out < d.limit) {
      NodeRemediation c;
      c.node = n->name;
      c.action = n->wanted;
      c.add_taint = n->wanted == api::HealthAction::taint;
      c.cordon = n->wanted == api::HealthAction::cordon;
      c.record = format_remediation_record({n->wanted, now});
      c.event_reason = c.cordon ? kEventHealthCordoned : kEventHealthTainted;
      c.message = (c.cordon ? std::string("cordoned: ") : "tainted " + taint_text() + ": ") + n->reason + " (" +
                  std::to_string(out + 1) + " of " + std::to_string(d.limit) + of_pool + ")";
      d.take_out.push_back(std::move(c));
      d.taken_out.push_back(n->name);
    } else {
      d.held_back.push_back(
          {n->name, "node " + n->name + " has an unhealthy GPU" + (n->reason.empty() ? "" : " (" + n->reason + ")") +
                        " but " + std::to_string(out) + " of " + std::to_string(d.limit) + of_pool +
                        " are already remediated (maxUnhealthyNodes " +
                        limit_text(settings.max_unhealthy_nodes) + " of " + std::to_string(nodes.size()) +
                        " nodes): reported, not taken out"});
    }
  }
  std::sort(d.taken_out.begin(), d.taken_out.end());

  if (!d.taken_out.empty() || !unhealthy.empty()) {
    d.summary = std::to_string(d.taken_out.size()) + " of " + std::to_string(nodes.size()) + " nodes of pool " +
                settings.pool + " taken out for GPU health (limit " + std::to_string(d.limit) + ")";
    if (!d.held_back.empty()) {
      std::vector<std::string> names;
      for (const auto& h : d.held_back) names.push_back(h.node);
      d.summary += "; held back: " + name_list(names);
    }
    if (!d.not_ours.empty()) d.summary += "; already cordoned by someone else: " + name_list(d.not_ours);
    if (!d.unknown.empty()) d.summary += "; agent not reporting: " + name_list(d.unknown);
  }
  return d;
}

}  // namespace gpupool::pool
