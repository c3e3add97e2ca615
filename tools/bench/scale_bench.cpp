// The whole system at scale (issue 16), side by side with a client-go
// baseline. Prints a table and, with --json, writes the figures.
//
//   gpupool-scale-bench [--nodes N] [--pods N] [--tenants N] [--pools N]
//                       [--gpus-per-node N] [--writers N] [--seed N]
//                       [--controller PATH] [--baseline PATH] [--kubeconfig PATH]
//                       [--admission-pods N] [--install-seconds S] [--max-unavailable V]
//                       [--agent-workers N] [--controller-qps Q] [--controller-burst B]
//                       [--json FILE]
//
// Defaults: Kubernetes' documented largest cluster (tools/bench/scale/
// cluster_shape.h). Steps, each timed:
//   1. the pinned control plane (tools/testenv), unless --kubeconfig names a
//      cluster, and the CRDs;
//   2. seeding with --writers parallel requests over HTTP/2: tenants'
//      namespaces, kwok nodes, GPUPools, TenantQuotas; then a simulated
//      node agent per node (scale/rollout_agents.h, all in this process,
//      running to the end: every GPUNode carries its agent's report and
//      every agent renews a Lease, as on a cluster), and the controller
//      runs once on this cluster without pods until every pool is up to
//      date with its agents' reports, and is started again (the
//      second's memory in sync is the reference for bytes per pod), its
//      admission objects are removed (the pods stand for workloads older
//      than the operator, which the quota gate would not let be created
//      bound), and the pods are created, bound to their nodes (kwok runs
//      them; no status write of ours);
//   3. the floor: a bare paginated list (500 per page) of the objects the
//      controller reads (nodes, pods, namespaces, GPUPools, TenantQuotas),
//      and a bare streaming list (watch-list) of them, the way the
//      controller's informers start where the server streams lists;
//   4. the baseline (tools/bench/baseline, client-go informers on pods and
//      nodes, as GPU Operator, Kueue and KAI controllers hold): time to sync
//      and peak RSS (its own VmHWM);
//   5. the controller as a separate process, with its webhook server as
//      deployed (without it no usage is kept): time from its start until its
//      /readyz says its informers have synced and every
//      pool's status.nodes.total and every TenantQuota's status.used match
//      the seeded cluster (polled every 250 ms, so up to that much late),
//      peak RSS (VmHWM), CPU seconds, and the RSS its pods added per pod.
//   6. with that controller still running: the usage delay
//      (scale/usage_probe.h: --probes pod deletions, each timed until a
//      watch delivers its tenant's status.used showing it, beside the
//      delete's own time, while --churn-writers threads create and delete
//      other pods as fast as the API server takes them).
// Then the controller is started once more, with --controller-qps and
// --controller-burst as its --kube-api-qps and --kube-api-burst and
// --controller-concurrency as its --concurrency when given (the runs above
// keep the controller's defaults, so their figures are as before), and once
// in sync (the probed pods gone):
//   7. admission throughput (scale/admission_burst.h): --admission-pods GPU
//      pods at the quota gate, fitting their tenants' grants, created at
//      once; pods per second from the first create until the last gate is
//      removed;
//   8. the driver rollout (scale/rollout_step.h) by the simulated agents:
//      every pool's
//      spec.driver set to a new version with maxUnavailable
//      --max-unavailable; the time until every pool reports it complete
//      against the ideal (waves x --install-seconds), and the most nodes of
//      one pool disrupted at once (permission granted or cordoned) as a
//      recorder watching every change saw it, against the pool's limit;
//      and the kube-apiserver's CPU seconds and most frequent requests
//      meanwhile (scale/apiserver_load.h), the step's bound on a small
//      machine.
//
// Exits non-zero when a step fails (seeding refused, the controller not in
// sync within --sync-timeout); never on a figure.
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "gpupool/common/log.h"
#include "gpupool/kube/client.h"
#include "gpupool/kube/json_access.h"
#include "gpupool/kube/kubeconfig.h"
#include "gpupool/kube/errors.h"
#include "gpupool/testenv/control_plane.h"
#include "gpupool/testenv/http_probe.h"
#include "gpupool/testenv/ports.h"
#include "gpupool/testenv/process.h"
#include "scale/admission_burst.h"
#include "scale/cluster_shape.h"
#include "scale/parallel_writes.h"
#include "scale/process_stats.h"
#include "scale/queue_figures.h"
#include "scale/rollout_step.h"
#include "scale/seed_manifests.h"
#include "scale/usage_probe.h"

extern char** environ;

namespace {

using namespace gpupool;
using Clock = std::chrono::steady_clock;

double since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

const kube::ResourceRef kPools{{"gpupool.io", "v1alpha1", "gpupools"}, "", "", ""};
const kube::ResourceRef kQuotas{{"gpupool.io", "v1alpha1", "tenantquotas"}, "", "", ""};

struct Figures {
  double seed_nodes_per_s = 0, seed_pods_per_s = 0, seed_seconds = 0;
  double list_floor_s = 0;
  std::optional<double> stream_list_floor_s;  // unset: the server does not stream lists
  std::optional<double> baseline_sync_s, baseline_peak_rss_mib;
  std::optional<double> usage_lag_p50_ms, usage_lag_p99_ms;
  std::optional<double> probe_delete_p50_ms, probe_delete_p99_ms;  // the probes' own deletes, request to answer
  double churn_events_per_s = 0;
  double sync_s = 0, peak_rss_mib = 0, cpu_seconds = 0, rss_no_pods_mib = 0, rss_synced_mib = 0;
  double rss_bytes_per_pod = 0;
  std::uint64_t http2_responses = 0, requests = 0, connections = 0;
  std::optional<bench::AdmissionFigures> admission;
  std::optional<bench::RolloutFigures> rollout;
  double install_s = 0;
  double controller_qps = 0;  // 0: no client-side limit
  int controller_burst = 0;
  int controller_concurrency = 0;  // 0: the controller's default
};

// Everything seeded before the pods.
void seed_objects(kube::Client& client, const bench::ClusterShape& shape, int writers, Figures& f) {
  const auto t0 = Clock::now();
  auto ns = bench::create_all(client, shape.tenants.size(), writers,
                              [](std::size_t) { return kube::ResourceRef{kube::core::namespaces(), "", "", ""}; },
                              [&](std::size_t i) { return bench::namespace_manifest(shape, i); });
  try {
    client.create(kube::ResourceRef{kube::core::namespaces(), "", "", ""},
                  R"({"apiVersion":"v1","kind":"Namespace","metadata":{"name":"gpupool-system"}})");
  } catch (const kube::ApiError& e) {
    if (!e.is_already_exists()) throw;  // --kubeconfig's cluster may have the operator's namespace already
  }
  auto nodes = bench::create_all(client, shape.nodes.size(), writers,
                                 [](std::size_t) { return kube::ResourceRef{kube::core::nodes(), "", "", ""}; },
                                 [&](std::size_t i) { return bench::node_manifest(shape, i); });
  bench::create_all(client, shape.pools.size(), writers, [](std::size_t) { return kPools; },
                    [&](std::size_t i) { return bench::pool_manifest(shape, i); });
  auto quotas = bench::create_all(client, shape.tenants.size(), writers,
                                  [&](std::size_t i) { return kQuotas.with_namespace(shape.tenants[i].ns); },
                                  [&](std::size_t i) { return bench::quota_manifest(shape, i); });
  f.seed_nodes_per_s = nodes.per_second();
  std::printf("seeded %zu namespaces (%.0f/s), %zu nodes (%.0f/s), %zu pools, %zu TenantQuotas (%.0f/s) in %.1f s\n",
              ns.objects, ns.per_second(), nodes.objects, nodes.per_second(), shape.pools.size(), quotas.objects,
              quotas.per_second(), since(t0));
  std::fflush(stdout);
}

void seed_pods(kube::Client& client, const bench::ClusterShape& shape, int writers, Figures& f) {
  auto pods = bench::create_all(client, shape.pods.size(), writers,
                                [&](std::size_t i) {
                                  const auto& t = shape.tenants[static_cast<std::size_t>(shape.pods[i].tenant)];
                                  return kube::ResourceRef{kube::core::pods(), t.ns, "", ""};
                                },
                                [&](std::size_t i) { return bench::pod_manifest(shape, i); });
  f.seed_pods_per_s = pods.per_second();
  std::printf("seeded %zu pods (%zu asking for a GPU or MIG slice) in %.1f s: %.0f pods/s with %d writers\n", pods.objects,
              shape.gpu_pods, pods.seconds, pods.per_second(), writers);
  std::fflush(stdout);
}

void remove_admission_objects(kube::Client& client, const bench::ClusterShape& shape) {
  const std::string group = "admissionregistration.k8s.io";
  for (const auto& [resource, name] :
       {std::pair{"validatingwebhookconfigurations", "gpupool-validating-webhook"},
        {"mutatingwebhookconfigurations", "gpupool-mutating-webhook"},
        {"validatingadmissionpolicybindings", "gpupool-quota-gate"}, {"validatingadmissionpolicies", "gpupool-quota-gate"}}) {
    try {
      client.remove(kube::ResourceRef{{group, "v1", resource}, "", name, ""});
    } catch (const kube::ApiError& e) {
      if (!e.is_not_found()) throw;
    }
  }
  // The API server drops a deleted policy shortly after, not at once: until
  // a GPU pod's dry run passes.
  for (std::size_t i = 0; i < shape.pods.size(); ++i) {
    if (!shape.pods[i].gpu) continue;
    const auto& ns = shape.tenants[static_cast<std::size_t>(shape.pods[i].tenant)].ns;
    kube::WriteOptions dry;
    dry.dry_run = true;
    const auto deadline = Clock::now() + std::chrono::minutes(1);
    for (;;) {
      try {
        client.create(kube::ResourceRef{kube::core::pods(), ns, "", ""}, bench::pod_manifest(shape, i), dry);
        break;
      } catch (const kube::ApiError& e) {
        if (e.code() != 403 || Clock::now() > deadline) throw;
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
      }
    }
    break;
  }
}

// What the controller reads, as both floors list it.
std::vector<kube::ResourceRef> floor_collections() {
  return {kube::ResourceRef{kube::core::nodes(), "", "", ""}, kube::ResourceRef{kube::core::pods(), "", "", ""},
          kube::ResourceRef{kube::core::namespaces(), "", "", ""}, kPools, kQuotas};
}

// Seconds for a bare paginated list of what the controller reads.
double list_floor(kube::Client& client) {
  const auto t0 = Clock::now();
  std::size_t items = 0;
  kube::ListOptions lo;
  lo.limit = 500;
  for (const auto& collection : floor_collections()) {
    client.list_items(collection, lo, [&](std::string_view) { ++items; }, [&] { items = 0; });
  }
  const double s = since(t0);
  std::printf("floor: a paginated list of %zu objects took %.2f s\n", items, s);
  return s;
}

// Seconds for a bare streaming list (a watch-list: every object from the API
// server's watch cache, then the bookmark that ends them) of the same
// objects: how the controller's informers start where the server allows it.
std::optional<double> stream_list_floor(kube::Client& client) {
  const auto t0 = Clock::now();
  std::size_t items = 0;
  kube::ListOptions lo;
  lo.send_initial_events = true;
  lo.resource_version_match = "NotOlderThan";
  lo.allow_watch_bookmarks = true;
  try {
    for (const auto& collection : floor_collections()) {
      bool ended = false;
      client.watch_once(collection, lo, [&](const kube::WatchEvent& ev) {
        if (kube::is_initial_events_end(ev)) {
          ended = true;
          return false;
        }
        if (ev.type == kube::WatchEventType::Added) ++items;
        return true;
      }, {});
      if (!ended) throw std::runtime_error("the stream of " + kube::resource_path(collection) + " ended before its initial events did");
    }
  } catch (const std::exception& e) {
    std::printf("floor: no streaming list (%s)\n", e.what());
    return std::nullopt;
  }
  const double s = since(t0);
  std::printf("floor: a streaming list of %zu objects took %.2f s\n", items, s);
  return s;
}

// Runs argv to its end; its stdout and peak RSS (wait4).
struct Finished {
  int status = -1;
  std::string out;
  double peak_rss_mib = 0;
  double seconds = 0;
};
Finished run_to_end(const std::vector<std::string>& argv) {
  int pipefd[2];
  if (pipe(pipefd) != 0) throw std::runtime_error("pipe failed");
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, pipefd[1], 1);
  posix_spawn_file_actions_addclose(&actions, pipefd[0]);
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = 0;
  const auto t0 = Clock::now();
  const int rc = posix_spawn(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  close(pipefd[1]);
  if (rc != 0) {
    close(pipefd[0]);
    throw std::runtime_error("cannot start " + argv[0]);
  }
  Finished f;
  char buf[4096];
  for (ssize_t n; (n = read(pipefd[0], buf, sizeof buf)) > 0;) f.out.append(buf, static_cast<std::size_t>(n));
  close(pipefd[0]);
  int status = 0;
  rusage usage{};
  wait4(pid, &status, 0, &usage);
  f.seconds = since(t0);
  f.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  f.peak_rss_mib = static_cast<double>(usage.ru_maxrss) / 1024.0;  // an upper bound (see run_baseline)
  return f;
}

void run_baseline(const std::string& baseline, const std::string& kubeconfig, Figures& f) {
  if (baseline.empty()) {
    std::printf("baseline: not run (no --baseline and no $GPUPOOL_CLIENT_GO_BASELINE)\n");
    return;
  }
  const Finished r = run_to_end({baseline, "--kubeconfig", kubeconfig, "--timeout", "30m"});
  const auto line = r.out.substr(0, r.out.find('\n'));
  rapidjson::Document d;
  d.Parse(line.c_str());
  if (r.status != 0 || d.HasParseError() || !d.IsObject() || !d.HasMember("sync_s") || !d["sync_s"].IsNumber()) {
    throw std::runtime_error("the client-go baseline failed (exit " + std::to_string(r.status) + "): " + r.out);
  }
  f.baseline_sync_s = d["sync_s"].GetDouble();
  // Its own VmHWM: wait4's figure would include this (large) process's
  // resident set, which a spawned child is charged until it execs.
  f.baseline_peak_rss_mib = d.HasMember("peak_rss_mib") && d["peak_rss_mib"].IsNumber() ? d["peak_rss_mib"].GetDouble()
                                                                                         : r.peak_rss_mib;
  std::printf("baseline (client-go informers on pods and nodes): synced in %.2f s, peak RSS %.1f MiB\n", *f.baseline_sync_s,
              r.peak_rss_mib);
}

// Whether every pool and quota status says what the shape does (with its
// pods seeded or not yet); what is not, when not.
std::optional<std::string> out_of_sync(kube::Client& client, const bench::ClusterShape& shape, bool with_pods) {
  const auto pools = client.list(kPools);
  std::size_t pools_seen = 0;
  for (const auto& p : pools["items"].GetArray()) {
    const std::string name = kube::string_at(p, {"metadata", "name"});
    const auto want = shape.pool_members.find(name);
    if (want == shape.pool_members.end()) continue;
    ++pools_seen;
    const rapidjson::Value* total = kube::member(kube::member(kube::member(p, "status"), "nodes"), "total");
    if (total == nullptr || !total->IsInt() || total->GetInt() != want->second) return "GPUPool " + name + " members";
  }
  if (pools_seen != shape.pool_members.size()) return std::string("GPUPools missing");
  std::map<std::string, std::size_t> tenant_of;
  for (std::size_t t = 0; t < shape.tenants.size(); ++t) tenant_of[shape.tenants[t].ns] = t;
  const auto quotas = client.list(kQuotas);
  std::size_t quotas_seen = 0;
  for (const auto& q : quotas["items"].GetArray()) {
    const auto t = tenant_of.find(kube::string_at(q, {"metadata", "namespace"}));
    if (t == tenant_of.end()) continue;
    ++quotas_seen;
    const auto& tenant = shape.tenants[t->second];
    const auto& resource = shape.pools[static_cast<std::size_t>(tenant.pool)].resource;
    const rapidjson::Value* status = kube::member(q, "status");
    const rapidjson::Value* observed = kube::member(status, "observedGeneration");
    const rapidjson::Value* generation = kube::member(kube::member(q, "metadata"), "generation");
    if (observed == nullptr || generation == nullptr || !observed->IsInt64() || !generation->IsInt64() ||
        observed->GetInt64() != generation->GetInt64()) {
      return "TenantQuota " + tenant.ns + "/quota status generation";
    }
    const std::string used = kube::string_of(kube::member(kube::member(status, "used"), resource));
    const rapidjson::Value* used_number = kube::member(kube::member(status, "used"), resource);
    const int want = with_pods ? shape.tenant_used[t->second] : 0;
    const bool matches = used_number != nullptr && used_number->IsInt() ? used_number->GetInt() == want
                                                                         : (used.empty() ? want == 0 : used == std::to_string(want));
    if (!matches) return "TenantQuota " + tenant.ns + "/quota status.used";
  }
  if (quotas_seen != shape.tenants.size()) return std::string("TenantQuotas missing");
  return std::nullopt;
}

struct ControllerRun {
  double sync_s = 0, peak_rss_mib = 0, rss_mib = 0, cpu_seconds = 0;
  std::map<std::string, bench::QueueFigures> queues;  // its /metrics, read before it stops
};

// Polls the controller's /metrics until each of the named controllers'
// queues has nothing waiting or running, on two scrapes a second apart (a
// pass that just ended may have queued another); the seconds it took.
double wait_queues_idle(const std::string& metrics_url, const std::vector<std::string>& names,
                        std::chrono::seconds timeout) {
  const auto t0 = Clock::now();
  for (int idle_in_a_row = 0;;) {
    testenv::HttpRequest scrape;
    scrape.url = metrics_url;
    const auto queues = bench::queue_figures(testenv::http_request(scrape).body);
    const bool idle = std::ranges::all_of(names, [&](const std::string& name) {
      const auto it = queues.find(name);
      return it != queues.end() && it->second.idle();
    });
    idle_in_a_row = idle ? idle_in_a_row + 1 : 0;
    if (idle_in_a_row == 2) return since(t0);
    if (Clock::now() - t0 > timeout) {
      throw std::runtime_error("the controller's queues were still busy after " + std::to_string(timeout.count()) + " s");
    }
    std::this_thread::sleep_for(std::chrono::seconds(1));
  }
}

// Runs the controller until it is in sync, then `while_synced` (with it
// still running, given its /metrics URL; peak RSS covers both), then stops it.
ControllerRun run_controller(const std::string& controller, const std::string& kubeconfig, const std::string& log_file,
                             kube::Client& client, const bench::ClusterShape& shape, bool with_pods,
                             std::chrono::seconds timeout,
                             const std::function<void(const std::string& metrics_url)>& while_synced = {},
                             const std::vector<std::string>& extra_args = {}) {
  testenv::SpawnSpec spec;
  spec.path = controller;
  // As deployed: with its webhook server, without which the quota gate and
  // the usage it keeps do not run.
  const auto ports = testenv::pick_free_ports(3);
  const std::string webhook = "127.0.0.1:" + std::to_string(ports.at(0));
  const std::string probes = "127.0.0.1:" + std::to_string(ports.at(1));
  const std::string metrics = "127.0.0.1:" + std::to_string(ports.at(2));
  spec.args = {"--kubeconfig", kubeconfig, "--metrics-bind-address", metrics, "--health-probe-bind-address", probes,
               "--log-format=json", "--agent-namespace", "gpupool-system", "--webhook-bind-address", webhook,
               "--webhook-url", "https://" + webhook};
  spec.args.insert(spec.args.end(), extra_args.begin(), extra_args.end());
  spec.log_file = log_file;
  const auto t0 = Clock::now();
  auto process = testenv::Process::spawn(spec);
  ControllerRun run;
  std::string last = "nothing read yet";
  for (;;) {
    if (auto s = bench::process_stats(process.pid())) run.peak_rss_mib = std::max(run.peak_rss_mib, s->peak_rss_mib);
    // In sync: its informers have synced (/readyz; before that the statuses
    // may still be a previous run's) and the statuses say what they should.
    testenv::HttpRequest ready;
    ready.url = "http://" + probes + "/readyz";
    ready.timeout = std::chrono::seconds(2);
    const auto why = testenv::http_request(ready).status == 200 ? out_of_sync(client, shape, with_pods)
                                                                 : std::optional<std::string>("its informers (/readyz)");
    if (!why) break;
    last = *why;
    if (!process.running()) throw std::runtime_error("the controller exited; its log: " + log_file);
    if (Clock::now() - t0 > timeout) {
      throw std::runtime_error("the controller was not in sync after " + std::to_string(timeout.count()) +
                               " s: " + last + " (its log: " + log_file + ")");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(250));  // the poll interval (sync_s is up to this late)
  }
  run.sync_s = since(t0);
  if (auto s = bench::process_stats(process.pid())) {
    run.peak_rss_mib = std::max(run.peak_rss_mib, s->peak_rss_mib);
    run.rss_mib = s->rss_mib;
    run.cpu_seconds = s->cpu_seconds;
  }
  const std::string metrics_url = "http://" + metrics + "/metrics";
  if (while_synced) {
    while_synced(metrics_url);
    if (!process.running()) throw std::runtime_error("the controller exited; its log: " + log_file);
    if (auto s = bench::process_stats(process.pid())) run.peak_rss_mib = std::max(run.peak_rss_mib, s->peak_rss_mib);
  }
  testenv::HttpRequest scrape;
  scrape.url = metrics_url;
  const auto exposition = testenv::http_request(scrape).body;
  run.queues = bench::queue_figures(exposition);
  std::ofstream(log_file + ".metrics") << exposition;  // beside its log, for a closer look
  process.terminate();
  return run;
}

// The API server's CPU seconds during the rollout over this machine's
// cores: how long its work alone takes with every core (none: not measured).
std::optional<double> apiserver_bound_s(const bench::RolloutFigures& r) {
  const unsigned cores = std::thread::hardware_concurrency();
  if (!r.apiserver || cores == 0 || r.apiserver->cpu_s <= 0) return std::nullopt;
  return r.apiserver->cpu_s / cores;
}

std::string number_or_null(const std::optional<double>& v) {
  if (!v) return "null";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.6g", *v);
  return buf;
}

void write_json(const std::string& path, const bench::ClusterShape& shape, const Figures& f) {
  std::ofstream out(path);
  const std::optional<double> none;
  auto ratio = [](std::optional<double> a, std::optional<double> b) -> std::optional<double> {
    if (!a || !b || *b <= 0) return std::nullopt;
    return *a / *b;
  };
  out << "{\n"
      << "  \"nodes\": " << shape.nodes.size() << ", \"pods\": " << shape.pods.size() << ", \"tenants\": " << shape.tenants.size()
      << ", \"pools\": " << shape.pools.size() << ", \"gpu_pods\": " << shape.gpu_pods << ",\n"
      << "  \"seed_pods_per_s\": " << number_or_null(f.seed_pods_per_s) << ",\n"
      << "  \"seed_nodes_per_s\": " << number_or_null(f.seed_nodes_per_s) << ",\n"
      << "  \"list_floor_s\": " << number_or_null(f.list_floor_s) << ",\n"
      << "  \"sync_s\": " << number_or_null(f.sync_s) << ",\n"
      << "  \"sync_ratio_to_list\": " << number_or_null(ratio(f.sync_s, f.list_floor_s)) << ",\n"
      << "  \"stream_list_floor_s\": " << number_or_null(f.stream_list_floor_s) << ",\n"
      << "  \"sync_ratio_to_stream_list\": " << number_or_null(ratio(f.sync_s, f.stream_list_floor_s)) << ",\n"
      << "  \"peak_rss_mib\": " << number_or_null(f.peak_rss_mib) << ",\n"
      << "  \"cpu_seconds\": " << number_or_null(f.cpu_seconds) << ",\n"
      << "  \"rss_bytes_per_pod\": " << number_or_null(f.rss_bytes_per_pod) << ",\n"
      << "  \"baseline_sync_s\": " << number_or_null(f.baseline_sync_s) << ",\n"
      << "  \"baseline_peak_rss_mib\": " << number_or_null(f.baseline_peak_rss_mib) << ",\n"
      << "  \"sync_ratio_to_baseline\": " << number_or_null(ratio(f.sync_s, f.baseline_sync_s)) << ",\n"
      << "  \"rss_ratio_to_baseline\": " << number_or_null(ratio(f.peak_rss_mib, f.baseline_peak_rss_mib)) << ",\n"
      << "  \"usage_lag_p50_ms\": " << number_or_null(f.usage_lag_p50_ms) << ",\n"
      << "  \"usage_lag_p99_ms\": " << number_or_null(f.usage_lag_p99_ms) << ",\n"
      << "  \"probe_delete_p50_ms\": " << number_or_null(f.probe_delete_p50_ms) << ",\n"
      << "  \"probe_delete_p99_ms\": " << number_or_null(f.probe_delete_p99_ms) << ",\n"
      << "  \"churn_events_per_s\": " << number_or_null(f.churn_events_per_s) << ",\n"
      << "  \"controller_kube_api_qps\": " << number_or_null(f.controller_qps) << ",\n"
      << "  \"controller_kube_api_burst\": " << f.controller_burst << ",\n"
      << "  \"controller_concurrency\": " << f.controller_concurrency << ",\n"
      << "  \"admission_pods\": " << (f.admission ? std::to_string(f.admission->pods) : "null") << ",\n"
      << "  \"admissions_per_s\": " << number_or_null(f.admission && f.admission->pods > 0 ? std::optional(f.admission->per_second) : none) << ",\n"
      << "  \"rollout_install_s\": " << number_or_null(f.install_s) << ",\n"
      << "  \"rollout_s\": " << number_or_null(f.rollout ? std::optional(f.rollout->duration_s) : none) << ",\n"
      << "  \"rollout_ideal_s\": " << number_or_null(f.rollout ? std::optional(f.rollout->ideal_s) : none) << ",\n"
      << "  \"rollout_overhead\": " << number_or_null(f.rollout ? f.rollout->overhead : none) << ",\n"
      << "  \"rollout_apiserver_cpu_s\": "
      << number_or_null(f.rollout && f.rollout->apiserver ? std::optional(f.rollout->apiserver->cpu_s) : none) << ",\n"
      << "  \"rollout_apiserver_requests\": "
      << number_or_null(f.rollout && f.rollout->apiserver ? std::optional(f.rollout->apiserver->requests) : none) << ",\n"
      << "  \"rollout_apiserver_bound_s\": " << number_or_null(f.rollout ? apiserver_bound_s(*f.rollout) : none) << ",\n"
      << "  \"rollout_not_ready_flips\": " << (f.rollout ? std::to_string(f.rollout->not_ready_flips) : "null") << ",\n"
      << "  \"max_disrupted\": " << (f.rollout ? std::to_string(f.rollout->max_disrupted) : "null") << ",\n"
      << "  \"max_unavailable\": " << (f.rollout ? std::to_string(f.rollout->max_unavailable) : "null") << ",\n"
      << "  \"max_unavailable_exceeded\": " << (f.rollout ? (f.rollout->limit_exceeded ? "true" : "false") : "null") << ",\n"
      << "  \"rollout_pools\": [";
  if (f.rollout) {
    for (std::size_t i = 0; i < f.rollout->pools.size(); ++i) {
      const auto& p = f.rollout->pools[i];
      out << (i ? ",\n    " : "\n    ") << "{\"pool\": \"" << p.pool << "\", \"nodes\": " << p.members
          << ", \"max_unavailable\": " << p.limit << ", \"waves\": " << p.waves << ", \"max_disrupted\": " << p.max_disrupted
          << ", \"complete_s\": " << number_or_null(p.complete_s) << "}";
    }
  }
  out << "],\n"
      << "  \"not_measured\": []\n"
      << "}\n";
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"gpupool-scale-bench: the controller on a large seeded cluster, against a bare list and a client-go baseline"};
  bench::ShapeOptions shape_options;
  int writers = 32;
  std::string json_path, log_dir_option, kubeconfig_path, controller = GPUPOOL_CONTROLLER_BIN;
  std::string baseline = std::getenv("GPUPOOL_CLIENT_GO_BASELINE") ? std::getenv("GPUPOOL_CLIENT_GO_BASELINE") : "";
  int sync_timeout_s = 1800;
  int probes = 200, churn_writers = 8;
  std::optional<std::size_t> admission_pods;
  double install_s = 2, controller_qps = 0;
  int controller_burst = 400, agent_workers = 64, controller_concurrency = 0;
  std::string max_unavailable = "10%";
  std::optional<int> node_lease_s;
  app.add_option("--nodes", shape_options.nodes, "kwok nodes")->capture_default_str();
  app.add_option("--pods", shape_options.pods, "pods")->capture_default_str();
  app.add_option("--tenants", shape_options.tenants, "tenants, each a namespace with a TenantQuota")->capture_default_str();
  app.add_option("--pools", shape_options.pools, "GPUPools")->capture_default_str();
  app.add_option("--gpus-per-node", shape_options.gpus_per_node, "GPUs per node")->capture_default_str();
  app.add_option("--seed", shape_options.seed, "seed of the cluster's shape")->capture_default_str();
  app.add_option("--writers", writers, "parallel requests while seeding")->capture_default_str();
  app.add_option("--controller", controller, "gpupool-controller binary")->capture_default_str();
  app.add_option("--baseline", baseline, "client-go baseline binary (default $GPUPOOL_CLIENT_GO_BASELINE)");
  app.add_option("--kubeconfig", kubeconfig_path, "use this cluster instead of starting the pinned control plane");
  app.add_option("--sync-timeout", sync_timeout_s, "seconds the controller may take to be in sync")->capture_default_str();
  app.add_option("--probes", probes, "pod deletions timed until their tenant's status shows them")->capture_default_str();
  app.add_option("--churn-writers", churn_writers, "threads creating and deleting pods meanwhile")->capture_default_str();
  app.add_option("--admission-pods", admission_pods,
                 "GPU pods created at once at the quota gate, within their tenants' grants (default: 2,000 at 5,000 "
                 "nodes, in proportion to --nodes, at least 20; fewer when fewer fit)");
  app.add_option("--install-seconds", install_s, "how long each simulated agent's driver install takes")
      ->capture_default_str()->check(CLI::PositiveNumber);
  app.add_option("--max-unavailable", max_unavailable, "the pools' upgradeStrategy.maxUnavailable for the rollout")
      ->capture_default_str();
  // Real agents run one per node; a pass mostly waits on its round trips.
  // With 8 threads at 2,000 nodes the passes queued: grant to cordon took
  // 4.2 s on average, and 0.1 s with 64.
  app.add_option("--agent-workers", agent_workers, "threads running the simulated agents' passes")
      ->capture_default_str()->check(CLI::PositiveNumber);
  app.add_option("--controller-qps", controller_qps,
                 "the controller's --kube-api-qps for the admission and rollout steps (0: its default, no client-side "
                 "limit; earlier runs: its default)")
      ->capture_default_str()->check(CLI::NonNegativeNumber);
  app.add_option("--controller-burst", controller_burst, "the controller's --kube-api-burst for those steps, with --controller-qps")
      ->capture_default_str()->check(CLI::PositiveNumber);
  app.add_option("--controller-concurrency", controller_concurrency,
                 "the controller's --concurrency (reconciles at once per controller) for those steps (0: its default)")
      ->capture_default_str()->check(CLI::NonNegativeNumber);
  app.add_option("--node-lease-seconds", node_lease_s,
                 "kwok's node lease duration and kube-controller-manager's grace period, for the started control "
                 "plane, and the simulated agents' Lease duration (default: 40 s as kubelet's, 0.2 s per node above "
                 "200 nodes: each Lease is renewed every quarter of it, at most 20 renewals/s of each kind)")
      ->check(CLI::PositiveNumber);
  app.add_option("--log-dir", log_dir_option,
                 "write the controllers' logs and last /metrics here (default: the started control plane's state "
                 "directory, removed at exit; /tmp with --kubeconfig)");
  app.add_option("--json", json_path, "write the figures here");
  CLI11_PARSE(app, argc, argv);
  if (!bench::resolve_max_unavailable(max_unavailable, 1)) {
    std::fprintf(stderr, "gpupool-scale-bench: --max-unavailable %s is neither a count nor a percentage\n", max_unavailable.c_str());
    return 2;
  }
  log::init(log::Format::Text, "warn");
  std::setvbuf(stdout, nullptr, _IOLBF, 0);  // each step's line as it happens, also into a pipe

  try {
    const bench::ClusterShape shape = bench::make_shape(shape_options);
    std::printf("cluster: %zu nodes x %d GPUs in %zu pools, %zu tenants, %zu pods (seed %llu)\n", shape.nodes.size(),
                shape_options.gpus_per_node, shape.pools.size(), shape.tenants.size(), shape.pods.size(),
                static_cast<unsigned long long>(shape_options.seed));
    // At 40 s kwok renews 5,000 leases 500 times a second; on a small
    // machine it falls behind, nodes flap NotReady and the rollout stalls.
    // The simulated agents' Leases (one process renewing them all, where
    // real agents renew one each) scale alike: at full size with 150,000
    // pods, 40 s Leases renewed every 10 s lapsed and nodes waited with "no
    // agent heartbeat" (20 % in step after 10 minutes). At 0.04 s per node
    // (200 s at 5,000: 100 renewals/s of each kind) kwok still fell behind
    // in the rollout (2,116 and 2,530 NotReady flips in two runs), so 0.2 s
    // per node: 1,000 s at 5,000 nodes, 20 renewals/s of each kind.
    const int lease_s = node_lease_s.value_or(std::max(40, static_cast<int>(shape.nodes.size() / 5)));
    std::printf("node and agent leases: %d s (renewed every %d s)\n", lease_s, lease_s / 4);
    std::unique_ptr<testenv::ControlPlane> cluster;
    kube::RestConfig config;
    if (kubeconfig_path.empty()) {
      const auto t0 = Clock::now();
      testenv::Options opts;
      // Room for the seeding writers and the controller's lists at once.
      opts.extra_apiserver_flags = {"--max-requests-inflight=1000", "--max-mutating-requests-inflight=500"};
      opts.node_lease_seconds = lease_s;
      // A renewal due every lease_s / 4 per node, each waiting ~0.4 s on a
      // busy API server here: 4 at once (kwok's default) lapsed leases at
      // 5,000 nodes (2,116 NotReady flips in one rollout, each a slot of its
      // pool's limit while it lasted).
      opts.node_lease_parallelism = std::max(4, static_cast<int>(shape.nodes.size() / 100));

      cluster = testenv::ControlPlane::start(opts);
      kubeconfig_path = cluster->kubeconfig_path();
      std::string out;
      if (cluster->kubectl({"apply", "--server-side", "-f", std::string(GPUPOOL_SOURCE_DIR) + "/crds"}, &out) != 0 ||
          cluster->kubectl({"wait", "--for=condition=Established", "--timeout=60s", "crd/gpupools.gpupool.io",
                            "crd/tenantquotas.gpupool.io", "crd/gpunodes.gpupool.io", "crd/gpupolicies.gpupool.io"},
                           &out) != 0) {
        throw std::runtime_error("installing the CRDs failed: " + out);
      }
      std::printf("control plane and CRDs ready in %.1f s\n", since(t0));
    }
    config = kube::kubeconfig::to_rest_config(kube::kubeconfig::read_file(kubeconfig_path), std::nullopt);
    config.qps = 0;  // no client-side limit: the API server's own limits apply
    config.timeout = std::chrono::minutes(5);
    kube::Client client(config);
    const std::string log_dir = !log_dir_option.empty() ? log_dir_option
                                : cluster                  ? cluster->state_dir()
                                                           : std::string("/tmp");
    if (!log_dir_option.empty()) std::filesystem::create_directories(log_dir_option);

    Figures f;
    const auto seed_start = Clock::now();
    seed_objects(client, shape, writers, f);
    // A node agent per node from here to the end, as on a cluster: every
    // GPUNode the controllers below keep carries its agent's report (GPUs,
    // MIG instances, conditions), every agent a Lease they watch.
    bench::FleetOptions fleet_options;
    fleet_options.install_time = std::chrono::milliseconds(static_cast<long long>(install_s * 1000));
    fleet_options.workers = agent_workers;
    fleet_options.lease_duration_s = lease_s;
    fleet_options.lease_interval = std::chrono::seconds(lease_s / 4);
    bench::AgentFleet fleet(client, shape, fleet_options);
    double in_step_s = 0, grants_settled_s = 0;
    // Until the grants have settled too: the pools' capacity grows as the
    // agents report, and a controller stopped before its grant passes caught
    // up left the measured restart below hundreds of grants to write (500
    // in one run), which no restart of a settled controller has.
    const auto without_pods = run_controller(
        controller, kubeconfig_path, log_dir + "/controller-no-pods.log", client, shape, false,
        std::chrono::seconds(sync_timeout_s), [&](const std::string& metrics_url) {
          in_step_s = bench::wait_in_step(client, shape, std::chrono::seconds(sync_timeout_s));
          grants_settled_s = wait_queues_idle(metrics_url, {"tenantquota-grants"}, std::chrono::seconds(sync_timeout_s));
        });
    std::printf("controller without pods: in sync after %.2f s (a first start: labels, taints, GPUNode specs written); "
                "every pool up to date with its agents' reports %.2f s later, its grants settled %.2f s after that\n",
                without_pods.sync_s, in_step_s, grants_settled_s);
    // The reference for bytes per pod: a restart with nothing left to write,
    // as the measured run below is (the first run's write bursts leave its
    // RSS higher than the steady state).
    const auto restarted = run_controller(controller, kubeconfig_path, log_dir + "/controller-no-pods-2.log", client, shape,
                                          false, std::chrono::seconds(sync_timeout_s));
    f.rss_no_pods_mib = restarted.rss_mib;
    std::printf("controller without pods, restarted: in sync after %.2f s, RSS %.1f MiB\n", restarted.sync_s,
                restarted.rss_mib);
    // The pods stand for workloads that ran before the operator came: the
    // gate's admission objects the first run wrote would refuse them
    // (bound GPU pods in covered namespaces), so they go until the measured run.
    remove_admission_objects(client, shape);
    seed_pods(client, shape, writers, f);
    f.seed_seconds = since(seed_start);
    f.requests = client.stats().requests;
    f.http2_responses = client.stats().http2_responses;
    f.connections = client.stats().connections_opened;
    std::printf("seeding: %llu requests, %llu answered over HTTP/2, %llu connections opened\n",
                static_cast<unsigned long long>(f.requests), static_cast<unsigned long long>(f.http2_responses),
                static_cast<unsigned long long>(f.connections));

    f.list_floor_s = list_floor(client);
    f.stream_list_floor_s = stream_list_floor(client);
    run_baseline(baseline, kubeconfig_path, f);
    bench::UsageLag lag;
    const auto run = run_controller(controller, kubeconfig_path, log_dir + "/controller.log", client, shape, true,
                                    std::chrono::seconds(sync_timeout_s), [&](const std::string&) {
                                      lag = bench::measure_usage_lag(client, shape, static_cast<std::size_t>(probes),
                                                                     churn_writers, std::chrono::seconds(60));
                                    });
    if (!lag.lags_ms.empty()) {
      f.usage_lag_p50_ms = lag.p50_ms();
      f.usage_lag_p99_ms = lag.p99_ms();
      f.probe_delete_p50_ms = lag.delete_p50_ms();
      f.probe_delete_p99_ms = lag.delete_p99_ms();
    }
    f.churn_events_per_s = lag.churn_events_per_s;
    std::printf(
        "usage delay over %zu probes with %.0f pod events/s of churn: p50 %.1f ms, p99 %.1f ms (the probes' deletes "
        "themselves took p50 %.1f ms, p99 %.1f ms)\n",
        lag.lags_ms.size(), lag.churn_events_per_s, lag.p50_ms(), lag.p99_ms(), lag.delete_p50_ms(), lag.delete_p99_ms());
    f.sync_s = run.sync_s;
    f.peak_rss_mib = run.peak_rss_mib;
    f.cpu_seconds = run.cpu_seconds;
    f.rss_synced_mib = run.rss_mib;
    f.rss_bytes_per_pod = shape.pods.empty() ? 0
                                             : (run.rss_mib - f.rss_no_pods_mib) * 1024.0 * 1024.0 /
                                                   static_cast<double>(shape.pods.size());
    std::printf("controller: in sync after %.2f s, peak RSS %.1f MiB, %.1f CPU s, %.0f bytes per pod\n", f.sync_s,
                f.peak_rss_mib, f.cpu_seconds, f.rss_bytes_per_pod);

    // Steps 7 and 8: a fourth controller run with raised client-side limits,
    // in sync with the cluster as the probes left it.
    f.install_s = install_s;
    f.controller_qps = controller_qps;
    f.controller_concurrency = controller_concurrency;
    f.controller_burst = controller_burst;
    const bench::ClusterShape probed = bench::without_pods(shape, bench::probe_pods(shape, static_cast<std::size_t>(probes)));
    const auto burst = admission_pods.value_or(bench::default_burst(shape.nodes.size()));
    std::vector<std::string> late_args;
    if (controller_qps > 0) {
      late_args = {"--kube-api-qps", std::to_string(controller_qps), "--kube-api-burst", std::to_string(controller_burst)};
    }
    if (controller_concurrency > 0) late_args.insert(late_args.end(), {"--concurrency", std::to_string(controller_concurrency)});
    // A failure of these last steps still leaves the figures above printed
    // and written: a full-size run costs most of an hour.
    std::string late_failure;
    try {
      const auto late = run_controller(controller, kubeconfig_path, log_dir + "/controller-admission-rollout.log", client, probed, true,
                     std::chrono::seconds(sync_timeout_s), [&](const std::string&) {
                       f.admission = bench::measure_admissions(client, probed, burst, writers, std::chrono::seconds(sync_timeout_s));
                       std::printf("admission: %zu of %zu gated GPU pods fitted their grants; created in %.2f s, all admitted "
                                   "after %.2f s: %.0f pods/s\n",
                                   f.admission->pods, burst, f.admission->create_s, f.admission->admit_s, f.admission->per_second);
                       bench::RolloutOptions ro;
                       ro.fleet = fleet_options;
                       ro.max_unavailable = max_unavailable;
                       ro.timeout = std::chrono::seconds(sync_timeout_s);
                       if (const char* e = std::getenv("GPUPOOL_BENCH_ROLLOUT_EVENTS")) ro.events_file = e;
                       f.rollout = bench::measure_rollout(client, shape, fleet, ro);
                       const auto& r = *f.rollout;
                       std::printf("rollout: %zu simulated agents in step with their pools (seen after %.2f s); every pool complete "
                                   "%.2f s after the driver change (ideal %.1f s); %zu changes recorded, %zu Nodes went NotReady; agents: %llu passes, "
                                   "%llu status writes, %llu cordons, %llu installs, %llu conflicts, %llu errors, %llu lease "
                                   "renewals (%llu failed)\n",
                                   shape.nodes.size(), r.fleet_in_step_s, r.duration_s, r.ideal_s, r.events, r.not_ready_flips,
                                   static_cast<unsigned long long>(r.fleet.passes), static_cast<unsigned long long>(r.fleet.status_writes),
                                   static_cast<unsigned long long>(r.fleet.cordons), static_cast<unsigned long long>(r.fleet.installs),
                                   static_cast<unsigned long long>(r.fleet.conflicts), static_cast<unsigned long long>(r.fleet.errors),
                                   static_cast<unsigned long long>(r.fleet.lease_renewals),
                                   static_cast<unsigned long long>(r.fleet.lease_failures));
                       auto ms = [](const std::optional<double>& s) { return s ? *s * 1000 : -1.0; };
                       std::printf("rollout time per node, means as the recorder saw it (ms): grant to cordon %.0f, cordon "
                                   "to uncordon %.0f (install %.0f), uncordon to withdrawal %.0f (to the agent's report "
                                   "%.0f, report to withdrawal %.0f); withdrawal to the next grant in its pool %.0f\n",
                                   ms(r.phases.grant_to_cordon), ms(r.phases.cordon_to_uncordon), install_s * 1000,
                                   ms(r.phases.uncordon_to_withdrawal), ms(r.phases.uncordon_to_report),
                                   ms(r.phases.report_to_withdrawal), ms(r.phases.withdrawal_to_next_grant));
                       if (r.apiserver && r.duration_s > 0) {
                         std::printf("kube-apiserver during the rollout: %.1f CPU s in %.1f s (%.2f of this machine's %u "
                                     "cores); %.0f requests, most: %s\n",
                                     r.apiserver->cpu_s, r.duration_s, r.apiserver->cpu_s / r.duration_s,
                                     std::thread::hardware_concurrency(), r.apiserver->requests,
                                     bench::describe_requests(*r.apiserver).c_str());
                       }
                       std::printf("%-10s %6s %6s %6s %10s %10s  %s\n", "pool", "nodes", "limit", "waves", "disrupted", "done (s)",
                                   "worst moment");
                       for (const auto& p : r.pools) {
                         std::printf("%-10s %6d %6d %6d %10d %10.2f  %s%s\n", p.pool.c_str(), p.members, p.limit, p.waves,
                                     p.max_disrupted, p.complete_s, p.max_disrupted > p.limit ? "LIMIT EXCEEDED " : "",
                                     p.worst.c_str());
                       }
                     },
                     late_args);
      std::printf("controller during admissions and the rollout: peak RSS %.1f MiB\n", late.peak_rss_mib);
      // Where the passes' time went (the admission and rollout steps together).
      for (const char* name : {"gpupool", "gpu-health", "tenantquota-grants", "quota-admission", "tenantquota-usage"}) {
        auto it = late.queues.find(name);
        if (it == late.queues.end()) continue;
        std::printf("controller %s: %.0f passes, %.1f ms each on average after %.1f ms in its queue\n", name,
                    it->second.passes, it->second.mean_pass_ms, it->second.mean_wait_ms);
      }
    } catch (const std::exception& e) {
      late_failure = e.what();
      std::fprintf(stderr, "gpupool-scale-bench: %s (the figures measured before follow)\n", e.what());
    }

    std::printf("\n%-34s %12s\n", "figure", "value");
    std::printf("%-34s %12.0f\n", "seed pods/s", f.seed_pods_per_s);
    std::printf("%-34s %12.2f\n", "list floor (s)", f.list_floor_s);
    std::printf("%-34s %12.2f\n", "controller in sync (s)", f.sync_s);
    std::printf("%-34s %12.2f\n", "  ratio to the list floor", f.list_floor_s > 0 ? f.sync_s / f.list_floor_s : 0);
    if (f.stream_list_floor_s) {
      std::printf("%-34s %12.2f\n", "streaming list floor (s)", *f.stream_list_floor_s);
      std::printf("%-34s %12.2f\n", "  ratio to it", *f.stream_list_floor_s > 0 ? f.sync_s / *f.stream_list_floor_s : 0);
    }
    std::printf("%-34s %12.1f\n", "controller peak RSS (MiB)", f.peak_rss_mib);
    std::printf("%-34s %12.1f\n", "controller CPU (s)", f.cpu_seconds);
    std::printf("%-34s %12.0f\n", "controller RSS per pod (bytes)", f.rss_bytes_per_pod);
    if (f.baseline_sync_s) {
      std::printf("%-34s %12.2f\n", "client-go baseline sync (s)", *f.baseline_sync_s);
      std::printf("%-34s %12.1f\n", "client-go baseline peak RSS (MiB)", *f.baseline_peak_rss_mib);
      std::printf("%-34s %12.2f\n", "  our peak RSS / baseline's", f.peak_rss_mib / *f.baseline_peak_rss_mib);
      std::printf("%-34s %12.2f\n", "  our sync / baseline's", f.sync_s / *f.baseline_sync_s);
    }
    if (f.usage_lag_p50_ms) {
      std::printf("%-34s %12.1f\n", "usage delay p50 (ms)", *f.usage_lag_p50_ms);
      std::printf("%-34s %12.1f\n", "usage delay p99 (ms)", *f.usage_lag_p99_ms);
      std::printf("%-34s %12.1f\n", "  probes' deletes p99 (ms)", *f.probe_delete_p99_ms);
      std::printf("%-34s %12.0f\n", "  with churn (pod events/s)", f.churn_events_per_s);
    }
    std::printf("%-34s %12s\n", "steps 7-8: controller QPS/burst",
                controller_qps > 0 ? (std::to_string(static_cast<int>(controller_qps)) + "/" + std::to_string(controller_burst)).c_str()
                                   : "no limit");
    if (controller_concurrency > 0) std::printf("%-34s %12d\n", "steps 7-8: controller concurrency", controller_concurrency);
    if (f.admission && f.admission->pods > 0) {
      std::printf("%-34s %12.0f\n", ("admissions/s (" + std::to_string(f.admission->pods) + " gated pods)").c_str(),
                  f.admission->per_second);
    }
    if (f.rollout) {
      const auto& r = *f.rollout;
      std::printf("%-34s %12.2f\n", "rollout, all pools complete (s)", r.duration_s);
      std::printf("%-34s %12.2f\n", ("  ideal (waves x " + std::to_string(install_s).substr(0, 4) + " s)").c_str(), r.ideal_s);
      std::printf("%-34s %12.3f\n", "  rollout overhead", r.overhead.value_or(0));
      if (const auto bound = apiserver_bound_s(r)) {
        // What the API server's own work takes with every core of this
        // machine: the rollout cannot end sooner here, whoever sends the requests.
        std::printf("%-34s %12.2f\n", "  API server CPU s / cores", *bound);
        std::printf("%-34s %12.2f\n", "  rollout / that", r.duration_s / *bound);
      }
      std::printf("%-34s %12d\n", "max unavailable (largest pool limit)", r.max_unavailable);
      std::printf("%-34s %12d\n", "max disrupted at once (one pool)", r.max_disrupted);
      std::printf("%-34s %12s\n", "  limit exceeded", r.limit_exceeded ? "YES" : "no");
    }
    if (!json_path.empty()) write_json(json_path, shape, f);
    return late_failure.empty() ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gpupool-scale-bench: %s\n", e.what());
    return 1;
  }
}
