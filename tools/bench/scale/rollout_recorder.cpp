#include "rollout_recorder.h"

#include <charconv>

#include "cluster_shape.h"
#include "gpupool/kube/json_access.h"

namespace gpupool::bench {
namespace {

enum Stream { kGpuNodeStream = 0, kNodeStream = 1, kPoolStream = 2 };

std::uint64_t revision(const rapidjson::Value& obj) {
  const std::string rv = kube::string_of(kube::value_at(obj, {"metadata", "resourceVersion"}));
  std::uint64_t n = 0;
  std::from_chars(rv.data(), rv.data() + rv.size(), n);
  return n;
}

bool flag(const rapidjson::Value& obj, const char* field) {
  const rapidjson::Value* v = kube::value_at(obj, {"spec", field});
  return v != nullptr && v->IsBool() && v->GetBool();
}

}  // namespace

RolloutRecorder::RolloutRecorder(kube::Client& client, std::map<std::string, std::string> targets)
    : client_(client), targets_(std::move(targets)) {
  const kube::ResourceRef gpunodes{{"gpupool.io", "v1alpha1", "gpunodes"}, "", "", ""};
  const kube::ResourceRef nodes{kube::core::nodes(), "", "", ""};
  const kube::ResourceRef pools{{"gpupool.io", "v1alpha1", "gpupools"}, "", "", ""};
  threads_.emplace_back([this, gpunodes](std::stop_token stop) { watch(gpunodes, "", kGpuNodeStream, stop); });
  threads_.emplace_back([this, nodes](std::stop_token stop) { watch(nodes, kBenchPoolLabel, kNodeStream, stop); });
  threads_.emplace_back([this, pools](std::stop_token stop) { watch(pools, "", kPoolStream, stop); });
}

RolloutRecorder::~RolloutRecorder() {
  for (auto& t : threads_) t.request_stop();
  for (auto& t : threads_) {
    if (t.joinable()) t.join();
  }
}

void RolloutRecorder::watch(const kube::ResourceRef& ref, const std::string& selector, int stream, std::stop_token stop) {
  while (!stop.stop_requested()) {
    kube::ListOptions lo;
    lo.resource_version = "0";
    lo.label_selector = selector;
    {
      std::lock_guard lock(mu_);
      ++watches_started_[stream];
    }
    try {
      client_.watch(ref, lo, [&](const kube::WatchEvent& e) {
        if (e.type == kube::WatchEventType::Bookmark || e.type == kube::WatchEventType::Error) return true;
        const auto obj = kube::parse_json(e.object);
        on_object(stream, e.type == kube::WatchEventType::Deleted, obj);
        return true;
      }, stop);
    } catch (const std::exception& e) {
      std::lock_guard lock(mu_);
      last_failure_[stream] = e.what();  // started over from the current state (the loop)
    }
  }
}

void RolloutRecorder::on_object(int stream, bool deleted, const rapidjson::Document& obj) {
  const std::string name = kube::string_of(kube::value_at(obj, {"metadata", "name"}));
  std::lock_guard lock(mu_);
  ++seen_[stream];
  if (stream == kPoolStream) {
    auto target = targets_.find(name);
    if (target != targets_.end() && !completed_.count(name)) {
      if (!deleted && rollout_complete(obj, target->second)) {
        completed_[name] = Clock::now();
      } else {
        last_message_[name] = kube::string_of(kube::value_at(obj, {"status", "rollout", "message"}));
      }
    }
  } else {
    DisruptionEvent e;
    e.resource_version = revision(obj);
    e.kind = stream == kGpuNodeStream ? DisruptionEvent::Kind::granted : DisruptionEvent::Kind::cordoned;
    e.node = name;
    e.on = !deleted && flag(obj, stream == kGpuNodeStream ? "disruptionAllowed" : "unschedulable");
    e.seen_s = std::chrono::duration<double>(Clock::now() - start_).count();
    if (stream == kNodeStream) {
      const bool ready = !deleted && node_ready(obj);
      auto [was, first] = node_ready_.emplace(name, ready);
      if (!first && was->second && !ready) ++not_ready_flips_;
      was->second = ready;
    }
    if (stream == kGpuNodeStream) {
      DisruptionEvent r = e;
      r.kind = DisruptionEvent::Kind::reported;
      r.on = !deleted && reports_up_to_date(obj);
      events_.push_back(std::move(r));
    }
    events_.push_back(std::move(e));
  }
  cv_.notify_all();
}

bool RolloutRecorder::wait_primed(std::size_t gpunodes, std::size_t nodes, std::size_t pools, Clock::time_point deadline) {
  std::unique_lock lock(mu_);
  return cv_.wait_until(lock, deadline, [&] {
    return seen_[kGpuNodeStream] >= gpunodes && seen_[kNodeStream] >= nodes && seen_[kPoolStream] >= pools;
  });
}

std::string RolloutRecorder::progress() const {
  std::lock_guard lock(mu_);
  const char* names[3] = {"GPUNodes", "Nodes", "GPUPools"};
  std::string out;
  for (int i = 0; i < 3; ++i) {
    out += std::string(i ? "; " : "") + names[i] + ": " + std::to_string(seen_[i]) + " seen over " +
           std::to_string(watches_started_[i]) + " watches" +
           (last_failure_[i].empty() ? "" : " (last ended by: " + last_failure_[i] + ")");
  }
  return out;
}

bool RolloutRecorder::wait_complete(Clock::time_point deadline) {
  std::unique_lock lock(mu_);
  return cv_.wait_until(lock, deadline, [&] { return completed_.size() == targets_.size(); });
}

std::size_t RolloutRecorder::not_ready_flips() const {
  std::lock_guard lock(mu_);
  return not_ready_flips_;
}

std::vector<DisruptionEvent> RolloutRecorder::events() const {
  std::lock_guard lock(mu_);
  return events_;
}

std::map<std::string, RolloutRecorder::Clock::time_point> RolloutRecorder::completed() const {
  std::lock_guard lock(mu_);
  return completed_;
}

std::string RolloutRecorder::incomplete() const {
  std::lock_guard lock(mu_);
  std::string out;
  for (const auto& [pool, target] : targets_) {
    if (completed_.count(pool)) continue;
    auto m = last_message_.find(pool);
    out += (out.empty() ? "" : "; ") + pool + ": " + (m == last_message_.end() ? "no status seen" : m->second);
  }
  return out;
}

}  // namespace gpupool::bench
