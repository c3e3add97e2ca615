#include "summaries.h"

#include <map>
#include <vector>

namespace gpupool::explain::detail {

NodeState node_state(const Value& gn) {
  const Value* status = member(&gn, "status");
  if (status == nullptr || !status->IsObject() || status->ObjectEmpty()) {
    return {"NoReport", "NoStatus: its agent has not reported"};
  }
  NodeState out;
  const auto ready = condition(gn, "Ready");
  const std::int64_t generation = integer(&gn, {"metadata", "generation"});
  const std::int64_t observed = integer(status, {"observedGeneration"});
  if (!ready) {
    out = {"Unknown", "the agent has written no Ready condition"};
  } else if (observed < generation) {
    out = {"Pending", "the agent has not acted on generation " + std::to_string(generation) + " yet (reports " +
                          std::to_string(observed) + ")"};
  } else if (ready->is_true()) {
    out = {"Ready", ""};
  } else if (ready->reason == "Updating") {
    out = {"Updating", ready->message};
  } else if (ready->reason == "ChangesPending") {
    if (boolean(&gn, {"spec", "disruptionAllowed"})) {
      out = {"Starting", "allowed to change, starting: " + ready->message};
    } else {
      out = {"Waiting", "waiting for permission (spec.disruptionAllowed false): " + ready->message};
    }
  } else if (ready->reason == "BackendError") {
    out = {"Error", ready->reason + ": " + ready->message};
  } else {
    out = {"Failed", ready->reason + ": " + ready->message};
  }
  if (const auto healthy = condition(gn, "Healthy"); healthy && healthy->is_false()) {
    out.state += ",Unhealthy";
    out.reason += (out.reason.empty() ? "" : "; ") + healthy->reason + ": " + healthy->message;
  }
  return out;
}

std::string gpu_summary(const Value& gn) {
  const auto gpus = elements(at(&gn, {"status", "gpus"}));
  if (gpus.empty()) {
    const std::int64_t count = integer(&gn, {"status", "gpuCount"}, -1);
    return count < 0 ? "-" : std::to_string(count);
  }
  std::vector<std::pair<std::string, int>> models;  // in the order first seen
  for (const Value* g : gpus) {
    std::string model = str(g, {"catalogID"});
    if (model.empty()) model = str(g, {"model"});
    if (model.empty()) model = "unknown";
    bool found = false;
    for (auto& [m, n] : models) {
      if (m == model) {
        ++n;
        found = true;
      }
    }
    if (!found) models.emplace_back(model, 1);
  }
  std::vector<std::string> parts;
  for (const auto& [m, n] : models) parts.push_back(std::to_string(n) + "x " + m);
  return join(parts, ",");
}

std::string layout_summary(const Value& gn) {
  std::vector<std::string> parts;
  // MIG: each GPU's instances as profile=count, GPUs with the same layout folded.
  std::vector<std::pair<std::string, std::string>> per_gpu;  // index, layout
  for (const Value* l : elements(at(&gn, {"spec", "partitioning", "mig"}))) {
    std::string text;
    if (!boolean(l, {"enabled"})) {
      text = "off";
    } else {
      std::map<std::string, int> counts;
      for (const Value* inst : elements(member(l, "instances"))) ++counts[str(inst, {"profile"})];
      std::vector<std::string> c;
      for (const auto& [p, n] : counts) c.push_back(p + "=" + std::to_string(n));
      text = c.empty() ? "none" : join(c, ",");
    }
    per_gpu.emplace_back(std::to_string(integer(l, {"index"})), text);
  }
  if (!per_gpu.empty()) {
    bool same = true;
    for (const auto& [i, t] : per_gpu) same = same && t == per_gpu.front().second;
    if (same) {
      parts.push_back("mig " + per_gpu.front().second +
                      (per_gpu.size() > 1 ? " (x" + std::to_string(per_gpu.size()) + ")" : ""));
    } else {
      std::vector<std::string> each;
      for (const auto& [i, t] : per_gpu) each.push_back(i + ":" + t);
      parts.push_back("mig " + join(each, " "));
    }
  }
  const std::string compute = str(&gn, {"spec", "partitioning", "amd", "computePartition"});
  const std::string memory = str(&gn, {"spec", "partitioning", "amd", "memoryPartition"});
  if (!compute.empty() || !memory.empty()) {
    parts.push_back(compute.empty() ? memory : memory.empty() ? compute : compute + "/" + memory);
  }
  const std::string mode = str(&gn, {"spec", "sharing", "mode"});
  if (mode == "timeSlicing") {
    parts.push_back("timeSlicing/" + std::to_string(integer(&gn, {"spec", "sharing", "timeSlicing", "replicas"})));
  } else if (mode == "mps") {
    parts.push_back("mps/" + std::to_string(integer(&gn, {"spec", "sharing", "mps", "replicas"})));
  }
  return parts.empty() ? "-" : join(parts, " ");
}

std::string driver_summary(const Value& gn) {
  const std::string loaded = str(&gn, {"status", "driverVersion"});
  const std::string wanted = str(&gn, {"spec", "driver", "version"});
  if (wanted.empty() || wanted == loaded) return loaded.empty() ? "-" : loaded;
  return (loaded.empty() ? "?" : loaded) + "->" + wanted;
}

std::string cordon_origin(const Value& node, bool failed) {
  const std::string remediation = str(&node, {"metadata", "annotations", "gpupool.io/health-remediation"});
  if (remediation.rfind("Cordon", 0) == 0) {
    const std::string since = remediation.size() > 7 ? remediation.substr(7) : "";
    return "by the controller for GPU health" + (since.empty() ? "" : " since " + since);
  }
  const std::string pre_drain = str(&node, {"metadata", "annotations", "gpupool.io/pre-drain-unschedulable"});
  if (pre_drain == "false") {
    return failed ? "by its agent, kept cordoned after the failed change (spec.cordonOnFailure)"
                  : "by its agent, draining it for a change";
  }
  if (pre_drain == "true") return "by someone else before its agent drained it (the agent leaves that cordon)";
  return "by someone else (an administrator?); the rollout counts it as unavailable";
}

}  // namespace gpupool::explain::detail
