#include "gpupool/explain/explain.h"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <optional>

#include "gpupool/kube/node_conditions.h"
#include "json_read.h"
#include "summaries.h"

namespace gpupool::explain {

using namespace detail;

namespace {

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::optional<Kind> kind_of(const std::string& word) {
  const std::string w = lower(word);
  for (const char* k : {"pool", "pools", "gpupool", "gpupools", "gpool", "gpupool.gpupool.io", "gpupools.gpupool.io"}) {
    if (w == k) return Kind::pool;
  }
  for (const char* k : {"node", "nodes", "gpunode", "gpunodes", "gnode", "gpunode.gpupool.io", "gpunodes.gpupool.io"}) {
    if (w == k) return Kind::node;
  }
  for (const char* k : {"tenantquota", "tenantquotas", "tq", "quota", "quotas", "tenantquota.gpupool.io",
                        "tenantquotas.gpupool.io"}) {
    if (w == k) return Kind::tenantquota;
  }
  return std::nullopt;
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (true) {
    const auto at_sep = s.find(sep, start);
    out.push_back(s.substr(start, at_sep - start));
    if (at_sep == std::string::npos) return out;
    start = at_sep + 1;
  }
}

// The text of an explanation: a headline, bullets, recent events.
struct Text {
  std::string headline;
  std::vector<std::string> bullets;
  std::vector<std::string> events;

  void add(const std::string& b) {
    if (!b.empty()) bullets.push_back(b);
  }
  std::string str() const {
    std::string out = headline + "\n";
    for (const auto& b : bullets) out += "  - " + b + "\n";
    if (!events.empty()) {
      out += "Recent events (newest first):\n";
      for (const auto& e : events) out += "  " + e + "\n";
    }
    return out;
  }
};

std::string cond_text(const Condition& c) { return c.reason + (c.message.empty() ? "" : ": " + c.message); }

std::string sentence(std::string s) {
  while (!s.empty() && (s.back() == ' ' || s.back() == '\n')) s.pop_back();
  if (!s.empty() && s.back() != '.' && s.back() != ')' && s.back() != '`' && s.back() != '?') s += '.';
  return s;
}

std::optional<TimePoint> event_time(const Value& e) {
  for (auto path : {std::initializer_list<const char*>{"series", "lastObservedTime"}, {"eventTime"},
                    {"deprecatedLastTimestamp"}, {"metadata", "creationTimestamp"}}) {
    if (auto t = time_at(&e, path)) return t;
  }
  return std::nullopt;
}

// The newest `max` events, one line each: "3m ago  Warning  NodeFailed  note (x4)".
std::vector<std::string> event_lines(const std::vector<const Value*>& events, TimePoint now, std::size_t max = 5,
                                     bool with_object = false) {
  std::vector<std::pair<TimePoint, const Value*>> timed;
  for (const Value* e : events) timed.emplace_back(event_time(*e).value_or(TimePoint{}), e);
  std::stable_sort(timed.begin(), timed.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  std::vector<std::string> out;
  for (const auto& [t, e] : timed) {
    if (out.size() == max) break;
    std::string note = str(e, {"note"});
    if (note.empty()) note = str(e, {"message"});  // core/v1 Events
    const std::int64_t count = integer(e, {"series", "count"}, 1);
    std::string line = (t == TimePoint{} ? std::string("?") : age(now, t) + " ago") + "  " + str(e, {"type"}) + "  " +
                       str(e, {"reason"});
    if (with_object) line += "  " + lower(str(e, {"regarding", "kind"})) + "/" + str(e, {"regarding", "name"});
    line += "  " + shorten(note, 300) + (count > 1 ? " (x" + std::to_string(count) + ")" : "");
    out.push_back(line);
  }
  return out;
}

std::string to_json(const Value* v) {
  if (v == nullptr) return "{}";
  rapidjson::StringBuffer buf;
  rapidjson::Writer<rapidjson::StringBuffer> w(buf);
  v->Accept(w);
  return buf.GetString();
}

std::string generation_note(const Value& obj, const char* writer) {
  const std::int64_t generation = integer(&obj, {"metadata", "generation"});
  const std::int64_t observed = integer(&obj, {"status", "observedGeneration"});
  if (observed >= generation) return "";
  return std::string(writer) + " has not acted on the latest spec yet (generation " + std::to_string(generation) +
         "; the status is of generation " + std::to_string(observed) + ")";
}

std::string taint_text(const Value* t) {
  const std::string value = str(t, {"value"});
  return str(t, {"key"}) + (value.empty() ? "" : "=" + value) + ":" + str(t, {"effect"});
}

}  // namespace

std::variant<Target, std::string> parse_target(const std::vector<std::string>& args) {
  const std::string usage =
      "expected KIND NAME or KIND/NAME, KIND one of pool, node, tenantquota (a TenantQuota also as "
      "tenantquota NAMESPACE/NAME)";
  if (args.empty() || args.size() > 2) return usage;
  std::vector<std::string> words = split(args[0], '/');
  if (args.size() == 2) {
    if (words.size() != 1) return usage;
    for (const auto& w : split(args[1], '/')) words.push_back(w);
  }
  if (words.size() < 2) return usage;
  const auto kind = kind_of(words[0]);
  if (!kind) return "unknown kind \"" + words[0] + "\": " + usage;
  Target t;
  t.kind = *kind;
  if (words.size() == 3 && t.kind == Kind::tenantquota) {
    t.ns = words[1];
    t.name = words[2];
  } else if (words.size() == 2) {
    t.name = words[1];
  } else {
    return usage;
  }
  if (t.name.empty() || (words.size() == 3 && t.ns.empty())) return usage;
  return t;
}

// ---------------------------------------------------------------------------
// GPUPool

std::string explain_pool(const PoolFacts& f) {
  const Value& p = *f.pool;
  const std::string name = str(&p, {"metadata", "name"});
  const std::string what = "GPUPool " + name;
  Text text;
  text.events = event_lines(f.events, f.now);
  const Value* status = member(&p, "status");
  if (status == nullptr || !status->IsObject() || status->ObjectEmpty()) {
    text.headline = what + " has no status: the controller has not reconciled it yet. Is gpupool-controller running "
                           "(and, with leader election, leading)?";
    return text.str();
  }

  // The members as their agents and the Nodes report them.
  std::map<std::string, const Value*> nodes;
  for (const Value* n : f.nodes) nodes[str(n, {"metadata", "name"})] = n;
  std::vector<std::string> failed, no_report, unhealthy, updating, not_ready, cordoned;
  for (const Value* g : f.gpunodes) {
    const std::string n = str(g, {"metadata", "name"});
    const NodeState st = node_state(*g);
    if (st.state.rfind("Failed", 0) == 0) failed.push_back(n + " (" + st.reason + ")");
    if (st.state == "NoReport") no_report.push_back(n);
    if (st.state.rfind("Updating", 0) == 0) updating.push_back(n + ": " + shorten(st.reason, 200));
    if (st.state.find("Unhealthy") != std::string::npos) {
      const auto h = condition(*g, "Healthy");
      unhealthy.push_back(n + (h ? " (" + shorten(h->message, 200) + ")" : ""));
    }
    auto it = nodes.find(n);
    if (it == nodes.end()) continue;
    if (!kube::node_ready(*it->second)) {
      const auto c = condition(*it->second, "Ready");
      not_ready.push_back(n + (c ? " (" + cond_text(*c) + ")" : ""));
    }
    if (boolean(it->second, {"spec", "unschedulable"})) {
      cordoned.push_back(n + " " + cordon_origin(*it->second, st.state.rfind("Failed", 0) == 0));
    }
  }

  const auto ready = condition(p, "Ready");
  const auto degraded = condition(p, "Degraded");
  const std::string reason = ready ? ready->reason : "";
  const std::string message = ready ? ready->message : "";
  const std::int64_t total = integer(status, {"nodes", "total"});
  const std::int64_t ready_nodes = integer(status, {"nodes", "ready"});
  const Value* rollout = member(status, "rollout");
  const std::string progress =
      rollout == nullptr ? ""
                         : "rollout: " + std::to_string(integer(rollout, {"updated"})) + " of " + std::to_string(total) +
                               " nodes up to date, " + std::to_string(integer(rollout, {"pending"})) + " waiting, " +
                               std::to_string(integer(status, {"nodes", "updating"})) + " in progress, " +
                               std::to_string(integer(rollout, {"failed"})) + " failed" +
                               (str(rollout, {"targetVersion"}).empty() ? ""
                                                                       : " (driver " + str(rollout, {"targetVersion"}) + ")");
  bool listed_failed = false, listed_updating = false;
  const std::string retry_hint = "after fixing the cause, let a failed node try again: `kubectl annotate gpunode NODE "
                                 "gpupool.io/retry=true`";

  if (!ready) {
    text.headline = what + " has no Ready condition yet: the controller has not finished a pass over it.";
  } else if (ready->is_true()) {
    text.headline = what + " is ready: " + sentence(message);
  } else if (reason == "Paused") {
    text.headline = what + " is not progressing: it is paused (spec.paused is true), so no new node starts.";
    text.add(progress);
    text.add("to resume: `kubectl patch gpupool " + name + " --type=merge -p '{\"spec\":{\"paused\":false}}'`");
  } else if (reason == "OutsideMaintenanceWindow") {
    text.headline = what + " is waiting for a maintenance window: " + sentence(message);
    text.add(progress);
  } else if (reason == "FailureBudgetExceeded") {
    text.headline = what + " has stopped: more nodes failed than its failure budget allows, so no new node starts.";
    if (!failed.empty()) {
      text.add("failed: " + join(failed, "; "));
      text.add(retry_hint);
    } else if (degraded && degraded->is_true()) {
      text.add(degraded->message);  // names the failed nodes and how to clear a failure
    }
    listed_failed = true;
    text.add(progress);
  } else if (reason == "WaitingForTurn") {
    text.headline = what + " is rolling out; nodes wait for their turn: " + sentence(message);
    text.add(progress);
  } else if (reason == "RollingOut") {
    text.headline = what + " is rolling out: " + sentence(message);
    if (!updating.empty()) text.add("in progress: " + join(updating, "; "));
    listed_updating = true;
  } else if (reason == "NodesFailed") {
    text.headline = what + " has failed nodes (within its failure budget): " + sentence(message);
    if (!failed.empty()) text.add("failed: " + join(failed, "; "));
    listed_failed = true;
    text.add(retry_hint);
  } else if (reason == "NoMembers") {
    text.headline = what + " has no member nodes: " + sentence(message);
    text.add("spec.nodeSelector: " + to_json(at(&p, {"spec", "nodeSelector"})));
  } else if (reason == "PolicyNotFound" || reason == "InvalidSpec") {
    text.headline = what + " is not progressing: " + sentence(message);
  } else if (reason == "Complete") {
    text.headline = what + " matches its spec on every node, but only " + std::to_string(ready_nodes) + " of " +
                    std::to_string(total) + " nodes are Ready.";
  } else {
    text.headline = what + " is not ready (" + reason + "): " + sentence(message);
  }

  text.add(generation_note(p, "the controller"));
  if (const auto c = condition(p, "Conflict"); c && c->is_true()) text.add("conflict: " + c->message);
  if (const auto h = condition(p, "UnhealthyNodesHeldBack"); h && h->is_true()) text.add("GPU health: " + h->message);
  if (!listed_failed && !failed.empty()) text.add("failed: " + join(failed, "; "));
  if (!listed_updating && !updating.empty() && reason != "Paused" && !(ready && ready->is_true())) {
    text.add("in progress: " + join(updating, "; "));
  }
  if (!no_report.empty()) text.add("no report from the agent of " + name_list(no_report) + " (is gpupool-agent running there?)");
  if (!unhealthy.empty()) text.add("unhealthy GPUs on " + join(unhealthy, "; "));
  if (!not_ready.empty()) text.add("Node not Ready: " + join(not_ready, "; "));
  if (!cordoned.empty()) text.add("cordoned: " + join(cordoned, "; "));
  if (const auto m = condition(p, "MonitoringRolledOut");
      m && m->is_false() && m->reason != "MonitoringDisabled") {
    text.add("monitoring not rolled out (" + m->reason + "; this does not hold up the rollout): " + shorten(m->message, 160));
  }
  if (text.bullets.empty() && ready && ready->is_true()) return text.headline + "\n";
  return text.str();
}

// ---------------------------------------------------------------------------
// GPUNode

std::string explain_node(const NodeFacts& f) {
  const Value& g = *f.gpunode;
  const std::string name = str(&g, {"metadata", "name"});
  const std::string what = "GPUNode " + name;
  const std::string pool = str(&g, {"spec", "pool"});
  Text text;
  text.events = event_lines(f.events, f.now, 6, true);

  // The agent's liveness, from its Lease as the controller judges it.
  const std::string lease_name = "gpupool-agent-" + name;
  std::string agent_problem;
  if (f.lease_checked && f.lease == nullptr) {
    agent_problem = "there is no agent Lease " + lease_name + " in namespace " + f.lease_namespace +
                    ": its agent is not running (or keeps its Lease in another namespace: --agent-namespace)";
  } else if (f.lease != nullptr) {
    const auto renewed = time_at(f.lease, {"spec", "renewTime"});
    const std::int64_t duration = integer(f.lease, {"spec", "leaseDurationSeconds"}, 0);
    if (!renewed) {
      agent_problem = "its agent's Lease " + lease_name + " has never been renewed";
    } else if (*renewed + std::chrono::seconds(duration) <= f.now) {
      agent_problem = "its agent's Lease " + lease_name + " was last renewed " + age(f.now, *renewed) +
                      " ago (lease duration " + std::to_string(duration) +
                      "s): the agent is not running or cannot reach the API server, and the rollout counts the node "
                      "as unavailable";
    }
  }

  const Value* status = member(&g, "status");
  const NodeState st = node_state(g);
  const auto ready = condition(g, "Ready");
  std::vector<std::string> ops_failed, ops_busy;
  for (const Value* op : elements(member(status, "operations"))) {
    const std::string phase = str(op, {"phase"});
    const auto since = time_at(op, {"lastTransitionTime"});
    const std::string line = str(op, {"type"}) + " " + str(op, {"reason"}) +
                             (str(op, {"message"}).empty() ? "" : ": " + str(op, {"message"})) +
                             (since ? " (since " + age(f.now, *since) + " ago)" : "");
    if (phase == "Failed") ops_failed.push_back(line);
    if (phase == "InProgress") ops_busy.push_back(line);
  }

  if (st.state == "NoReport") {
    text.headline = what + " has no report from its agent" +
                    (agent_problem.empty() ? ": is gpupool-agent running on node " + name + "?" : ": " + sentence(agent_problem));
    agent_problem.clear();
  } else if (!agent_problem.empty()) {
    text.headline = what + " is not progressing: " + sentence(agent_problem);
    agent_problem.clear();
    text.add("its agent's last report: " + st.state + (st.reason.empty() ? "" : " (" + st.reason + ")"));
  } else if (st.state.rfind("Ready", 0) == 0) {
    text.headline = what + " is ready: " + sentence(ready ? ready->message : "");
  } else if (st.state.rfind("Failed", 0) == 0) {
    text.headline = what + " failed: " + sentence(ready ? cond_text(*ready) : st.reason);
    for (const auto& o : ops_failed) text.add("failed operation: " + o);
    text.add("its agent does not retry this spec generation; after fixing the cause: `kubectl annotate gpunode " + name +
             " gpupool.io/retry=true` (the controller then lets it try again when its turn comes)");
  } else if (st.state.rfind("Updating", 0) == 0) {
    text.headline = what + " is being changed: " + sentence(ready ? ready->message : st.reason);
    for (const auto& o : ops_busy) text.add("in progress: " + o);
  } else if (st.state.rfind("Waiting", 0) == 0) {
    text.headline = what + " is waiting for permission: it needs changes (" + (ready ? ready->message : "") +
                    ") and the controller has not allowed them yet (spec.disruptionAllowed is false).";
    if (f.pool != nullptr) {
      const auto progressing = condition(*f.pool, "Progressing");
      if (progressing) text.add("GPUPool " + pool + ": " + cond_text(*progressing));
    } else if (!pool.empty()) {
      text.add("GPUPool " + pool + " was not found");
    }
  } else if (st.state.rfind("Starting", 0) == 0) {
    text.headline = what + " may be changed now (spec.disruptionAllowed is true); its agent has not started yet: " +
                    sentence(ready ? ready->message : "");
  } else if (st.state.rfind("Error", 0) == 0) {
    text.headline = what + ": its agent cannot read the GPUs: " + sentence(ready ? ready->message : st.reason);
  } else if (st.state.rfind("Pending", 0) == 0) {
    text.headline = what + " has a new spec its agent has not acted on yet: " + sentence(st.reason);
  } else {
    text.headline = what + " is in an unknown state: " + sentence(st.reason);
  }

  if (pool.empty()) {
    const std::string conflict = str(f.node, {"metadata", "labels", "gpupool.io/pool-conflict"});
    if (!conflict.empty()) {
      std::vector<std::string> pools = split(conflict, '_');
      text.add("in no GPUPool: pools " + join(pools, ", ") +
               " select it at the same priority, and no pool acts on such a node until one pool's priority or "
               "nodeSelector changes");
    } else {
      text.add("in no GPUPool: no pool's spec.nodeSelector selects node " + name);
    }
  }
  if (st.state.rfind("Pending", 0) != 0) text.add(generation_note(g, "its agent"));
  if (const auto h = condition(g, "Healthy"); h && h->is_false()) {
    text.add("unhealthy GPUs: " + h->message);
    for (const Value* gpu : elements(member(status, "gpus"))) {
      if (str(gpu, {"health"}) != "Unhealthy") continue;
      std::vector<std::string> reasons;
      for (const Value* r : elements(member(gpu, "healthReasons"))) {
        if (r->IsString()) reasons.emplace_back(r->GetString(), r->GetStringLength());
      }
      text.add("GPU " + std::to_string(integer(gpu, {"index"})) + ": " + (reasons.empty() ? "Unhealthy" : join(reasons, "; ")));
    }
  } else if (h && !h->is_true()) {
    text.add("GPU health not judged yet (" + cond_text(*h) + ")");
  }
  if (const auto part = condition(g, "PartitionReady"); part && part->is_false() && part->reason == "Unsatisfiable") {
    text.add("the wanted partitions cannot be made: " + part->message);
  }
  if (f.node == nullptr) {
    text.add("the Node " + name + " does not exist");
  } else {
    if (const auto c = condition(*f.node, "Ready"); !c || !c->is_true()) {
      text.add("the Node is not Ready" + (c ? " (" + cond_text(*c) + ")" : std::string()));
    }
    if (boolean(f.node, {"spec", "unschedulable"})) {
      text.add("cordoned " + cordon_origin(*f.node, st.state.rfind("Failed", 0) == 0));
    }
    std::vector<std::string> taints;
    for (const Value* t : elements(at(f.node, {"spec", "taints"}))) {
      if (str(t, {"key"}) == "node.kubernetes.io/unschedulable") continue;  // the cordon, said above
      std::string line = taint_text(t);
      if (str(t, {"key"}) == "gpupool.io/gpu-unhealthy") line += " (by the controller for GPU health)";
      taints.push_back(line);
    }
    if (!taints.empty()) text.add("taints: " + join(taints, ", "));
  }
  if (!f.lease_checked) {
    if (const auto hb = time_at(&g, {"status", "lastHeartbeatTime"}); hb && f.now - *hb > std::chrono::minutes(6)) {
      text.add("its agent last reported " + age(f.now, *hb) + " ago (it reports at least every 5 minutes)");
    }
  }
  if (text.bullets.empty() && st.state == "Ready") return text.headline + "\n";
  return text.str();
}

// ---------------------------------------------------------------------------
// TenantQuota

std::string explain_tenantquota(const QuotaFacts& f) {
  const Value& q = *f.quota;
  const std::string key = object_name(q);
  const std::string what = "TenantQuota " + key;
  const std::string pool = str(&q, {"spec", "poolRef", "name"});
  Text text;
  const Value* status = member(&q, "status");

  auto amounts = [&](const char* field) {
    std::vector<std::string> parts;
    for (const auto& [r, v] : entries(member(status, field))) {
      const std::string n = quantity(v);
      if (!n.empty() && n != "0") parts.push_back(n + " " + r);
    }
    return join(parts, ", ");
  };
  std::vector<std::string> asked;
  for (const auto& [r, v] : entries(at(&q, {"spec", "resources"}))) asked.push_back(quantity(v) + " " + r);

  // Pods held at the gate, with the controller's last word on each.
  std::map<std::string, std::pair<TimePoint, std::string>> notes;  // pod key -> newest WaitingForQuota note
  std::vector<const Value*> quota_events;
  for (const Value* e : f.events) {
    const std::string kind = str(e, {"regarding", "kind"});
    if (kind == "Pod") {
      if (str(e, {"reason"}) != "WaitingForQuota") continue;
      const std::string pod = str(e, {"regarding", "namespace"}) + "/" + str(e, {"regarding", "name"});
      const TimePoint t = event_time(*e).value_or(TimePoint{});
      auto& slot = notes[pod];
      if (slot.second.empty() || t >= slot.first) {
        std::string note = str(e, {"note"});
        const std::string prefix = "waiting at the gate gpupool.io/quota: ";
        if (note.rfind(prefix, 0) == 0) note = note.substr(prefix.size());
        slot = {t, note};
      }
    } else {
      quota_events.push_back(e);
    }
  }
  std::vector<std::pair<TimePoint, std::string>> gated;
  for (const Value* pod : f.pods) {
    bool held = false;
    for (const Value* gate : elements(at(pod, {"spec", "schedulingGates"}))) held = held || str(gate, {"name"}) == "gpupool.io/quota";
    if (!held) continue;
    const std::string pod_key = object_name(*pod);
    const auto created = time_at(pod, {"metadata", "creationTimestamp"});
    std::string line = "pod " + pod_key + (created ? " (waiting " + age(f.now, *created) + ")" : "");
    if (auto it = notes.find(pod_key); it != notes.end() && !it->second.second.empty()) line += ": " + it->second.second;
    gated.emplace_back(created.value_or(TimePoint{}), line);
  }
  std::stable_sort(gated.begin(), gated.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  text.events = event_lines(quota_events, f.now);

  if (status == nullptr || !status->IsObject() || status->ObjectEmpty()) {
    text.headline = what + " has no status: the controller has not reconciled it yet. Is gpupool-controller running?";
    return text.str();
  }
  const auto granted = condition(q, "Granted");
  const std::string reason = granted ? granted->reason : "";
  const std::string message = granted ? granted->message : "";
  const std::string waiting = amounts("waiting");
  if (!granted) {
    text.headline = what + " has no Granted condition yet: the controller has not decided its grant.";
  } else if (granted->is_true()) {
    const std::string used = amounts("used");
    text.headline = what + " is granted: " + join(asked, ", ") + " from GPUPool " + pool +
                    (used.empty() ? " (none in use)." : " (in use: " + used + ").");
  } else if (reason == "WaitingForApproval") {
    text.headline = what + " waits for an administrator's approval (the GPUPolicy of GPUPool " + pool +
                    " has approval: Manual): " + sentence(message);
    text.add("an administrator approves it with `" + f.program + " approve " + key + "`");
  } else if (reason == "Rejected") {
    text.headline = what + " is rejected: " + sentence(message);
  } else if (reason == "Expired") {
    text.headline = what + " has expired (spec.expiresAt " + str(&q, {"spec", "expiresAt"}) + "): " + sentence(message);
  } else if (reason == "WaitingForCapacity") {
    text.headline = what + " waits for capacity in GPUPool " + pool + ": " + sentence(message);
  } else if (reason == "PartiallyGranted") {
    text.headline = what + " is only partly granted: " + sentence(message);
  } else if (reason == "PoolNotFound") {
    text.headline = what + " waits for its GPUPool " + pool + ", which does not exist: " + sentence(message);
  } else {
    text.headline = what + " is not granted (" + reason + "): " + sentence(message);
  }
  if (granted && !granted->is_true()) {
    const std::string have = amounts("granted");
    text.add("asked for " + join(asked, ", ") + "; granted " + (have.empty() ? "nothing" : have));
  }
  text.add(generation_note(q, "the controller"));
  if (const auto c = condition(q, "CapacityReduced"); c && c->is_true()) text.add("capacity reduced: " + c->message);
  if (!waiting.empty()) {
    const std::string used = amounts("used");
    text.add("pods held at the quota gate ask for " + waiting + (used.empty() ? "" : "; in use now: " + used));
  }
  std::size_t shown = 0;
  for (const auto& [t, line] : gated) {
    if (++shown > 10) {
      text.add("and " + std::to_string(gated.size() - 10) + " more pods held at the gate");
      break;
    }
    text.add(line);
  }
  if (const std::string borrowed = amounts("borrowed"); !borrowed.empty()) text.add("borrowing " + borrowed + " above its grant");
  std::string expiry;
  if (const auto expires = time_at(&q, {"spec", "expiresAt"}); expires && *expires > f.now && reason != "Expired") {
    expiry = "expires in " + age(*expires, f.now) + " (spec.expiresAt " + str(&q, {"spec", "expiresAt"}) + ")";
  }
  if (granted && granted->is_true() && text.bullets.empty()) {
    return text.headline + (expiry.empty() ? "" : " It " + expiry + ".") + "\n";
  }
  text.add(expiry);
  return text.str();
}

}  // namespace gpupool::explain
