#include "gpupool/pool/rollout.h"

#include <algorithm>
#include <set>
#include <tuple>

#include "name_list.h"

namespace gpupool::pool {

std::int32_t resolve_max_unavailable(const api::IntOrString& value, std::int32_t members) {
  std::int64_t n = 1;
  if (const auto* i = std::get_if<std::int32_t>(&value.value)) {
    n = *i;
  } else {
    const auto& s = std::get<std::string>(value.value);
    std::int64_t percent = 0;
    for (char c : s) {
      if (c < '0' || c > '9') break;
      percent = percent * 10 + (c - '0');
      if (percent > 100) break;
    }
    n = std::min<std::int64_t>(percent, 100) * members / 100;
  }
  return static_cast<std::int32_t>(std::max<std::int64_t>(n, 1));
}

RolloutDecision decide_rollout(std::vector<RolloutNode> nodes, const RolloutSettings& settings) {
  std::sort(nodes.begin(), nodes.end(), [](const RolloutNode& a, const RolloutNode& b) {
    return std::tie(a.lacks_order_label, a.order_key, a.name) < std::tie(b.lacks_order_label, b.order_key, b.name);
  });
  RolloutDecision d;
  std::set<std::string> unavailable;
  // Nodes the rollout disrupts or may: permission held, or cordoned. A node
  // unavailable only for now (NotReady under load) and granted comes back
  // to be drained on top of the others, so grants are bounded by these too.
  std::set<std::string> held;
  std::vector<const RolloutNode*> candidates;
  std::vector<std::string> unreported;  // pending, waiting for their agent's report first
  std::set<std::string> held_now;       // before this decision's writes
  for (auto& n : nodes) {
    if ((n.granted && !n.failed) || n.cordoned || n.agent_cordoned || n.withdrawal_unseen) held_now.insert(n.name);
    if (n.failed && n.retry_requested) {
      // Cleared: back in the queue as pending, without permission.
      if (n.granted) d.withdraw.push_back(n.name);
      n.granted = false;
      n.failed = false;
    }
    if (n.granted && n.up_to_date) {
      d.withdraw.push_back(n.name);
      n.granted = false;
    }
    const bool in_progress = n.granted && !n.up_to_date && !n.failed;
    const bool cordoned = n.cordoned || n.agent_cordoned;
    if (!n.ready || !n.agent_alive || cordoned || in_progress) unavailable.insert(n.name);
    // A failed node keeps its permission but its agent does not act on it.
    if ((n.granted && !n.failed) || cordoned) held.insert(n.name);
    if (n.withdrawal_unseen) {
      unavailable.insert(n.name);
      held.insert(n.name);
    }
    if (in_progress) d.in_progress.push_back(n.name);
    if (n.up_to_date) {
      ++d.updated;
      if (n.agent_cordoned) d.finishing.push_back(n.name);
    } else if (n.failed) {
      d.failed.push_back(n.name);
    } else if (!n.granted) {
      if (!n.agent_alive) {
        d.no_agent.push_back(n.name);
      } else if (!n.reported) {
        unreported.push_back(n.name);
      } else {
        candidates.push_back(&n);
      }
    }
  }
  const auto limit = static_cast<std::size_t>(std::max(settings.max_unavailable, 1));
  d.budget_exhausted = static_cast<std::int32_t>(d.failed.size()) > settings.failure_budget;

  std::vector<std::string> waiting_nodes;
  for (const auto* c : candidates) waiting_nodes.push_back(c->name);
  if (!candidates.empty()) {
    if (settings.paused) {
      d.waiting = "paused (spec.paused)";
    } else if (d.budget_exhausted) {
      d.waiting = std::to_string(d.failed.size()) + " nodes failed, more than the failure budget of " +
                  std::to_string(settings.failure_budget) + ": " + name_list(d.failed);
    } else if (!settings.window_open) {
      d.waiting = settings.window_message.empty() ? "outside the maintenance windows" : settings.window_message;
    } else {
      std::vector<std::string> left;
      for (const auto* c : candidates) {
        const bool already = unavailable.count(c->name) > 0;
        const bool room = held.count(c->name) > 0 || held.size() < limit;
        if (room && (already || unavailable.size() < limit)) {
          d.grant.push_back(c->name);
          d.in_progress.push_back(c->name);
          unavailable.insert(c->name);
          held.insert(c->name);
        } else {
          left.push_back(c->name);
        }
      }
      if (!left.empty()) {
        std::vector<std::string> now(unavailable.begin(), unavailable.end());
        d.waiting = std::to_string(unavailable.size()) + " of " + std::to_string(nodes.size()) +
                    " nodes unavailable (maxUnavailable " + std::to_string(settings.max_unavailable) + "): " + name_list(now);
      }
      waiting_nodes = left;
    }
  }
  for (const auto& name : d.withdraw) {
    if (held_now.count(name) && !held.count(name)) d.freeing.push_back(name);
  }
  std::size_t holding = held_now.size();
  for (const auto& name : d.grant) {
    if (held_now.count(name)) continue;  // adds nothing
    if (holding < limit) {
      ++holding;
    } else {
      d.grants_waiting.push_back(name);
    }
  }
  d.pending = waiting_nodes;
  d.pending.insert(d.pending.end(), unreported.begin(), unreported.end());
  std::sort(d.pending.begin(), d.pending.end());
  d.unavailable.assign(unavailable.begin(), unavailable.end());
  std::sort(d.in_progress.begin(), d.in_progress.end());
  return d;
}

}  // namespace gpupool::pool
