// Leader election on a coordination.k8s.io/v1 Lease, with the semantics of
// client-go's tools/leaderelection (LeaseLock, not the coordinated variant).
//
// Acquiring: every retry_period (jittered up to 2.2x, as client-go) a
// candidate reads the Lease. It creates it when missing; it takes it over when
// the holder is empty or the lease has expired. Expiry is judged on the LOCAL
// clock: a record counts from the moment this candidate first saw it change,
// plus the record's leaseDurationSeconds; the remote renewTime is never
// compared with the local clock, so clock skew between candidates does not
// matter. Writes are PUTs carrying the resourceVersion that was read, so of
// two candidates racing for the same record one gets 409 and keeps waiting.
//
// Leading: on_started_leading runs on its own thread with a stop token. The
// lease is renewed every retry_period; a renewal round that has not succeeded
// renew_deadline after it began ends the leadership AT ONCE: a watchdog fires
// the token even while a request hangs, so the token fires no later than
// last successful renewal + retry_period + renew_deadline, which is before
// any other candidate can see the lease expire (lease_duration counted from
// its later observation), provided lease_duration > retry_period +
// renew_deadline. Requests time out after max(1 s, renew_deadline / 2) and
// are not retried by the client (the election loop retries).
//
// Stopping (SIGTERM: the stop token given to run() fires) while leading: the
// token given to on_started_leading fires, run() waits for on_started_leading
// to RETURN, and then, with release_on_cancel, releases the lease (holder
// empty, leaseDurationSeconds 1, as client-go) so a standby takes over at its
// next retry. on_started_leading must therefore stop all work it started
// (join its threads, stop its controllers) before returning, and return
// promptly once the token fires: nothing it does may overlap the next
// leader. After losing the lease run() likewise waits for on_started_leading
// and then releases if the record still names this candidate.
//
// A stop while a request is in flight takes effect when it returns (at most
// the request timeout above).
//
// run() returns once leadership has ended (lost or stopped) or, when never
// acquired, once stop fires; it does not try to acquire again. A process that
// lost leadership should exit (so it restarts as a fresh candidate), as
// controller-runtime does.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <stop_token>
#include <string>

#include "gpupool/kube/client.h"
#include "gpupool/kube/config.h"
#include "gpupool/kube/http.h"

namespace gpupool::runtime {

struct LeaderElectionConfig {
  std::string lease_namespace;
  std::string lease_name;
  // Must be unique among candidates. Empty: default_leader_identity().
  std::string identity;
  // Whole seconds (leaseDurationSeconds is an integer), at least 1 s.
  std::chrono::milliseconds lease_duration{std::chrono::seconds(15)};
  std::chrono::milliseconds renew_deadline{std::chrono::seconds(10)};
  std::chrono::milliseconds retry_period{std::chrono::seconds(2)};
  bool release_on_cancel = true;
};

struct LeaderCallbacks {
  // Required. Runs on a thread of its own once the lease is acquired. The
  // token fires when leadership is lost or run()'s stop fires; return
  // promptly then, with all work stopped (see the file comment). An
  // exception escaping it is logged and ends leadership (run() returns Lost).
  std::function<void(std::stop_token leading)> on_started_leading;
  // Called once, on run()'s thread, after on_started_leading has returned
  // (and the lease was released when configured). Not called when this
  // candidate never led.
  std::function<void()> on_stopped_leading;
  // Called on run()'s thread when the observed holder changes to another
  // non-empty identity (this candidate's own included). Must not block.
  std::function<void(const std::string& identity)> on_new_leader;
  // Reports leader_election_master_status: true on acquiring, false when
  // leadership ends (and once at the start of run()). Must not block.
  std::function<void(bool leading)> on_leader_status;
  // Exceptions from the last three are logged and ignored.
};

// What a Lease's spec says (client-go's LeaderElectionRecord). Times are as
// the API server returned them (RFC 3339 MicroTime strings).
struct LeaseRecord {
  std::string holder_identity;
  int64_t lease_duration_seconds = 0;
  std::string acquire_time;
  std::string renew_time;
  int64_t lease_transitions = 0;

  bool operator==(const LeaseRecord&) const = default;
};

// Reads spec of a Lease object (absent fields are empty / 0).
LeaseRecord lease_record_from(const rapidjson::Value& lease);

// hostname + "_" + a random UUID, as controller-runtime builds it.
std::string default_leader_identity();

enum class ElectionOutcome {
  Stopped,  // run()'s stop fired (before or while leading)
  Lost,     // leadership ended because the lease could not be renewed in time
};

class LeaderElector {
 public:
  // Throws std::invalid_argument when the configuration is unusable
  // (lease_duration <= renew_deadline, renew_deadline <= 1.2 * retry_period,
  // lease_duration not whole seconds, empty lease name or namespace, no
  // on_started_leading). `rest` is copied; requests go through their own
  // Client with the timeout above. `transport` is for tests (default: libcurl).
  LeaderElector(const kube::RestConfig& rest, LeaderElectionConfig config, LeaderCallbacks callbacks,
                std::shared_ptr<kube::HttpTransport> transport = nullptr);
  ~LeaderElector();
  LeaderElector(const LeaderElector&) = delete;
  LeaderElector& operator=(const LeaderElector&) = delete;

  // Blocks: acquires, leads, renews, and returns as the file comment says.
  // Call once.
  ElectionOutcome run(std::stop_token stop);

  // True from acquiring until the leading token fires. Thread-safe.
  bool is_leader() const;
  // The holder named by the last record observed (may be empty). Thread-safe.
  std::string leader() const;
  const std::string& identity() const { return config_.identity; }
  const LeaderElectionConfig& config() const { return config_; }

 private:
  bool try_acquire_or_renew();
  bool write_lease(const LeaseRecord& record, bool create);
  void observe(const LeaseRecord& record);
  void report_new_leader();
  void release();
  bool holds() const;
  bool observed_valid(std::chrono::steady_clock::time_point now) const;
  kube::ResourceRef lease_ref() const;

  LeaderElectionConfig config_;
  LeaderCallbacks callbacks_;
  kube::Client client_;

  mutable std::mutex mu_;
  LeaseRecord observed_;
  std::optional<std::chrono::steady_clock::time_point> observed_at_;
  bool leading_ = false;
  std::string reported_leader_;
  // The Lease object last read or written (its metadata carries the
  // resourceVersion of the next update). Only touched by run()'s thread.
  std::unique_ptr<rapidjson::Document> lease_;
};

}  // namespace gpupool::runtime
