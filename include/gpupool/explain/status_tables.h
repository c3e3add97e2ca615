// `gpupoolctl status` (`kubectl gpupool status`): GPUPools, GPUNodes and
// TenantQuotas as tables like `kubectl get` prints, each row with the reason
// when something waits or failed. Pure: the objects as the API server sent
// them (JSON) in, text out; everything shown is what the controller and the
// agents wrote, nothing is decided again here.
#pragma once

#include <rapidjson/document.h>

#include <chrono>
#include <optional>
#include <string>
#include <vector>

namespace gpupool::explain {

// Columns as `kubectl get` prints them: a header row, cells left-aligned,
// three spaces between columns, no trailing blanks.
struct Table {
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
};
std::string render(const Table& table);

// How long a REASON cell may be; `explain` gives the whole text.
inline constexpr std::size_t kReasonWidth = 90;

// NAME NODES(ready/total) UPDATING FAILED DRIVER CAPACITY ROLLOUT REASON.
// ROLLOUT: nodes up to date of the total and the Progressing reason
// ("1/3 RollingOut"). REASON: the Ready condition's reason and message while
// not Ready, plus a Conflict or held-back GPU health; "NoStatus" when the
// controller has written none.
Table pools_table(const std::vector<const rapidjson::Value*>& pools);

// NAME POOL GPUS DRIVER LAYOUT STATE HEARTBEAT REASON. GPUS by model
// ("2x a100-sxm4-80gb"); DRIVER loaded, and "->wanted" while they differ;
// LAYOUT the wanted MIG instances per GPU, AMD modes and sharing; STATE from
// the agent's Ready condition (Ready, Updating, Waiting: needs changes but
// spec.disruptionAllowed is false, Starting, Failed, Error, NoReport), with
// ",Unhealthy" when the Healthy condition is False.
Table nodes_table(const std::vector<const rapidjson::Value*>& gpunodes, std::chrono::system_clock::time_point now);

// [NAMESPACE] NAME POOL PHASE RESOURCES GRANTED USED WAITING BORROWED REASON.
// RESOURCES lists spec.resources' names; the amount columns give one value
// per name in that order ("2/4" granted of requested). REASON: the Granted
// condition's reason and message while not fully granted, plus
// CapacityReduced.
Table quotas_table(const std::vector<const rapidjson::Value*>& quotas, bool with_namespace);

// One section's objects, or why they could not be read.
struct Section {
  std::vector<const rapidjson::Value*> objects;
  std::optional<std::string> error;  // "forbidden: ...": printed in place of the table
};

struct StatusInput {
  Section pools, nodes, quotas;
  // Where the quotas were listed: a namespace, or empty for all namespaces.
  std::string quota_namespace;
  std::chrono::system_clock::time_point now;
};

// The three sections, each headed by its kind, with a line in place of an
// empty table ("No GPUPools found: ...").
std::string format_status(const StatusInput& in);

}  // namespace gpupool::explain
