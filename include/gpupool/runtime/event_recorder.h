// Kubernetes Events (events.k8s.io/v1) about objects, recorded without ever
// blocking or failing the caller.
//
// record() puts the event on a bounded queue and returns; writes_in_flight
// writer threads each take the next Event to write as soon as they are free
// (each Event's writes stay in order: one Event is never written by two at
// once; a slow or retried write holds up only its own writer). An idle writer
// with nothing ready moves what is queued into the Events to write, so under
// a busy API server the backlog stays on the queue, which is bounded: at most
// queue_capacity occurrences wait there, and at most as many Events are ready
// to write besides. When the queue is full the event is dropped and a warning
// logged (every 100th drop after the first), except that a Warning takes the
// place of the oldest Normal event queued (that one is dropped): under an
// API server too busy for them all, what went wrong still gets through.
// record() never throws.
//
// Aggregation, like client-go's events/v1 EventBroadcaster: an event with the
// same (regarding object, type, reason, action, note) as one recorded less
// than 6 minutes before (counted from the last occurrence) is not a new Event
// object. The first occurrence creates an Event without a series; repeats set
// series {count, lastObservedTime} on that Event with a PATCH. Unlike
// client-go, which writes counts beyond 2 only every 30 minutes, the count on
// the server is brought up to date after each batch of repeats: ten quick
// repeats make one Event whose series.count reaches 10 (repeats that queue up
// together cost one PATCH). The regarding object's resourceVersion is not
// part of the identity, so repeats across changes of the object aggregate
// (the Event keeps the resourceVersion of the first occurrence).
//
// Events go to the regarding object's namespace, or to "default" for
// cluster-scoped objects. Names are "<object name>.<hex nanoseconds>", as
// client-go makes them. reason and action are cut to 128 bytes and note to
// 1024 bytes (the API's limits); an empty action becomes the reason.
//
// Failed writes (connection errors, 429, 5xx) are tried up to 3 times with
// backoff; the API rejecting an event (4xx) drops it with a warning. A PATCH
// answered 404 (the Event expired or was deleted) creates it again.
#pragma once

#include <rapidjson/document.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <string_view>
#include <thread>
#include <tuple>
#include <vector>

#include "gpupool/kube/client.h"

namespace gpupool::runtime {

// The object an event is about (events.k8s.io/v1 Event.regarding).
struct ObjectReference {
  std::string api_version;  // "v1", "gpupool.io/v1alpha1"
  std::string kind;
  std::string ns;  // empty for cluster-scoped objects
  std::string name;
  std::string uid;
  std::string resource_version;
};

// The reference to an object as the API server returned it (apiVersion,
// kind, metadata.namespace/name/uid/resourceVersion). Missing fields are empty.
ObjectReference reference_to(const rapidjson::Value& object);

enum class EventType { Normal, Warning };

struct EventRecorderOptions {
  // reportingController: a qualified name, e.g. "gpupool.io/controller". Required.
  std::string reporting_controller;
  // reportingInstance (at most 128 bytes). Empty: reporting_controller + "-" + hostname.
  std::string reporting_instance;
  std::size_t queue_capacity = 1000;
  // Writer threads, each writing its own Event: one at a time, a rollout's
  // Events (three per node) outran a busy API server and were dropped.
  std::size_t writes_in_flight = 8;
  std::chrono::milliseconds series_window{std::chrono::minutes(6)};
  int max_attempts = 3;
  std::chrono::milliseconds retry_backoff{std::chrono::milliseconds(500)};  // doubles per attempt
};

struct EventRecorderStats {
  uint64_t recorded = 0;  // accepted by record()
  uint64_t dropped = 0;   // queue full, or after stop()
  uint64_t created = 0;   // Event objects created
  uint64_t patched = 0;   // series updates written
  uint64_t failed = 0;    // writes given up
};

class EventRecorder {
 public:
  // Starts the writer threads. `client` must outlive the recorder. Throws
  // std::invalid_argument without a reporting_controller.
  EventRecorder(kube::Client& client, EventRecorderOptions options);
  ~EventRecorder();  // stop()
  EventRecorder(const EventRecorder&) = delete;
  EventRecorder& operator=(const EventRecorder&) = delete;

  // Queues an event; never blocks on the API server, never throws.
  void record(const ObjectReference& regarding, EventType type, std::string_view reason, std::string_view action,
              std::string_view note) noexcept;

  // Waits until everything recorded before this call has been written (or
  // given up). False when `timeout` passed first.
  bool flush(std::chrono::milliseconds timeout);

  // Writes what is queued (without waiting between retries) for up to
  // `grace`, gives up on the rest, and ends the background thread; later
  // record() calls are dropped. Idempotent. A request in flight when the
  // grace ends is waited for (it is bounded by the client's timeout). Ends
  // the writer threads.
  void stop(std::chrono::milliseconds grace = std::chrono::seconds(5));

  EventRecorderStats stats() const;

 private:
  struct Pending {
    uint64_t seq;
    ObjectReference regarding;
    EventType type;
    std::string reason, action, note;
    std::chrono::system_clock::time_point at;
  };
  // (apiVersion, kind, namespace, name, uid, type, reason, action, note)
  using Key = std::tuple<std::string, std::string, std::string, std::string, std::string, int, std::string,
                         std::string, std::string>;
  struct Series {
    Pending first;  // the occurrence that created the Event; never changes
    std::string ns;
    std::string name;     // written by the writer that holds the series
    int64_t written = 0;  // count the server has (0: not created yet); the writer's
    int64_t count = 0;    // occurrences so far
    std::chrono::system_clock::time_point last_observed;
    uint64_t unwritten_seq = 0;  // oldest occurrence no write has taken yet (0: none)
    bool ready = false;          // in ready_
    bool busy = false;           // a writer has it
    bool retired = false;        // its window ended while waiting or busy: in retired_
  };
  // What a writer took from a series: the occurrences up to then.
  struct Take {
    Series* series;
    uint64_t seq;  // the oldest occurrence taken, in unsettled_
    int64_t count;
    std::chrono::system_clock::time_point last_observed;
  };

  void writer();
  void merge_queue();  // mu_ held
  Take take_ready();   // mu_ held, ready_ not empty
  void finish(const Take& t);  // mu_ held
  void write(const Take& t);
  bool write_once(Series& s, int64_t count, std::chrono::system_clock::time_point last_observed);
  void expire_old(std::chrono::system_clock::time_point now);  // mu_ held

  kube::Client& client_;
  EventRecorderOptions options_;

  mutable std::mutex mu_;
  std::condition_variable cv_;        // idle writers wait for work
  std::condition_variable retry_cv_;  // writers backing off wait for stop()
  std::condition_variable done_cv_;   // flush() waits for progress
  std::deque<Pending> queue_;         // in seq order
  uint64_t next_seq_ = 1;
  bool stopping_ = false;
  std::chrono::steady_clock::time_point give_up_at_ = std::chrono::steady_clock::time_point::max();
  EventRecorderStats stats_;

  std::map<Key, std::unique_ptr<Series>> series_;
  std::deque<Series*> ready_;                    // series with occurrences to write, none busy
  std::vector<std::unique_ptr<Series>> retired_;  // replaced while still to be written
  std::multiset<uint64_t> unsettled_;            // per series write to come or in flight: its oldest occurrence
  std::chrono::system_clock::time_point last_expiry_{};

  std::vector<std::thread> writers_;
};

}  // namespace gpupool::runtime
