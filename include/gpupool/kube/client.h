// The Kubernetes REST client: CRUD, patch, subresources, paginated lists and
// resumable watches for any group/version/resource, over an HttpTransport, with
// client-side rate limiting and retries. Thread-safe.
#pragma once

#include <rapidjson/document.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <stop_token>
#include <string>
#include <string_view>

#include "gpupool/kube/config.h"
#include "gpupool/kube/errors.h"
#include "gpupool/kube/http.h"
#include "gpupool/kube/json_projection.h"
#include "gpupool/kube/rate_limiter.h"
#include "gpupool/kube/resource.h"
#include "gpupool/kube/watch_decoder.h"
#include "gpupool/metrics/family.h"
#include "gpupool/metrics/counter.h"

namespace gpupool::kube {

struct GetOptions {
  std::string resource_version;
};

struct ListOptions {
  std::string label_selector;
  std::string field_selector;
  int64_t limit = 0;  // page size; 0: no paging
  std::string continue_token;
  std::string resource_version;
  std::string resource_version_match;  // "NotOlderThan", "Exact"
  std::optional<int> timeout_seconds;  // watches: the server closes the stream after this
  bool allow_watch_bookmarks = false;
  // Watches: the current state first, as ADDED events, then a bookmark
  // annotated k8s.io/initial-events-end (needs resource_version_match
  // "NotOlderThan"; is_initial_events_end() spots the bookmark).
  bool send_initial_events = false;
};

struct WriteOptions {
  std::string field_manager;
  bool dry_run = false;
};

enum class PatchType { JsonPatch, MergePatch, StrategicMergePatch, Apply };

struct PatchOptions {
  std::string field_manager;  // required for Apply
  bool force = false;         // Apply: take ownership of conflicting fields
  bool dry_run = false;
};

struct DeleteOptions {
  std::optional<std::string> precondition_uid;
  std::optional<std::string> precondition_resource_version;
  std::optional<std::string> propagation_policy;  // "Foreground", "Background", "Orphan"
  std::optional<int64_t> grace_period_seconds;
  bool dry_run = false;
};

// Delete only the object with this uid (not a successor of the same name).
inline DeleteOptions delete_options(std::string uid, std::optional<int64_t> grace_period_seconds = std::nullopt) {
  DeleteOptions o;
  o.precondition_uid = std::move(uid);
  o.grace_period_seconds = grace_period_seconds;
  return o;
}

// Why a resumable watch returned.
enum class WatchEnd {
  Stopped,  // the handler returned false or the stop token fired
  Closed,   // watch_once only: the server ended the stream; watch again from last_resource_version
  Gone,     // 410: the resourceVersion is too old; relist, then watch from the new one
};

struct WatchResult {
  WatchEnd end;
  std::string last_resource_version;  // of the last event or bookmark seen
};

// Counters for observability (rest_client_requests_total later builds on these).
struct ClientStats {
  std::atomic<uint64_t> requests{0};
  std::atomic<uint64_t> retries{0};
  std::atomic<uint64_t> watch_reconnects{0};
  std::atomic<uint64_t> connections_opened{0};  // by non-watch requests
  std::atomic<uint64_t> http2_responses{0};
};

class Client {
 public:
  // With no transport, libcurl is used.
  explicit Client(RestConfig config, std::shared_ptr<HttpTransport> transport = nullptr);

  const RestConfig& config() const { return config_; }
  ClientStats& stats() { return stats_; }

  // Single objects. The document returned is the object the server answered with.
  rapidjson::Document get(const ResourceRef& ref, const GetOptions& options = {});
  rapidjson::Document create(const ResourceRef& collection, std::string_view body, const WriteOptions& options = {});
  // PUT: body must carry metadata.resourceVersion for optimistic concurrency (409 when stale).
  rapidjson::Document update(const ResourceRef& ref, std::string_view body, const WriteOptions& options = {});
  rapidjson::Document patch(const ResourceRef& ref, PatchType type, std::string_view body, const PatchOptions& options = {});
  // Returns what the server answered (the object being deleted, or a Status).
  rapidjson::Document remove(const ResourceRef& ref, const DeleteOptions& options = {});
  // POST to a subresource (eviction) or a collection, returning the raw answer.
  std::string post_raw(const ResourceRef& ref, std::string_view body);

  // One page of a list, raw.
  std::string list_page_raw(const ResourceRef& collection, const ListOptions& options);

  // Lists all pages (options.limit per page), handing each item's raw JSON to
  // `on_item`. If the continue token expires midway (410), the list restarts
  // from the beginning: `on_restart` is called first so the caller drops what
  // it collected. Returns the list's resourceVersion.
  std::string list_items(const ResourceRef& collection, const ListOptions& options,
                         const std::function<void(std::string_view item_json)>& on_item,
                         const std::function<void()>& on_restart = {});

  // Convenience: the whole list as one DOM (items of all pages).
  rapidjson::Document list(const ResourceRef& collection, const ListOptions& options = {});

  // One watch request: calls `on_event` for each event until the server ends
  // the stream, the handler returns false, or `stop` fires. An ERROR event or
  // an HTTP error is thrown as ApiError (is_gone() for 410).
  WatchResult watch_once(const ResourceRef& collection, const ListOptions& options,
                         const std::function<bool(const WatchEvent&)>& on_event, std::stop_token stop = {});

  // A watch that survives dropped connections and server timeouts: it
  // reconnects from the last seen resourceVersion with jittered, capped
  // backoff (reset by an event, or by a stream the server had accepted before
  // it broke: a cut connection is retried after the shortest wait), and returns only when told to stop or when the server says the
  // resourceVersion is gone (WatchEnd::Gone: relist). Other API errors are thrown.
  WatchResult watch(const ResourceRef& collection, ListOptions options,
                    const std::function<bool(const WatchEvent&)>& on_event, std::stop_token stop = {});

  // Raw request, with rate limiting, credentials, retries and error decoding.
  // `idempotent` allows retrying after a connection error or a 5xx.
  HttpResponse request(std::string method, const std::string& path_and_query, std::string body,
                       std::string content_type, bool idempotent);

 private:
  // watch_once, also telling whether the server accepted the stream (HTTP
  // 200), also when it then throws.
  WatchResult watch_stream(const ResourceRef& collection, const ListOptions& options,
                           const std::function<bool(const WatchEvent&)>& on_event, std::stop_token stop, bool* established);

  std::string url(const std::string& path_and_query) const;
  // rest_client_requests_total{code,method,host}; code "<error>" when no answer came.
  void count_request(const std::string& method, int status);
  std::string query(const ListOptions& options, bool watch) const;

  RestConfig config_;
  std::shared_ptr<HttpTransport> transport_;
  TokenBucket limiter_;
  ClientStats stats_;
  std::string host_;  // host:port of the server, the metrics' host label
  metrics::Family<metrics::Counter>& requests_total_;
};

// Parses JSON into a document; throws DecodeError with the offset and reason.
rapidjson::Document parse_json(std::string_view json);
// Serialises a value compactly.
std::string to_json(const rapidjson::Value& value);
// Reads a string member by path ("metadata", "name"); empty if absent.
std::string string_at(const rapidjson::Value& value, std::initializer_list<const char*> path);

}  // namespace gpupool::kube
