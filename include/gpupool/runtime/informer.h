// Informer: keeps a Store of one kind in step with the API server (list, then
// watch; relist on 410 Gone) and tells handlers what changed.
//
// - The initial state comes as a streaming list by default (a watch with
//   sendInitialEvents=true, resourceVersionMatch=NotOlderThan: Kubernetes'
//   "watch-list", KEP-3157, on by default since 1.34): the API server sends
//   every object from its watch cache as an event, consistent with the time
//   of the request, then a bookmark marked k8s.io/initial-events-end, and the
//   same stream goes on as the watch. Nothing is paginated out of etcd and
//   the client holds one event at a time, not a page. A stream that fails
//   before its end is followed by a paginated list at once, as client-go
//   does; a server that refuses it (a 4xx such as 422: the WatchList feature
//   gate off, as on 1.33) gets the paginated list for the rest of the
//   informer's life (as InitialList::paginated always does).
// - The store holds a T per object: the whole Object, or a projection such as
//   PodProjection decoded straight from the stream (Codec<T> says how).
// - After a relist, objects the server no longer has are delivered as deletes:
//   deletes missed while disconnected are not lost.
// - Watch connections that drop are resumed by Client::watch from the last
//   resourceVersion; other failures back off (jittered, capped) and relist.
// - Handlers run on the informer's thread (or the resync timer's), one at a
//   time and in event order; they should be quick (enqueue a key).
// - A filter (InformerFilter) keeps only the objects a process needs, where
//   no selector can say which: the others are never stored or delivered, and
//   an object that stops matching is delivered as a delete.
// - InformerFactory hands every caller asking for the same kind, selectors
//   and filter the same informer, so controllers in one process share it.
#pragma once

#include <spdlog/spdlog.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <random>
#include <stop_token>
#include <string>
#include <thread>
#include <typeinfo>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "gpupool/kube/backoff.h"
#include "gpupool/kube/client.h"
#include "gpupool/kube/json_projection.h"
#include "gpupool/kube/object.h"
#include "gpupool/runtime/store.h"

namespace gpupool::runtime {

// How a stored type is decoded and keyed.
template <class T>
struct Codec;

template <>
struct Codec<kube::Object> {
  static kube::Object decode(std::string_view json) { return kube::decode_object(json); }
  static std::string key(const kube::Object& o) { return kube::object_key(o.ns, o.name); }
  static const std::string& resource_version(const kube::Object& o) { return o.resource_version; }
};

template <>
struct Codec<kube::PodProjection> {
  static kube::PodProjection decode(std::string_view json) { return kube::project_pod(json); }
  static std::string key(const kube::PodProjection& p) { return kube::object_key(p.ns, p.name); }
  static const std::string& resource_version(const kube::PodProjection& p) { return p.resource_version; }
};

template <class T>
struct EventHandler {
  using Ptr = std::shared_ptr<const T>;
  std::function<void(const Ptr&)> on_add;
  std::function<void(const Ptr& old_obj, const Ptr& new_obj)> on_update;
  std::function<void(const Ptr&)> on_delete;  // the last state the informer knew
};

// How an informer gets the state it starts from (and after 410 Gone).
enum class InitialList {
  streaming,  // a watch-list, falling back to paginated where the server refuses it
  paginated,  // pages of page_size from a consistent list
};

struct InformerOptions {
  kube::ListOptions selectors;        // label and field selectors; other fields are ignored
  InitialList initial_list = InitialList::streaming;
  int64_t page_size = 500;      // list page size (paginated)
  std::chrono::milliseconds resync{0};  // >0: every object re-delivered as an update this often
};

// Which objects the store keeps, and how much of each; `name` tells filters
// apart (the factory shares an informer per name). No `keep`: every object.
// No `decode`: Codec<T>::decode; one that leaves fields out (such as
// kube::DecodeTrim) saves memory in every stored object.
template <class T>
struct InformerFilter {
  std::string name;
  std::function<bool(const T&)> keep;
  std::function<T(std::string_view json)> decode;
};

struct InformerStats {
  std::atomic<uint64_t> lists{0};            // initial states received, streamed or paginated
  std::atomic<uint64_t> streamed_lists{0};   // of which streamed
  std::atomic<uint64_t> adds{0};
  std::atomic<uint64_t> updates{0};
  std::atomic<uint64_t> deletes{0};
  std::atomic<uint64_t> deletes_found_by_relist{0};
  std::atomic<uint64_t> decode_failures{0};
  std::atomic<uint64_t> filtered_out{0};  // objects (list items, events) the filter did not keep
};

// What the factory needs of any informer.
class InformerBase {
 public:
  virtual ~InformerBase() = default;
  virtual void run(std::stop_token stop) = 0;
  virtual bool has_synced() const = 0;
  virtual std::string description() const = 0;
};

template <class T>
class Informer final : public InformerBase {
 public:
  using Ptr = std::shared_ptr<const T>;

  Informer(kube::Client& client, kube::ResourceRef collection, InformerOptions options = {},
           InformerFilter<T> filter = {})
      : client_(client), collection_(std::move(collection)), options_(std::move(options)), filter_(std::move(filter)) {}

  Store<T>& store() { return store_; }
  const InformerStats& stats() const { return stats_; }

  // A handler added once the store is filled first gets every current object as an add.
  void add_handler(EventHandler<T> handler) {
    std::lock_guard lock(dispatch_mu_);
    if (synced_) {
      for (const auto& obj : store_.list()) {
        if (handler.on_add) handler.on_add(obj);
      }
    }
    handlers_.push_back(std::move(handler));
  }

  bool has_synced() const override { return synced_.load(); }

  std::string description() const override { return kube::resource_path(collection_); }

  // Lists and watches until `stop` fires.
  void run(std::stop_token stop) override {
    std::jthread resync;
    if (options_.resync.count() > 0) {
      resync = std::jthread([this, stop](std::stop_token own) { resync_loop(stop, own); });
    }
    kube::Backoff backoff(std::chrono::milliseconds(200), std::chrono::seconds(30));
    std::mt19937 rng(std::random_device{}());
    while (!stop.stop_requested()) {
      try {
        std::string rv = initial_state(stop, rng);
        if (stop.stop_requested()) break;
        kube::ListOptions w = options_.selectors;
        w.resource_version = rv;
        w.allow_watch_bookmarks = true;
        // Like client-go: a random timeout spreads the reconnects of many clients.
        w.timeout_seconds = std::uniform_int_distribution<int>(300, 600)(rng);
        backoff.reset();
        kube::WatchResult r = client_.watch(collection_, w, [this](const kube::WatchEvent& ev) {
          apply(ev);
          return true;
        }, stop);
        if (r.end == kube::WatchEnd::Gone) {
          spdlog::info("informer {}: resourceVersion {} expired; relisting", description(), r.last_resource_version);
        }
      } catch (const std::exception& e) {
        if (stop.stop_requested()) break;
        auto wait = backoff.next();
        spdlog::warn("informer {}: {}; relisting in {} ms", description(), e.what(),
                     std::chrono::duration_cast<std::chrono::milliseconds>(wait).count());
        std::mutex mu;
        std::condition_variable_any cv;
        std::unique_lock lock(mu);
        cv.wait_for(lock, stop, wait, [] { return false; });
      }
    }
  }

 private:
  // The objects of a list (or of a streaming list's initial events) in the
  // server's order, so handlers see adds in list order. Only the objects:
  // their keys are computed again as they go into the store. A first list
  // at full size holds 75,000 pods here until it ends, and a key beside
  // each (twice, with an index by key) cost about 20 MB more at that
  // moment, left behind as free memory between the pods kept.
  struct Fresh {
    // An object, or (null) the key at `forgotten[i]` that a DELETED event
    // took out again (servers send none before the initial events end).
    std::vector<Ptr> objects;
    std::vector<std::pair<std::size_t, std::string>> forgotten;  // (position in objects, key)

    void clear() {
      objects = {};
      forgotten = {};
    }
  };

  void collect(Fresh& fresh, std::string_view item) {
    try {
      auto obj = std::make_shared<const T>(decode(item));
      if (!kept(*obj)) return;  // absent from `fresh`: a stored one is delivered as deleted
      fresh.objects.push_back(std::move(obj));
    } catch (const std::exception& e) {
      stats_.decode_failures++;  // one bad object must not stall the whole kind
      spdlog::warn("informer {}: skipping an object that cannot be decoded: {}", description(), e.what());
    }
  }

  void forget(Fresh& fresh, std::string_view item) {
    try {
      std::string key = Codec<T>::key(decode(item));
      fresh.forgotten.emplace_back(fresh.objects.size(), std::move(key));
      fresh.objects.push_back(nullptr);
    } catch (const std::exception&) {
      stats_.decode_failures++;
    }
  }

  // The keys `fresh` holds at its end (a forgotten key no more, unless listed again).
  static std::unordered_set<std::string> fresh_keys(const Fresh& fresh) {
    std::unordered_set<std::string> keys;
    keys.reserve(fresh.objects.size());
    auto forgotten = fresh.forgotten.begin();
    for (const Ptr& obj : fresh.objects) {
      if (obj) {
        keys.insert(Codec<T>::key(*obj));
      } else {
        keys.erase((forgotten++)->second);
      }
    }
    return keys;
  }

  // The state to watch from: streamed where the server can, else listed.
  // Returns the resourceVersion to resume the watch at.
  //
  // Like client-go's reflector, a streaming list that fails before its
  // initial events end is followed by a paginated list at once (progress
  // over waiting on a stream that may never work); a server that refuses it
  // (a 4xx such as 422: WatchList off, or no watch cache) is listed in pages
  // from then on. Once the state is in, a broken stream is resumed from the
  // last resourceVersion like any watch, and 410 Gone starts over.
  std::string initial_state(std::stop_token stop, std::mt19937& rng) {
    if (options_.initial_list == InitialList::streaming && !streaming_refused_) {
      StreamProgress progress;
      try {
        return stream_list(stop, rng, progress);
      } catch (const kube::ApiError& e) {
        if (progress.synced) {
          if (e.is_gone()) throw;
          return resume_after(progress, e.what());
        }
        if (e.code() >= 400 && e.code() < 500 && !e.is_gone() && !e.is_too_many_requests() && !e.is_unauthorized()) {
          streaming_refused_ = true;
          spdlog::info("informer {}: the API server does not stream lists ({}); listing in pages from now on",
                       description(), e.what());
        } else {
          spdlog::warn("informer {}: streaming list failed ({}); listing in pages this time", description(), e.what());
        }
      } catch (const std::exception& e) {
        if (progress.synced) return resume_after(progress, e.what());
        if (stop.stop_requested()) throw;
        spdlog::warn("informer {}: streaming list failed ({}); listing in pages this time", description(), e.what());
      }
      if (stop.stop_requested()) return "";
    }
    return relist();
  }

  struct StreamProgress {
    bool synced = false;   // the initial events ended: the store holds their state
    std::string last_rv;   // the bookmark's resourceVersion, then each later event's
  };

  std::string resume_after(const StreamProgress& progress, const char* why) {
    spdlog::info("informer {}: the stream broke after its initial events ({}); watching on from resourceVersion {}",
                 description(), why, progress.last_rv);
    return progress.last_rv;
  }

  // A watch-list: the initial events, then the bookmark that ends them (the
  // store takes the state then, as after a list), then the watch itself on
  // the same stream until the server closes it. Throws if the stream fails;
  // `progress` says whether the store had taken the state by then.
  std::string stream_list(std::stop_token stop, std::mt19937& rng, StreamProgress& progress) {
    kube::ListOptions w = options_.selectors;
    w.send_initial_events = true;
    w.resource_version_match = "NotOlderThan";  // with no resourceVersion: consistent with the request's time
    w.allow_watch_bookmarks = true;
    w.timeout_seconds = std::uniform_int_distribution<int>(300, 600)(rng);
    Fresh fresh;
    kube::WatchResult r = client_.watch_once(collection_, w, [&](const kube::WatchEvent& ev) {
      if (progress.synced) {
        if (!ev.resource_version.empty()) progress.last_rv = ev.resource_version;
        apply(ev);
      } else if (ev.type == kube::WatchEventType::Bookmark) {
        if (kube::is_initial_events_end(ev)) {
          stats_.streamed_lists++;
          replace_store(fresh);
          fresh.clear();
          progress.synced = true;
          progress.last_rv = ev.resource_version;
        }
      } else if (ev.type == kube::WatchEventType::Deleted) {
        forget(fresh, ev.object);  // the server sends only ADDED before the bookmark; just in case
      } else {
        collect(fresh, ev.object);
      }
      return true;
    }, stop);
    if (!progress.synced && r.end != kube::WatchEnd::Stopped) {
      throw std::runtime_error("the stream ended before its initial events did");
    }
    return progress.synced ? progress.last_rv : r.last_resource_version;
  }

  // Replaces the store's contents with a fresh list, delivering the difference.
  std::string relist() {
    Fresh fresh;
    kube::ListOptions o = options_.selectors;
    o.limit = options_.page_size;
    std::string rv = client_.list_items(collection_, o, [&](std::string_view item) { collect(fresh, item); },
                                        [&] { fresh.clear(); });
    replace_store(fresh);
    return rv;
  }

  // Makes the store hold exactly `fresh`, delivering the difference: first
  // the deletes of what the list no longer holds, then adds and updates in
  // list order. A key the list repeats is added, then updated; one it
  // forgot is added, then deleted (neither comes from a conforming server).
  void replace_store(Fresh& fresh) {
    stats_.lists++;
    std::lock_guard lock(dispatch_mu_);
    if (store_.size() > 0) {  // a relist; the first list finds nothing to delete
      const std::unordered_set<std::string> listed = fresh_keys(fresh);
      for (const auto& key : store_.keys()) {
        if (listed.count(key)) continue;
        if (auto old = store_.erase(key)) {
          stats_.deletes_found_by_relist++;
          deliver_delete(old);
        }
      }
    }
    auto forgotten = fresh.forgotten.begin();
    for (const Ptr& obj : fresh.objects) {
      if (!obj) {
        if (auto old = store_.erase((forgotten++)->second)) deliver_delete(old);
        continue;
      }
      std::string key = Codec<T>::key(*obj);
      Ptr old = store_.get(key);
      if (old && Codec<T>::resource_version(*old) == Codec<T>::resource_version(*obj)) continue;
      store_.upsert(key, obj);
      if (old) {
        deliver_update(old, obj);
      } else {
        deliver_add(obj);
      }
    }
    synced_ = true;
  }

  void apply(const kube::WatchEvent& ev) {
    if (ev.type == kube::WatchEventType::Bookmark) return;
    Ptr obj;
    try {
      obj = std::make_shared<const T>(decode(ev.object));
    } catch (const std::exception& e) {
      stats_.decode_failures++;
      spdlog::warn("informer {}: skipping a {} event that cannot be decoded: {}", description(), to_string(ev.type), e.what());
      return;
    }
    std::string key = Codec<T>::key(*obj);
    std::lock_guard lock(dispatch_mu_);
    if (ev.type == kube::WatchEventType::Deleted) {
      if (auto old = store_.erase(key)) deliver_delete(obj);
      return;
    }
    if (!kept(*obj)) {
      // Not needed (any more): gone from the store, as its last kept state.
      if (auto old = store_.erase(key)) deliver_delete(old);
      return;
    }
    if (auto old = store_.upsert(key, obj)) {
      deliver_update(old, obj);
    } else {
      deliver_add(obj);
    }
  }

  void resync_loop(std::stop_token stop, std::stop_token own) {
    std::mutex mu;
    std::condition_variable_any cv;
    for (;;) {
      std::unique_lock lock(mu);
      if (cv.wait_for(lock, own, options_.resync, [&] { return stop.stop_requested(); }) || own.stop_requested()) return;
      lock.unlock();
      std::lock_guard dispatch(dispatch_mu_);
      for (const auto& obj : store_.list()) deliver_update(obj, obj);
    }
  }

  T decode(std::string_view json) const { return filter_.decode ? filter_.decode(json) : Codec<T>::decode(json); }

  bool kept(const T& obj) {
    if (!filter_.keep || filter_.keep(obj)) return true;
    stats_.filtered_out++;
    return false;
  }

  // Called with dispatch_mu_ held.
  void deliver_add(const Ptr& obj) {
    stats_.adds++;
    for (auto& h : handlers_) {
      if (h.on_add) h.on_add(obj);
    }
  }
  void deliver_update(const Ptr& old_obj, const Ptr& new_obj) {
    stats_.updates++;
    for (auto& h : handlers_) {
      if (h.on_update) h.on_update(old_obj, new_obj);
    }
  }
  void deliver_delete(const Ptr& obj) {
    stats_.deletes++;
    for (auto& h : handlers_) {
      if (h.on_delete) h.on_delete(obj);
    }
  }

  kube::Client& client_;
  kube::ResourceRef collection_;
  InformerOptions options_;
  InformerFilter<T> filter_;
  Store<T> store_;
  InformerStats stats_;
  std::mutex dispatch_mu_;
  std::vector<EventHandler<T>> handlers_;
  std::atomic<bool> synced_{false};
  bool streaming_refused_ = false;  // the server answered a streaming list with 422: list in pages
};

// One informer per (stored type, collection, selectors), started together.
class InformerFactory {
 public:
  explicit InformerFactory(kube::Client& client) : client_(client) {}
  ~InformerFactory() { stop(); }
  InformerFactory(const InformerFactory&) = delete;
  InformerFactory& operator=(const InformerFactory&) = delete;

  template <class T>
  std::shared_ptr<Informer<T>> get(const kube::ResourceRef& collection, const InformerOptions& options = {},
                                   const InformerFilter<T>& filter = {}) {
    std::string id = std::string(typeid(T).name()) + " " + kube::resource_path(collection) + "?l=" +
                     options.selectors.label_selector + "&f=" + options.selectors.field_selector + "&keep=" + filter.name;
    std::lock_guard lock(mu_);
    if (auto it = informers_.find(id); it != informers_.end()) {
      return std::static_pointer_cast<Informer<T>>(it->second.informer);
    }
    auto informer = std::make_shared<Informer<T>>(client_, collection, options, filter);
    informers_[id].informer = informer;
    return informer;
  }

  // Runs every informer not yet running, each on its own thread, until stop().
  void start() {
    std::lock_guard lock(mu_);
    for (auto& [id, entry] : informers_) {
      if (entry.thread.joinable()) continue;
      auto informer = entry.informer;
      entry.thread = std::jthread([informer](std::stop_token stop) { informer->run(stop); });
    }
  }

  // True once every informer has listed; false on timeout or stop.
  bool wait_for_sync(std::chrono::milliseconds timeout, std::stop_token stop = {}) {
    auto deadline = std::chrono::steady_clock::now() + timeout;
    auto pause = std::chrono::milliseconds(10);
    while (!stop.stop_requested()) {
      bool all = true;
      {
        std::lock_guard lock(mu_);
        for (auto& [id, entry] : informers_) all = all && entry.informer->has_synced();
      }
      if (all) return true;
      if (std::chrono::steady_clock::now() >= deadline) return false;
      std::this_thread::sleep_for(pause);  // polling interval
      pause = std::min(pause * 2, std::chrono::milliseconds(200));
    }
    return false;
  }

  // How many informers run on their threads now.
  std::size_t running() const {
    std::lock_guard lock(mu_);
    std::size_t n = 0;
    for (const auto& [id, entry] : informers_) n += entry.thread.joinable() ? 1 : 0;
    return n;
  }

  // Stops every informer and waits for its thread: no handler runs after.
  void stop() {
    std::lock_guard lock(mu_);
    for (auto& [id, entry] : informers_) entry.thread.request_stop();
    for (auto& [id, entry] : informers_) {
      if (entry.thread.joinable()) entry.thread.join();
    }
  }

 private:
  struct Entry {
    std::shared_ptr<InformerBase> informer;
    std::jthread thread;
  };
  kube::Client& client_;
  mutable std::mutex mu_;
  std::map<std::string, Entry> informers_;
};

}  // namespace gpupool::runtime
