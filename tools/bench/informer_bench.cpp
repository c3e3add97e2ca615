// An informer listing and watching N pods from a real control plane: the
// projected pod store (PodProjection) against a full-object store (Object),
// and against whole objects without metadata.managedFields (kube::DecodeTrim,
// as the controller keeps Nodes, GPUNodes and its other kinds).
//
//   gpupool-informer-bench [--pods N] [--writers W] [--updates U]
//
// Starts the pinned control plane (tools/testenv), creates N realistic pods
// (tools/bench/pod_writer.h, status included) in 40 namespaces with W writer
// threads, then, for each store, runs a fresh process (this program with
// --measure) that lists and watches all pods until synced, applies U label
// patches and waits until the informer has seen them. Each measuring process
// reports time to synced, the RSS its store added and the watch figures; its
// peak RSS comes from wait4. Prints figures and the ratios of one run; exits
// non-zero only if a store does not end up holding all N pods.
#include <rapidjson/document.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "gpupool/common/log.h"
#include "gpupool/runtime/informer.h"
#include "gpupool/testenv/control_plane.h"
#include "pod_writer.h"

namespace {

using namespace gpupool;
using Clock = std::chrono::steady_clock;

constexpr int kNamespaces = 40;

double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

double current_rss_mib() {
  std::ifstream statm("/proc/self/statm");
  long pages_total = 0, pages_resident = 0;
  statm >> pages_total >> pages_resident;
  return static_cast<double>(pages_resident) * static_cast<double>(sysconf(_SC_PAGESIZE)) / (1024.0 * 1024.0);
}

kube::RestConfig config_for(const std::string& server, const std::string& ca_file, const std::string& token) {
  kube::RestConfig c;
  c.server = server;
  std::ifstream ca(ca_file);
  std::ostringstream pem;
  pem << ca.rdbuf();
  c.tls.ca_pem = pem.str();
  c.credentials = std::make_shared<kube::StaticCredentials>(kube::Credentials{token, "", ""});
  c.qps = 0;
  c.timeout = std::chrono::minutes(5);
  return c;
}

// The create body and the status of a generated pod: what the apiserver
// accepts on create (no uid, resourceVersion, timestamps or managedFields).
std::pair<std::string, std::string> manifest_and_status(const std::string& pod_json) {
  rapidjson::Document d = kube::parse_json(pod_json);
  auto& meta = d["metadata"];
  for (const char* f : {"uid", "resourceVersion", "creationTimestamp", "managedFields", "generateName"}) {
    if (meta.HasMember(f)) meta.RemoveMember(f);
  }
  // Admission fills these in itself (the token volume, the priority) and
  // rejects a create that sets them differently.
  auto& spec = d["spec"];
  if (spec.HasMember("priority")) spec.RemoveMember("priority");
  auto is_token = [](const rapidjson::Value& v) {
    return v.IsObject() && v.HasMember("name") && v["name"].IsString() &&
           std::string_view(v["name"].GetString()).starts_with("kube-api-access");
  };
  auto drop_token = [&](rapidjson::Value& list) {
    if (!list.IsArray()) return;
    for (auto it = list.Begin(); it != list.End();) it = is_token(*it) ? list.Erase(it) : it + 1;
  };
  if (spec.HasMember("volumes")) drop_token(spec["volumes"]);
  for (const char* kind : {"containers", "initContainers"}) {
    if (!spec.HasMember(kind)) continue;
    for (auto& c : spec[kind].GetArray()) {
      if (c.HasMember("volumeMounts")) drop_token(c["volumeMounts"]);
    }
  }
  rapidjson::Document status(rapidjson::kObjectType);
  if (d.HasMember("status")) {
    if (d["status"].HasMember("qosClass")) d["status"].RemoveMember("qosClass");  // set by the server, immutable
    status.AddMember("status", rapidjson::Value(d["status"], status.GetAllocator()), status.GetAllocator());
    d.RemoveMember("status");
  }
  d.AddMember("apiVersion", "v1", d.GetAllocator());
  d.AddMember("kind", "Pod", d.GetAllocator());
  return {kube::to_json(d), kube::to_json(status)};
}

void create_pods(kube::Client& client, std::size_t pods, int writers) {
  kube::ResourceRef namespaces{kube::core::namespaces(), "", "", ""};
  for (int i = 0; i < kNamespaces; ++i) {
    char name[16];
    std::snprintf(name, sizeof name, "team-%02d", i);
    client.create(namespaces, std::string(R"({"apiVersion":"v1","kind":"Namespace","metadata":{"name":")") + name + "\"}}");
    // No kube-controller-manager runs here, so nothing else makes the account pods need.
    client.create({{"", "v1", "serviceaccounts"}, name, "", ""},
                  R"({"apiVersion":"v1","kind":"ServiceAccount","metadata":{"name":"default"}})");
  }
  std::atomic<std::size_t> next{0};
  std::atomic<bool> failed{false};
  auto start = Clock::now();
  std::vector<std::thread> threads;
  for (int w = 0; w < writers; ++w) {
    threads.emplace_back([&, w] {
      bench::PodWriter writer(1000 + static_cast<uint64_t>(w));
      try {
        for (std::size_t i; (i = next++) < pods && !failed;) {
          auto [body, status] = manifest_and_status(writer.pod(i));
          char ns[16];
          std::snprintf(ns, sizeof ns, "team-%02zu", i % kNamespaces);
          auto created = client.create({kube::core::pods(), ns, "", ""}, body);
          client.patch({kube::core::pods(), ns, kube::string_at(created, {"metadata", "name"}), "status"},
                       kube::PatchType::MergePatch, status);
        }
      } catch (const std::exception& e) {
        std::fprintf(stderr, "creating pods failed: %s\n", e.what());
        failed = true;
      }
    });
  }
  for (auto& t : threads) t.join();
  if (failed) throw std::runtime_error("could not create the pods");
  double secs = seconds_since(start);
  std::printf("created %zu pods (with status) in %.1f s: %.0f pods/s\n", pods, secs, static_cast<double>(pods) / secs);
}

struct Figures {
  double sync_seconds = 0;
  double store_mib = 0;       // RSS added by listing into the store
  double watch_seconds = 0;   // until the informer saw every patch
  std::size_t stored = 0;
};

// The measuring process: list+watch into one kind of store.
template <class T>
Figures measure(const kube::RestConfig& config, std::size_t updates, const std::string& mode,
                runtime::InformerFilter<T> filter = {}) {
  kube::Client client(config);
  runtime::Informer<T> informer(client, {kube::core::pods(), "", "", ""}, {}, std::move(filter));
  std::atomic<std::size_t> updated{0};
  runtime::EventHandler<T> h;
  h.on_update = [&](const auto&, const auto&) { ++updated; };
  informer.add_handler(h);
  double base = current_rss_mib();
  auto start = Clock::now();
  std::jthread runner([&](std::stop_token stop) { informer.run(stop); });
  while (!informer.has_synced()) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  Figures f;
  f.sync_seconds = seconds_since(start);
  f.store_mib = current_rss_mib() - base;
  // Watch: label patches on the first `updates` pods (any order is fine).
  auto pods = informer.store().list();
  auto watch_start = Clock::now();
  for (std::size_t i = 0; i < updates && i < pods.size(); ++i) {
    const T& p = *pods[i];
    std::string ns = runtime::Codec<T>::key(p).substr(0, runtime::Codec<T>::key(p).find('/'));
    std::string name = runtime::Codec<T>::key(p).substr(ns.size() + 1);
    client.patch({kube::core::pods(), ns, name, ""}, kube::PatchType::MergePatch,
                 R"({"metadata":{"labels":{"bench":")" + mode + R"("}}})");  // per mode: a repeated patch is a no-op
  }
  auto deadline = Clock::now() + std::chrono::minutes(5);
  while (updated.load() < std::min(updates, pods.size()) && Clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  f.watch_seconds = seconds_since(watch_start);
  f.stored = informer.store().size();
  return f;
}

struct Run {
  Figures figures;
  double peak_rss_mib = 0;
};

// The token reaches the child through GPUPOOL_BENCH_TOKEN, never argv.
Run run_measurement(const std::string& mode, const std::string& server, const std::string& ca_file, std::size_t updates) {
  int fds[2];
  if (::pipe(fds) != 0) throw std::runtime_error("pipe failed");
  std::fflush(stdout);
  pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid == 0) {
    ::dup2(fds[1], 3);
    std::string updates_s = std::to_string(updates);
    ::execl("/proc/self/exe", "gpupool-informer-bench", "--measure", mode.c_str(), "--server", server.c_str(), "--ca",
            ca_file.c_str(), "--token-env", "GPUPOOL_BENCH_TOKEN", "--updates", updates_s.c_str(), nullptr);
    ::_exit(127);
  }
  ::close(fds[1]);
  Run r;
  bool got = ::read(fds[0], &r.figures, sizeof r.figures) == static_cast<ssize_t>(sizeof r.figures);
  ::close(fds[0]);
  int status = 0;
  rusage ru{};
  if (::wait4(pid, &status, 0, &ru) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0 || !got) {
    throw std::runtime_error("the " + mode + " measurement failed");
  }
  r.peak_rss_mib = static_cast<double>(ru.ru_maxrss) / 1024.0;
  return r;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Informer benchmark: projected pod store against full objects, against a real control plane"};
  std::size_t pods = 150000, updates = 1000;
  int writers = 8;
  std::string measure_mode, server, ca_file, token_env;
  app.add_option("--pods", pods, "Pods to create")->capture_default_str();
  app.add_option("--writers", writers, "Threads creating pods")->capture_default_str();
  app.add_option("--updates", updates, "Label patches watched after the sync")->capture_default_str();
  app.add_option("--measure", measure_mode)->group("");  // internal: the measuring process
  app.add_option("--server", server)->group("");
  app.add_option("--ca", ca_file)->group("");
  app.add_option("--token-env", token_env)->group("");
  CLI11_PARSE(app, argc, argv);
  log::init(log::Format::Text, "warn");

  try {
    if (!measure_mode.empty()) {
      const char* token = std::getenv(token_env.c_str());
      auto config = config_for(server, ca_file, token ? token : "");
      runtime::InformerFilter<kube::Object> lean{"lean", {}, [](std::string_view json) {
                                                   return kube::decode_object(json, kube::DecodeTrim{true, "", {}, {}, {}, {}});
                                                 }};
      Figures f = measure_mode == "projection" ? measure<kube::PodProjection>(config, updates, measure_mode)
                  : measure_mode == "lean"     ? measure<kube::Object>(config, updates, measure_mode, lean)
                                               : measure<kube::Object>(config, updates, measure_mode);
      return ::write(3, &f, sizeof f) == static_cast<ssize_t>(sizeof f) ? 0 : 2;
    }

    testenv::Options opts;
    opts.controller_manager = false;  // nothing should act on the pods
    opts.scheduler = false;
    opts.kwok = false;
    auto cluster = testenv::ControlPlane::start(opts);
    ::setenv("GPUPOOL_BENCH_TOKEN", cluster->admin_token().c_str(), 1);  // not on the command line
    kube::Client client(config_for(cluster->server(), cluster->ca_file(), cluster->admin_token()));
    create_pods(client, pods, writers);

    Run projected = run_measurement("projection", cluster->server(), cluster->ca_file(), updates);
    Run full = run_measurement("full", cluster->server(), cluster->ca_file(), updates);
    Run lean = run_measurement("lean", cluster->server(), cluster->ca_file(), updates);

    std::printf("\n%-24s %10s %12s %14s %16s %12s\n", "store", "synced s", "store MiB", "bytes/pod", "peak RSS MiB",
                "watch s");
    for (auto [name, r] : {std::pair{"projection (PodProjection)", &projected}, std::pair{"full object (Object)", &full},
                           std::pair{"object w/o managedFields", &lean}}) {
      std::printf("%-24s %10.2f %12.1f %14.0f %16.1f %12.2f\n", name, r->figures.sync_seconds, r->figures.store_mib,
                  r->figures.store_mib * 1024 * 1024 / static_cast<double>(pods), r->peak_rss_mib,
                  r->figures.watch_seconds);
    }
    std::printf("\nprojection vs full: %.2fx the sync speed, %.1fx less store memory, %.1fx less peak RSS (%zu pods)\n",
                full.figures.sync_seconds / projected.figures.sync_seconds,
                full.figures.store_mib / std::max(projected.figures.store_mib, 0.01),
                full.peak_rss_mib / projected.peak_rss_mib, pods);
    std::printf("without managedFields vs full: %.1fx less store memory, %.1fx less peak RSS\n",
                full.figures.store_mib / std::max(lean.figures.store_mib, 0.01), full.peak_rss_mib / lean.peak_rss_mib);
    if (projected.figures.stored != pods || full.figures.stored != pods || lean.figures.stored != pods) {
      std::fprintf(stderr, "a store holds %zu / %zu / %zu pods, expected %zu\n", projected.figures.stored,
                   full.figures.stored, lean.figures.stored, pods);
      return 1;
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gpupool-informer-bench: %s\n", e.what());
    return 1;
  }
  return 0;
}
