// Which requests get which fault: the decision part of the fault proxy, kept
// apart from the sockets so that it can be tested and reasoned about alone.
//
// Determinism: requests are numbered 0, 1, 2, ... in the order decide() is
// called (the order the proxy reads them). Request i draws the i-th number of
// the splitmix64 sequence of the seed, as a fraction in [0, 1); the error
// shares are laid end to end over [0, 1) in the order they were set, and the
// share the draw falls in (among those whose Match fits) decides. So the same
// seed and the same sequence of requests give the same faults, whatever the
// timing. Explicit rules (add_rule, "the next N matching requests") come
// first and do not change the draws of later requests.
//
// Thread-safe.
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpupool::faultproxy {

// Which requests something applies to; empty fields match anything.
struct Match {
  std::string method{};          // exactly this method, e.g. "GET"
  std::string path_prefix{};     // the path (without query) starts with this
  std::string query_contains{};  // the raw query contains this, e.g. "watch=true"

  bool matches(std::string_view request_method, std::string_view request_path, std::string_view request_query) const;
};

// What happens to one request.
struct Fault {
  enum class Kind {
    Status,  // answer `status` with a metav1.Status body; the upstream never sees the request
    Delay,   // wait `delay`, then forward
    Cut,     // cut the connection: at once, or after `cut_after_bytes` of the response were relayed
  };
  Kind kind = Kind::Status;
  int status = 500;
  // Status: sent as Retry-After (and details.retryAfterSeconds) when > 0.
  // kDefaultRetryAfter: 1 for 429, none for other codes.
  int retry_after_seconds = kDefaultRetryAfter;
  std::chrono::milliseconds delay{0};
  // Cut: 0 cuts before forwarding (no answer at all); N > 0 forwards and cuts
  // once N bytes of the response (head and body, as relayed) reached the client.
  std::uint64_t cut_after_bytes = 0;

  static constexpr int kDefaultRetryAfter = -1;

  static Fault error(int status, int retry_after_seconds = kDefaultRetryAfter);
  static Fault delayed(std::chrono::milliseconds delay);
  static Fault cut(std::uint64_t after_response_bytes = 0);
  // The Retry-After seconds to send, resolving kDefaultRetryAfter; 0: none.
  int effective_retry_after() const;
};

// The next `count` requests that fit `match` get `fault`.
struct Rule {
  Match match;
  Fault fault;
  int count = 1;
};

// What to do with one request.
struct Decision {
  std::uint64_t index = 0;            // the request's number
  std::chrono::milliseconds delay{0};  // set_delay(), plus a Delay fault's
  std::optional<Fault> fault;          // Status or Cut; empty: forward (after the delay)
};

class FaultPlan {
 public:
  explicit FaultPlan(std::uint64_t seed = 1);

  // Decides for the next request and counts it.
  Decision decide(std::string_view method, std::string_view path, std::string_view query);

  // Every request is delayed by this much before it is answered or forwarded.
  void set_delay(std::chrono::milliseconds delay);
  // This share (0..1) of the requests fitting `match` gets Fault::error(status,
  // retry_after_seconds). Replaces an earlier share with the same status and
  // match; share 0 removes it. Throws std::invalid_argument for a share
  // outside [0, 1] or a status outside 400..599.
  void set_error_share(int status, double share, int retry_after_seconds = Fault::kDefaultRetryAfter,
                       Match match = {});
  // Queues a rule; each request takes the first queued rule it fits, whose
  // count then drops (a rule at 0 is gone). Throws std::invalid_argument for
  // a count below 1, or a Status fault whose status is outside 400..599.
  void add_rule(Rule rule);
  // Requests are refused until now + duration (0: no longer).
  void refuse_for(std::chrono::milliseconds duration);
  bool refusing() const;
  // How long the refusal lasts still (0 when none), rounded up.
  std::chrono::milliseconds refusal_left() const;
  // Restarts the numbering and the draws from `seed`.
  void set_seed(std::uint64_t seed);
  // No delay, shares, rules or refusal; the seed and numbering go on.
  void reset();

  // The draw for request `index` under `seed`, in [0, 1).
  static double draw(std::uint64_t seed, std::uint64_t index);

 private:
  struct Share {
    Match match;
    int status;
    double share;
    int retry_after_seconds;
  };

  mutable std::mutex mu_;
  std::uint64_t seed_;
  std::uint64_t next_index_ = 0;
  std::chrono::milliseconds delay_{0};
  std::vector<Share> shares_;
  std::deque<Rule> rules_;
  std::chrono::steady_clock::time_point refuse_until_{};
};

}  // namespace gpupool::faultproxy
