// A scripted HTTP/1.1 (optionally HTTPS) server for unit tests of the
// Kubernetes REST client.
//
// A real kube-apiserver cannot produce some faults on demand: a watch stream
// cut mid-event, 429 with Retry-After, 500, an ERROR event carrying 410 in a
// watch, an expired continue token, a server that never answers. Tests
// enqueue Steps saying how to answer the next requests, run the client
// against url(), then inspect requests().
//
// Serving: binds 127.0.0.1 on an ephemeral port; one thread accepts, one
// thread per connection serves requests one after another (keep-alive), with
// Content-Length or chunked request bodies and Expect: 100-continue. A request
// that cannot be parsed gets 400 and the connection is closed; it is not
// recorded. Idle connections time out after 30 s; stop() ends everything at
// once by shutting the sockets down and joins all threads.
//
// libcurl note: when a *reused* connection closes without any answer (refuse,
// or hang then release()), libcurl silently resends the request once on a new
// connection, which consumes another step. Script such faults on a fresh
// connection, or enqueue the step twice.
#pragma once

#include <chrono>
#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "gpupool/netutil/http_request_reader.h"  // RecordedRequest
#include "gpupool/netutil/http_text.h"            // status_json

namespace gpupool::test {

using netutil::RecordedRequest;

// What to do with one request. Framing of the answer:
// - Fixed (no chunks, not hold_open): Content-Length and `body`.
// - Streamed (chunks or hold_open): Transfer-Encoding: chunked; the pieces are
//   `body` (when not empty) then each of `chunks` (empty ones skipped), each
//   sent as one chunk and flushed, `chunk_pause` between pieces; then, with
//   hold_open, the stream stays open until release() or stop(); then the
//   terminating chunk ends the answer.
// Content-Type is application/json unless `headers` names one. Answers to
// HEAD carry no body.
struct Step {
  // Matchers; the step applies only to requests meeting all of them.
  std::string method;          // exactly this method; empty: any
  std::string path_prefix;     // path starts with this; empty: any
  std::string query_contains;  // raw query contains this (e.g. "watch=true"); empty: any

  int status = 200;
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;

  std::vector<std::string> chunks;
  std::chrono::milliseconds chunk_pause{0};
  std::chrono::milliseconds delay{0};  // wait before answering (stop() interrupts)

  bool close_after = false;  // close the connection (orderly) after the answer
  // Cut the connection once this many body bytes (payload only, not chunk
  // framing) are sent: a chunk is cut mid-way when needed, no terminating
  // chunk, no TLS close_notify; a fixed answer still announces the whole
  // Content-Length. When the body is shorter, the cut follows the last piece
  // (hold_open is then ignored).
  std::optional<std::size_t> cut_after_bytes;
  bool hold_open = false;  // see above
  bool refuse = false;     // read the request, close without answering
  bool hang = false;       // read the request, answer nothing until release() or stop(), then close
};

class ScriptedServer {
 public:
  struct Options {
    bool tls = false;
    // Safety net: held streams and hangs end on their own after this long.
    std::chrono::milliseconds hold_limit{std::chrono::minutes(2)};
  };

  // Binds 127.0.0.1:0 and starts serving. With tls, generates a fresh CA and
  // a server certificate (SAN IP:127.0.0.1, DNS:localhost) for this server.
  // Throws std::runtime_error when it cannot.
  ScriptedServer();
  explicit ScriptedServer(Options options);
  ~ScriptedServer();  // stop()
  ScriptedServer(const ScriptedServer&) = delete;
  ScriptedServer& operator=(const ScriptedServer&) = delete;

  std::string url() const;     // "http://127.0.0.1:PORT" or "https://127.0.0.1:PORT"
  int port() const;
  std::string ca_pem() const;  // with tls: the CA that signed the server certificate; else empty

  // Queues a step. Each request takes the first queued step it matches,
  // which is then consumed; with none, it gets the default.
  void enqueue(Step step);
  // The answer when no queued step matches (matchers ignored). Initially 404
  // with a metav1.Status body.
  void set_default(Step step);
  std::size_t pending_steps() const;

  // Every request read so far (including refused and hung ones), in the order
  // they were read.
  std::vector<RecordedRequest> requests() const;
  // Waits until at least n requests were read; false on timeout.
  bool wait_for_requests(std::size_t n, std::chrono::milliseconds timeout) const;
  // TCP connections accepted so far.
  std::size_t connection_count() const;

  // Ends the holds (hold_open streams, hangs) of every request read before
  // this call: their stream gets its terminating chunk (hangs: the
  // connection closes). Later requests are not affected.
  void release();
  // Stops accepting, cuts every connection, joins all threads. Idempotent;
  // call from one thread only.
  void stop();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Answer builders with realistic kube-apiserver bodies.

// metav1.Status, e.g. status_json(410, "Expired", "too old resource version: 1 (5)")
// (gpupool/netutil/http_text.h).
using netutil::status_json;
// One watch event line, '\n' terminated: {"type":TYPE,"object":OBJECT}.
// `object_json` is inserted verbatim.
std::string watch_event_json(std::string_view type, std::string_view object_json);
// A step answering `status` with a JSON body.
Step json_step(int status, std::string body);
// A step answering `code` with a status_json body, as the apiserver reports errors.
Step status_step(int code, std::string_view reason, std::string_view message);

}  // namespace gpupool::test
