#include "gpupool/explain/status_tables.h"

#include <algorithm>

#include "json_read.h"
#include "summaries.h"

namespace gpupool::explain {

using namespace detail;

std::string render(const Table& table) {
  std::vector<std::size_t> width(table.header.size(), 0);
  auto measure = [&](const std::vector<std::string>& row) {
    for (std::size_t i = 0; i < row.size() && i < width.size(); ++i) width[i] = std::max(width[i], row[i].size());
  };
  measure(table.header);
  for (const auto& r : table.rows) measure(r);
  std::string out;
  auto line = [&](const std::vector<std::string>& row) {
    std::string l;
    for (std::size_t i = 0; i < width.size(); ++i) {
      const std::string cell = i < row.size() ? row[i] : "";
      l += cell;
      if (i + 1 < width.size()) l += std::string(width[i] - cell.size() + 3, ' ');
    }
    while (!l.empty() && l.back() == ' ') l.pop_back();
    out += l + "\n";
  };
  line(table.header);
  for (const auto& r : table.rows) line(r);
  return out;
}

namespace {

std::vector<const Value*> sorted(std::vector<const Value*> objects) {
  std::sort(objects.begin(), objects.end(),
            [](const Value* a, const Value* b) { return object_name(*a) < object_name(*b); });
  return objects;
}

std::string or_dash(const std::string& s) { return s.empty() ? "-" : s; }

std::string cond_text(const Condition& c) {
  return c.reason + (c.message.empty() ? "" : ": " + c.message);
}

}  // namespace

Table pools_table(const std::vector<const Value*>& pools) {
  Table t{{"NAME", "NODES", "UPDATING", "FAILED", "DRIVER", "CAPACITY", "ROLLOUT", "REASON"}, {}};
  for (const Value* p : sorted(pools)) {
    const Value* status = member(p, "status");
    const Value* nodes = member(status, "nodes");
    std::vector<std::string> capacity;
    for (const auto& [resource, q] : entries(member(status, "capacity"))) capacity.push_back(resource + "=" + quantity(q));
    std::string rollout = "-";
    if (const Value* r = member(status, "rollout"); r != nullptr) {
      const auto progressing = condition(*p, "Progressing");
      rollout = std::to_string(integer(r, {"updated"})) + "/" + std::to_string(integer(nodes, {"total"})) +
                (progressing && !progressing->reason.empty() ? " " + progressing->reason : "");
    }
    std::vector<std::string> reasons;
    if (status == nullptr) {
      reasons.push_back("NoStatus: the controller has not written a status (is it running?)");
    } else {
      const auto ready = condition(*p, "Ready");
      if (!ready) {
        reasons.push_back("the controller has written no Ready condition");
      } else if (!ready->is_true()) {
        reasons.push_back(cond_text(*ready));
      }
      if (const auto c = condition(*p, "Conflict"); c && c->is_true()) reasons.push_back(cond_text(*c));
      if (const auto h = condition(*p, "UnhealthyNodesHeldBack"); h && h->is_true()) reasons.push_back(cond_text(*h));
      const std::int64_t generation = integer(p, {"metadata", "generation"});
      const std::int64_t observed = integer(status, {"observedGeneration"});
      if (reasons.empty() && observed < generation) {
        reasons.push_back("the controller has not acted on generation " + std::to_string(generation) + " yet");
      }
    }
    const std::string driver = str(p, {"spec", "driver", "version"});
    t.rows.push_back({str(p, {"metadata", "name"}),
                      status == nullptr ? "-"
                                        : std::to_string(integer(nodes, {"ready"})) + "/" +
                                              std::to_string(integer(nodes, {"total"})),
                      status == nullptr ? "-" : std::to_string(integer(nodes, {"updating"})),
                      status == nullptr ? "-" : std::to_string(integer(nodes, {"failed"})), or_dash(driver),
                      capacity.empty() ? "-" : join(capacity, ","), rollout, shorten(join(reasons, "; "), kReasonWidth)});
  }
  return t;
}

Table nodes_table(const std::vector<const Value*>& gpunodes, std::chrono::system_clock::time_point now) {
  Table t{{"NAME", "POOL", "GPUS", "DRIVER", "LAYOUT", "STATE", "HEARTBEAT", "REASON"}, {}};
  for (const Value* n : sorted(gpunodes)) {
    const NodeState st = node_state(*n);
    const auto heartbeat = time_at(n, {"status", "lastHeartbeatTime"});
    std::string reason = st.reason;
    if (str(n, {"spec", "pool"}).empty()) reason = "in no GPUPool" + (reason.empty() ? "" : "; " + reason);
    t.rows.push_back({str(n, {"metadata", "name"}), or_dash(str(n, {"spec", "pool"})), gpu_summary(*n),
                      driver_summary(*n), layout_summary(*n), st.state, heartbeat ? age(now, *heartbeat) : "-",
                      shorten(reason, kReasonWidth)});
  }
  return t;
}

Table quotas_table(const std::vector<const Value*>& quotas, bool with_namespace) {
  Table t;
  if (with_namespace) t.header.push_back("NAMESPACE");
  for (const char* h : {"NAME", "POOL", "PHASE", "RESOURCES", "GRANTED", "USED", "WAITING", "BORROWED", "REASON"}) {
    t.header.push_back(h);
  }
  for (const Value* q : sorted(quotas)) {
    const Value* status = member(q, "status");
    std::vector<std::string> names, granted, used, waiting, borrowed;
    auto amount = [&](const char* field, const std::string& resource) {
      const std::string v = quantity(at(status, {field, resource.c_str()}));
      return v.empty() ? std::string("0") : v;
    };
    for (const auto& [resource, requested] : entries(at(q, {"spec", "resources"}))) {
      names.push_back(resource);
      granted.push_back(amount("granted", resource) + "/" + quantity(requested));
      used.push_back(amount("used", resource));
      waiting.push_back(amount("waiting", resource));
      borrowed.push_back(amount("borrowed", resource));
    }
    std::vector<std::string> reasons;
    if (status == nullptr) {
      reasons.push_back("NoStatus: the controller has not written a status (is it running?)");
    } else {
      if (const auto g = condition(*q, "Granted"); g && !g->is_true()) reasons.push_back(cond_text(*g));
      if (const auto c = condition(*q, "CapacityReduced"); c && c->is_true()) reasons.push_back(cond_text(*c));
    }
    std::vector<std::string> row;
    if (with_namespace) row.push_back(str(q, {"metadata", "namespace"}));
    row.insert(row.end(), {str(q, {"metadata", "name"}), or_dash(str(q, {"spec", "poolRef", "name"})),
                           or_dash(str(status, {"phase"})), or_dash(join(names, ",")), or_dash(join(granted, ",")),
                           or_dash(join(used, ",")), or_dash(join(waiting, ",")), or_dash(join(borrowed, ",")),
                           shorten(join(reasons, "; "), kReasonWidth)});
    t.rows.push_back(std::move(row));
  }
  return t;
}

std::string format_status(const StatusInput& in) {
  std::string out = "GPUPOOLS\n";
  if (in.pools.error) {
    out += "  cannot list GPUPools: " + *in.pools.error + "\n";
  } else if (in.pools.objects.empty()) {
    out += "No GPUPools found: no GPU node is managed yet. Create one, e.g. "
           "`kubectl apply -f config/samples/gpupool_v1alpha1_gpupool.yaml`.\n";
  } else {
    out += render(pools_table(in.pools.objects));
  }
  out += "\nGPUNODES\n";
  if (in.nodes.error) {
    out += "  cannot list GPUNodes: " + *in.nodes.error + "\n";
  } else if (in.nodes.objects.empty()) {
    out += "No GPUNodes found: no node agent has reported (gpupool-agent runs on GPU nodes).\n";
  } else {
    out += render(nodes_table(in.nodes.objects, in.now));
  }
  const bool all = in.quota_namespace.empty();
  out += "\nTENANTQUOTAS" + (all ? std::string(" (all namespaces)") : " (namespace " + in.quota_namespace + ")") + "\n";
  if (in.quotas.error) {
    out += "  cannot list TenantQuotas: " + *in.quotas.error + "\n";
  } else if (in.quotas.objects.empty()) {
    out += all ? "No TenantQuotas found.\n"
               : "No TenantQuotas in namespace " + in.quota_namespace + " (-A for all namespaces).\n";
  } else {
    out += render(quotas_table(in.quotas.objects, all));
  }
  return out;
}

}  // namespace gpupool::explain
