#include "gpupool/testenv/kwok_nodes.h"

#include <sstream>
#include <stdexcept>

#include "component_args.h"
#include "gpupool/common/log.h"
#include "gpupool/testenv/wait.h"

namespace gpupool::testenv {

namespace {

std::string jstr(const std::string& s) { return "\"" + log::json_escape(s) + "\""; }

std::string jobject(const std::map<std::string, std::string>& m) {
  std::string out = "{";
  for (const auto& [k, v] : m) out += (out.size() > 1 ? "," : "") + jstr(k) + ":" + jstr(v);
  return out + "}";
}

// "key=value:Effect" or "key:Effect" as a Taint object.
std::string taint_json(const std::string& taint) {
  auto colon = taint.rfind(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == taint.size()) {
    throw std::invalid_argument("taint '" + taint + "' is not key[=value]:Effect");
  }
  std::string kv = taint.substr(0, colon), effect = taint.substr(colon + 1);
  auto eq = kv.find('=');
  std::string out = "{\"key\":" + jstr(kv.substr(0, eq));
  if (eq != std::string::npos) out += ",\"value\":" + jstr(kv.substr(eq + 1));
  return out + ",\"effect\":" + jstr(effect) + "}";
}

std::map<std::string, std::string> resources(const NodeSpec& spec) {
  std::map<std::string, std::string> r = {{"cpu", spec.cpu}, {"memory", spec.memory}, {"pods", spec.pods}};
  for (const auto& [k, v] : spec.capacity) r[k] = v;
  return r;
}

std::string taints_json(const NodeSpec& spec) {
  std::string out = "[";
  for (const auto& t : spec.taints) out += (out.size() > 1 ? "," : "") + taint_json(t);
  return out + "]";
}

std::string node_json(const std::string& name, const NodeSpec& spec) {
  std::map<std::string, std::string> labels = {
      {"type", "kwok"},
      {"kubernetes.io/hostname", name},
      {"kubernetes.io/os", "linux"},
      {"kubernetes.io/arch", "amd64"},
      {kTestenvNodeLabel, "true"},
  };
  for (const auto& [k, v] : spec.labels) labels[k] = v;
  std::map<std::string, std::string> annotations = {
      {detail::kKwokManageAnnotation, detail::kKwokManageValue},
      {"node.alpha.kubernetes.io/ttl", "0"},
  };
  for (const auto& [k, v] : spec.annotations) annotations[k] = v;
  std::string res = jobject(resources(spec));
  // Status is kept on create, so kwok's first status update already sees the
  // capacity (its node-initialize stage keeps what is there).
  return "{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"metadata\":{\"name\":" + jstr(name) +
         ",\"labels\":" + jobject(labels) + ",\"annotations\":" + jobject(annotations) +
         "},\"spec\":{\"taints\":" + taints_json(spec) + "},\"status\":{\"capacity\":" + res +
         ",\"allocatable\":" + res + "}}";
}

struct NodeState {
  bool ready = false;
  std::string taints;
};

// Ready condition and taint keys of the nodes created here, by name. (By
// label, not by name: `kubectl get` of a single name prints no List.)
std::map<std::string, NodeState> node_states(const ControlPlane& cluster, std::string* error) {
  std::vector<std::string> args = {"get", "nodes", "-l", std::string(kTestenvNodeLabel) + "=true"};
  args.push_back(
      "-o=jsonpath={range .items[*]}{.metadata.name}{\"\\t\"}"
      "{.status.conditions[?(@.type==\"Ready\")].status}{\"\\t\"}{.spec.taints[*].key}{\"\\n\"}{end}");
  CommandResult r = cluster.kubectl_result(args);
  std::map<std::string, NodeState> out;
  if (r.status != 0) {
    if (error) *error = r.err;
    return out;
  }
  std::istringstream in(r.out);
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    std::string name, ready, taints;
    std::getline(fields, name, '\t');
    std::getline(fields, ready, '\t');
    std::getline(fields, taints);
    out[name] = {ready == "True", taints};
  }
  return out;
}

bool schedulable(const NodeState& s) {
  return s.ready && s.taints.find("node.kubernetes.io/not-ready") == std::string::npos &&
         s.taints.find("node.kubernetes.io/unreachable") == std::string::npos;
}

}  // namespace

std::vector<std::string> create_kwok_nodes(const ControlPlane& cluster, int n, const NodeSpec& spec) {
  std::vector<std::string> names;
  if (n <= 0) return names;
  std::string items;
  for (int i = 0; i < n; ++i) {
    names.push_back(spec.name_prefix + std::to_string(spec.first_index + i));
    items += (i ? "," : "") + node_json(names.back(), spec);
  }
  std::string list = "{\"apiVersion\":\"v1\",\"kind\":\"List\",\"items\":[" + items + "]}";
  CommandResult applied = cluster.kubectl_result({"apply", "-f", "-"}, list);
  if (applied.status != 0) {
    throw std::runtime_error("creating kwok nodes failed: " + applied.out + applied.err);
  }
  // Nodes that existed keep their status on update: set capacity through the
  // status subresource ("add" replaces the whole map).
  std::string res = jobject(resources(spec));
  std::string patch = "[{\"op\":\"add\",\"path\":\"/status/capacity\",\"value\":" + res +
                      "},{\"op\":\"add\",\"path\":\"/status/allocatable\",\"value\":" + res + "}]";
  for (const auto& name : names) {
    if (applied.out.find("node/" + name + " created") != std::string::npos) continue;
    CommandResult patched =
        cluster.kubectl_result({"patch", "node", name, "--subresource=status", "--type=json", "-p", patch});
    if (patched.status != 0) {
      throw std::runtime_error("updating the capacity of node " + name + " failed: " + patched.err);
    }
  }

  std::string error;
  std::map<std::string, NodeState> states;
  bool ok = wait_until(
      [&] {
        states = node_states(cluster, &error);
        for (const auto& name : names) {
          auto it = states.find(name);
          if (it == states.end() || !schedulable(it->second)) return false;
        }
        return true;
      },
      spec.ready_timeout);
  if (!ok) {
    std::string detail;
    for (const auto& name : names) {
      auto it = states.find(name);
      if (it == states.end() || !schedulable(it->second)) {
        detail += " " + name + (it == states.end() ? "(missing)" : "(ready=" + std::string(it->second.ready ? "true" : "false") +
                                                                       " taints=[" + it->second.taints + "])");
      }
    }
    throw std::runtime_error("kwok nodes not schedulable within " + std::to_string(spec.ready_timeout.count()) +
                             "s:" + detail + (error.empty() ? "" : "; kubectl: " + error));
  }
  return names;
}

void delete_nodes(const ControlPlane& cluster, const std::vector<std::string>& names) {
  if (names.empty()) return;
  std::vector<std::string> args = {"delete", "nodes"};
  args.insert(args.end(), names.begin(), names.end());
  args.insert(args.end(), {"--ignore-not-found", "--wait=true", "--timeout=120s"});
  CommandResult r = cluster.kubectl_result(args);
  if (r.status != 0) throw std::runtime_error("deleting nodes failed: " + r.err);
}

void delete_kwok_nodes(const ControlPlane& cluster) {
  CommandResult r = cluster.kubectl_result({"delete", "nodes", "-l", std::string(kTestenvNodeLabel) + "=true",
                                            "--ignore-not-found", "--wait=true", "--timeout=120s"});
  if (r.status != 0) throw std::runtime_error("deleting kwok nodes failed: " + r.err);
}

}  // namespace gpupool::testenv
