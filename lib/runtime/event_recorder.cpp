#include "gpupool/runtime/event_recorder.h"

#include <spdlog/spdlog.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <optional>
#include <stdexcept>

#include "gpupool/kube/micro_time.h"

namespace gpupool::runtime {

namespace {

using SysClock = std::chrono::system_clock;

constexpr std::size_t kReasonLimit = 128;
constexpr std::size_t kActionLimit = 128;
constexpr std::size_t kNoteLimit = 1024;
constexpr std::size_t kInstanceLimit = 128;
constexpr std::size_t kNameLimit = 253;

kube::GroupVersionResource events_v1() { return {"events.k8s.io", "v1", "events"}; }

// Cuts to at most `limit` bytes without splitting a UTF-8 sequence.
std::string cut(std::string_view s, std::size_t limit) {
  if (s.size() <= limit) return std::string(s);
  std::size_t n = limit;
  while (n > 0 && (static_cast<unsigned char>(s[n]) & 0xC0) == 0x80) --n;
  return std::string(s.substr(0, n));
}

std::string hostname() {
  char host[256] = {};
  if (gethostname(host, sizeof host - 1) != 0 || host[0] == '\0') return "unknown";
  return host;
}

// A DNS-subdomain-safe prefix from an object name.
std::string name_prefix(const std::string& name) {
  std::string out;
  for (char c : name) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    const bool ok = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '.';
    out.push_back(ok ? c : '-');
  }
  while (!out.empty() && !((out.front() >= 'a' && out.front() <= 'z') || (out.front() >= '0' && out.front() <= '9'))) {
    out.erase(out.begin());
  }
  if (out.empty()) out = "event";
  const std::size_t max_prefix = kNameLimit - 1 - 16;  // ".<16 hex digits>"
  if (out.size() > max_prefix) out.resize(max_prefix);
  return out;
}

void add_string(rapidjson::Value& obj, const char* key, const std::string& value, rapidjson::Document::AllocatorType& a) {
  obj.AddMember(rapidjson::StringRef(key), rapidjson::Value(value.c_str(), static_cast<rapidjson::SizeType>(value.size()), a), a);
}

rapidjson::Value series_value(int64_t count, SysClock::time_point last, rapidjson::Document::AllocatorType& a) {
  rapidjson::Value series(rapidjson::kObjectType);
  series.AddMember("count", count, a);
  add_string(series, "lastObservedTime", kube::format_micro_time(last), a);
  return series;
}

bool retryable(const std::exception& e) {
  if (dynamic_cast<const kube::TransportError*>(&e) != nullptr) return true;
  if (const auto* api = dynamic_cast<const kube::ApiError*>(&e)) return api->is_server_error() || api->is_too_many_requests();
  return false;
}

}  // namespace

ObjectReference reference_to(const rapidjson::Value& object) {
  ObjectReference r;
  r.api_version = kube::string_at(object, {"apiVersion"});
  r.kind = kube::string_at(object, {"kind"});
  r.ns = kube::string_at(object, {"metadata", "namespace"});
  r.name = kube::string_at(object, {"metadata", "name"});
  r.uid = kube::string_at(object, {"metadata", "uid"});
  r.resource_version = kube::string_at(object, {"metadata", "resourceVersion"});
  return r;
}

EventRecorder::EventRecorder(kube::Client& client, EventRecorderOptions options) : client_(client), options_(std::move(options)) {
  if (options_.reporting_controller.empty()) throw std::invalid_argument("event recorder: reporting_controller must be set");
  if (options_.reporting_instance.empty()) options_.reporting_instance = options_.reporting_controller + "-" + hostname();
  options_.reporting_instance = cut(options_.reporting_instance, kInstanceLimit);
  if (options_.max_attempts < 1) options_.max_attempts = 1;
  if (options_.writes_in_flight < 1) options_.writes_in_flight = 1;
  writers_.reserve(options_.writes_in_flight);
  for (std::size_t i = 0; i < options_.writes_in_flight; ++i) writers_.emplace_back([this] { writer(); });
}

EventRecorder::~EventRecorder() { stop(); }

void EventRecorder::record(const ObjectReference& regarding, EventType type, std::string_view reason,
                           std::string_view action, std::string_view note) noexcept {
  try {
    Pending p{0, regarding, type, cut(reason, kReasonLimit), cut(action.empty() ? reason : action, kActionLimit),
              cut(note, kNoteLimit), SysClock::now()};
    uint64_t dropped = 0;
    bool queued = false;
    bool replaced = false;
    std::optional<Pending> lost;  // what was dropped, for the log
    {
      std::lock_guard lock(mu_);
      if (!stopping_ && queue_.size() >= options_.queue_capacity && p.type == EventType::Warning) {
        // A Warning before a Normal: the oldest Normal queued makes room.
        auto normal = std::find_if(queue_.begin(), queue_.end(), [](const Pending& q) { return q.type == EventType::Normal; });
        if (normal != queue_.end()) {
          lost = std::move(*normal);
          queue_.erase(normal);
          dropped = ++stats_.dropped;
          replaced = true;
        }
      }
      if (stopping_ || queue_.size() >= options_.queue_capacity) {
        lost = std::move(p);
        dropped = ++stats_.dropped;
      } else {
        p.seq = next_seq_++;
        queue_.push_back(std::move(p));
        ++stats_.recorded;
        queued = true;
      }
    }
    if (queued) cv_.notify_one();
    if (replaced) done_cv_.notify_all();  // a flush may have waited for the one dropped
    if (lost && dropped % 100 == 1) {
      spdlog::warn("event recorder: dropped event {} on {}/{} {} ({} dropped so far): queue full or stopped", lost->reason,
                   lost->regarding.ns, lost->regarding.name, lost->regarding.kind, dropped);
    }
  } catch (...) {
    // Recording an event must never fail the caller.
  }
}

bool EventRecorder::flush(std::chrono::milliseconds timeout) {
  std::unique_lock lock(mu_);
  const uint64_t target = next_seq_ - 1;
  return done_cv_.wait_for(lock, timeout, [&] {
    return (queue_.empty() || queue_.front().seq > target) && (unsettled_.empty() || *unsettled_.begin() > target);
  });
}

void EventRecorder::stop(std::chrono::milliseconds grace) {
  {
    std::lock_guard lock(mu_);
    if (!stopping_) give_up_at_ = std::chrono::steady_clock::now() + grace;
    stopping_ = true;
  }
  cv_.notify_all();
  retry_cv_.notify_all();
  for (auto& w : writers_) {
    if (w.joinable()) w.join();
  }
}

EventRecorderStats EventRecorder::stats() const {
  std::lock_guard lock(mu_);
  return stats_;
}

void EventRecorder::writer() {
  std::unique_lock lock(mu_);
  for (;;) {
    // Only a writer with nothing to take moves the queue into series: the
    // backlog of a busy server stays on the bounded queue.
    if (ready_.empty() && !queue_.empty()) merge_queue();
    if (!ready_.empty()) {
      const Take t = take_ready();
      lock.unlock();
      write(t);
      lock.lock();
      finish(t);
      continue;
    }
    if (stopping_) break;
    expire_old(SysClock::now());
    cv_.wait_for(lock, std::chrono::minutes(1), [&] { return stopping_ || !queue_.empty() || !ready_.empty(); });
  }
}

void EventRecorder::merge_queue() {
  for (auto& p : queue_) {
    const uint64_t seq = p.seq;
    Key key{p.regarding.api_version, p.regarding.kind, p.regarding.ns, p.regarding.name, p.regarding.uid,
            static_cast<int>(p.type), p.reason, p.action, p.note};
    auto it = series_.find(key);
    Series* s = nullptr;
    if (it != series_.end() && p.at - it->second->last_observed < options_.series_window) {
      s = it->second.get();
      ++s->count;
      s->last_observed = p.at;
    } else {
      // A new Event; an ended series' Event stays as it is.
      auto fresh = std::make_unique<Series>();
      fresh->ns = p.regarding.ns.empty() ? "default" : p.regarding.ns;
      fresh->count = 1;
      fresh->last_observed = p.at;
      fresh->first = std::move(p);
      if (it == series_.end()) {
        it = series_.emplace(std::move(key), std::move(fresh)).first;
      } else {
        if (it->second->ready || it->second->busy) {
          it->second->retired = true;  // still to be written: kept until then
          retired_.push_back(std::move(it->second));
        }
        it->second = std::move(fresh);
      }
      s = it->second.get();
    }
    if (s->unwritten_seq == 0) {
      s->unwritten_seq = seq;
      unsettled_.insert(seq);
    }
    if (!s->ready && !s->busy) {
      s->ready = true;
      ready_.push_back(s);
    }
  }
  queue_.clear();
  if (ready_.size() > 1) cv_.notify_all();  // more for the idle writers
}

EventRecorder::Take EventRecorder::take_ready() {
  Series* s = ready_.front();
  ready_.pop_front();
  s->ready = false;
  s->busy = true;
  Take t{s, s->unwritten_seq, s->count, s->last_observed};
  s->unwritten_seq = 0;
  return t;
}

void EventRecorder::finish(const Take& t) {
  Series* s = t.series;
  s->busy = false;
  unsettled_.erase(unsettled_.find(t.seq));
  if (s->unwritten_seq != 0) {
    s->ready = true;  // repeats came while it was written
    ready_.push_back(s);
  } else if (s->retired) {
    std::erase_if(retired_, [s](const std::unique_ptr<Series>& r) { return r.get() == s; });
  }
  done_cv_.notify_all();
}

void EventRecorder::expire_old(SysClock::time_point now) {
  if (now - last_expiry_ < std::chrono::minutes(1)) return;
  last_expiry_ = now;
  std::erase_if(series_, [&](const auto& entry) {
    const Series& s = *entry.second;
    return !s.ready && !s.busy && s.unwritten_seq == 0 && now - s.last_observed >= options_.series_window;
  });
}

void EventRecorder::write(const Take& t) {
  Series& s = *t.series;
  auto backoff = options_.retry_backoff;
  for (int attempt = 1;; ++attempt) {
    {
      std::lock_guard lock(mu_);
      if (stopping_ && std::chrono::steady_clock::now() >= give_up_at_) {
        ++stats_.failed;  // shutting down and out of time
        return;
      }
    }
    try {
      if (write_once(s, t.count, t.last_observed)) return;
    } catch (const std::exception& e) {
      const bool again = retryable(e) && attempt < options_.max_attempts;
      if (!again) {
        spdlog::warn("event recorder: giving up on event {} for {} {}/{}: {}", s.first.reason, s.first.regarding.kind,
                     s.ns, s.first.regarding.name, e.what());
        std::lock_guard lock(mu_);
        ++stats_.failed;
        return;
      }
      std::unique_lock lock(mu_);
      retry_cv_.wait_for(lock, backoff, [&] { return stopping_; });
      backoff *= 2;
    }
  }
}

// One attempt to bring the server up to `count`. Throws what the client threw.
bool EventRecorder::write_once(Series& s, int64_t count, SysClock::time_point last_observed) {
  const Pending& p = s.first;
  if (s.written > 0) {
    rapidjson::Document patch(rapidjson::kObjectType);
    patch.AddMember("series", series_value(count, last_observed, patch.GetAllocator()), patch.GetAllocator());
    try {
      client_.patch({events_v1(), s.ns, s.name, ""}, kube::PatchType::MergePatch, kube::to_json(patch));
      s.written = count;
      std::lock_guard lock(mu_);
      ++stats_.patched;
      return true;
    } catch (const kube::ApiError& e) {
      if (!e.is_not_found()) throw;
      s.written = 0;  // expired or deleted: create it again, series included
    }
  }

  for (int renames = 0;; ++renames) {
    if (s.name.empty() || renames > 0) {
      // client-go's GenerateEventName: "<name>.<UnixNano in hex>", kept unique here.
      auto nanos = static_cast<uint64_t>(
          std::chrono::duration_cast<std::chrono::nanoseconds>(SysClock::now().time_since_epoch()).count());
      char hex[20];
      std::snprintf(hex, sizeof hex, "%llx", static_cast<unsigned long long>(nanos));
      s.name = name_prefix(p.regarding.name) + "." + hex;
    }
    rapidjson::Document ev(rapidjson::kObjectType);
    auto& a = ev.GetAllocator();
    ev.AddMember("apiVersion", "events.k8s.io/v1", a);
    ev.AddMember("kind", "Event", a);
    rapidjson::Value meta(rapidjson::kObjectType);
    add_string(meta, "name", s.name, a);
    add_string(meta, "namespace", s.ns, a);
    ev.AddMember("metadata", meta, a);
    add_string(ev, "eventTime", kube::format_micro_time(p.at), a);
    if (count >= 2) ev.AddMember("series", series_value(count, last_observed, a), a);
    add_string(ev, "reportingController", options_.reporting_controller, a);
    add_string(ev, "reportingInstance", options_.reporting_instance, a);
    add_string(ev, "action", p.action, a);
    add_string(ev, "reason", p.reason, a);
    rapidjson::Value regarding(rapidjson::kObjectType);
    const std::pair<const char*, const std::string*> fields[] = {
        {"apiVersion", &p.regarding.api_version}, {"kind", &p.regarding.kind},
        {"namespace", &p.regarding.ns},           {"name", &p.regarding.name},
        {"uid", &p.regarding.uid},                {"resourceVersion", &p.regarding.resource_version}};
    for (const auto& [key, value] : fields) {
      if (!value->empty()) add_string(regarding, key, *value, a);
    }
    ev.AddMember("regarding", regarding, a);
    add_string(ev, "note", p.note, a);
    ev.AddMember("type", rapidjson::StringRef(p.type == EventType::Warning ? "Warning" : "Normal"), a);
    try {
      client_.create({events_v1(), s.ns, "", ""}, kube::to_json(ev));
    } catch (const kube::ApiError& e) {
      if (e.is_already_exists() && renames == 0) continue;  // name taken: make another
      throw;
    }
    s.written = count;
    std::lock_guard lock(mu_);
    ++stats_.created;
    return true;
  }
}

}  // namespace gpupool::runtime
