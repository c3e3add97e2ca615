#include "rollout_step.h"

#include <algorithm>
#include <fstream>
#include <stdexcept>
#include <thread>

#include "gpupool/kube/json_access.h"
#include "rollout_figures.h"
#include "rollout_recorder.h"

namespace gpupool::bench {
namespace {

using Clock = std::chrono::steady_clock;

const kube::ResourceRef kPools{{"gpupool.io", "v1alpha1", "gpupools"}, "", "", ""};

double seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }

// The pools of `targets` whose status does not say complete at their target yet.
std::vector<std::string> not_complete(kube::Client& client, const std::map<std::string, std::string>& targets) {
  std::map<std::string, bool> done;
  const auto list = client.list(kPools);
  for (const auto& p : list["items"].GetArray()) {
    const std::string name = kube::string_of(kube::value_at(p, {"metadata", "name"}));
    auto t = targets.find(name);
    if (t != targets.end()) done[name] = rollout_complete(p, t->second);
  }
  std::vector<std::string> out;
  for (const auto& [pool, target] : targets) {
    if (!done[pool]) out.push_back(pool);
  }
  return out;
}

std::string driver_patch(const std::string& vendor, const std::string& version, const std::string& max_unavailable) {
  const std::string image = vendor == "amd" ? "registry.example.com/amdgpu-driver:" + version
                                            : "nvcr.io/nvidia/driver:" + version + "-ubuntu22.04";
  return R"({"spec":{"driver":{"version":")" + version + R"(","installer":{"kind":"container","image":")" + image +
         R"("},"upgradeStrategy":{"maxUnavailable":")" + max_unavailable + R"("}}}})";
}

// The apiserver's /metrics, or nullopt when it cannot be read (the figures
// then go without it).
std::optional<std::string> scrape_apiserver(kube::Client& client) {
  try {
    auto r = client.request("GET", "/metrics", "", "", true);
    if (r.status == 200) return std::move(r.body);
  } catch (const std::exception&) {
  }
  return std::nullopt;
}

FleetCounts minus(const FleetCounts& a, const FleetCounts& b) {
  return {a.passes - b.passes,           a.status_writes - b.status_writes, a.cordons - b.cordons,
          a.uncordons - b.uncordons,     a.installs - b.installs,           a.conflicts - b.conflicts,
          a.errors - b.errors,           a.lease_renewals - b.lease_renewals, a.lease_failures - b.lease_failures};
}

}  // namespace

double wait_in_step(kube::Client& client, const ClusterShape& shape, std::chrono::seconds timeout) {
  std::map<std::string, std::string> current;
  for (const auto& p : shape.pools) current[p.name] = p.driver;
  const auto start = Clock::now();
  for (;;) {
    const auto left = not_complete(client, current);
    if (left.empty()) return seconds(Clock::now() - start);
    if (Clock::now() - start > timeout) {
      throw std::runtime_error("with the simulated agents running, " + std::to_string(left.size()) +
                               " pools did not report their nodes up to date within the timeout (first: " + left.front() + ")");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(250));  // the poll interval
  }
}

RolloutFigures measure_rollout(kube::Client& client, const ClusterShape& shape, AgentFleet& fleet,
                               const RolloutOptions& options) {
  RolloutFigures f;
  std::map<std::string, std::string> next, pool_of;
  for (const auto& p : shape.pools) next[p.name] = p.vendor == "amd" ? kNewAmdDriver : kNewNvidiaDriver;
  for (const auto& n : shape.nodes) pool_of[n.name] = shape.pools[static_cast<std::size_t>(n.pool)].name;
  if (!resolve_max_unavailable(options.max_unavailable, 1)) {
    throw std::invalid_argument("--max-unavailable " + options.max_unavailable + " is not a count or a percentage");
  }

  const FleetCounts counts_before = fleet.counts();
  f.fleet_in_step_s = wait_in_step(client, shape, options.timeout);

  RolloutRecorder recorder(client, next);
  // The step's timeout, not a fixed 2 minutes: at full size with the agents
  // reporting throughout, a saturated API server had delivered 2,516 of the
  // 5,000 Nodes after 2 minutes (d736565's run).
  if (!recorder.wait_primed(shape.nodes.size(), shape.nodes.size(), shape.pools.size(), Clock::now() + options.timeout)) {
    throw std::runtime_error("the rollout recorder's watches did not deliver the current state within the timeout: " +
                             recorder.progress());
  }
  const auto metrics_before = scrape_apiserver(client);
  const auto t0 = Clock::now();
  for (const auto& p : shape.pools) {
    client.patch(kPools.with_name(p.name), kube::PatchType::MergePatch,
                 driver_patch(p.vendor, next[p.name], options.max_unavailable));
  }
  if (!recorder.wait_complete(t0 + options.timeout)) {
    throw std::runtime_error("the driver rollout was not complete within the timeout: " + recorder.incomplete());
  }
  const auto completed = recorder.completed();
  if (const auto metrics_after = scrape_apiserver(client); metrics_before && metrics_after) {
    f.apiserver = apiserver_load(*metrics_before, *metrics_after, 8);
  }
  f.fleet = minus(fleet.counts(), counts_before);

  const auto events = recorder.events();
  if (!options.events_file.empty()) {
    std::ofstream out(options.events_file);
    for (const auto& e : events) {
      const char* kind = e.kind == DisruptionEvent::Kind::granted    ? "granted"
                         : e.kind == DisruptionEvent::Kind::cordoned ? "cordoned"
                                                                     : "reported";
      out << e.resource_version << ' ' << kind << ' ' << e.node << ' ' << (e.on ? 1 : 0) << ' ' << e.seen_s << '\n';
    }
    if (!out) throw std::runtime_error("cannot write the rollout's events to " + options.events_file);
  }
  const auto worst = worst_disruption(events, pool_of);
  f.phases = phase_delays(events, pool_of);
  f.events = events.size();
  f.not_ready_flips = recorder.not_ready_flips();
  std::vector<PoolRolloutShape> shapes;
  for (const auto& p : shape.pools) {
    PoolRolloutFigures pf;
    pf.pool = p.name;
    pf.members = p.node_count;
    const auto limit = resolve_max_unavailable(options.max_unavailable, p.node_count);
    if (!limit) throw std::invalid_argument("--max-unavailable " + options.max_unavailable + " is not a count or a percentage");
    pf.limit = *limit;
    pf.waves = rollout_waves(p.node_count, pf.limit);
    const auto& w = worst.at(p.name);
    pf.max_disrupted = w.disrupted;
    pf.worst = "at revision " + std::to_string(w.resource_version) + ":";
    for (const auto& n : w.nodes) pf.worst += " " + n;
    pf.complete_s = seconds(completed.at(p.name) - t0);
    f.duration_s = std::max(f.duration_s, pf.complete_s);
    f.max_unavailable = std::max(f.max_unavailable, pf.limit);
    f.max_disrupted = std::max(f.max_disrupted, pf.max_disrupted);
    f.limit_exceeded = f.limit_exceeded || pf.max_disrupted > pf.limit;
    shapes.push_back({p.name, pf.members, pf.limit});
    f.pools.push_back(std::move(pf));
  }
  f.ideal_s = ideal_rollout_seconds(shapes, std::chrono::duration<double>(options.fleet.install_time).count());
  f.overhead = rollout_overhead(f.duration_s, f.ideal_s);
  return f;
}

}  // namespace gpupool::bench
