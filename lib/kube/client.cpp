#include "gpupool/kube/client.h"

#include <rapidjson/error/en.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>
#include <spdlog/spdlog.h>

#include <thread>

#include "gpupool/kube/backoff.h"
#include "gpupool/metrics/controller_metrics.h"

namespace gpupool::kube {

namespace {

constexpr const char* kJson = "application/json";

bool is_retryable_status(int status) { return status == 429 || status == 500 || status == 502 || status == 503 || status == 504; }

std::optional<int> retry_after(const HttpResponse& r) {
  auto it = r.headers.find("retry-after");
  if (it == r.headers.end()) return std::nullopt;
  char* end = nullptr;
  long v = std::strtol(it->second.c_str(), &end, 10);
  if (end == it->second.c_str() || v < 0) return std::nullopt;  // an HTTP date: treat as absent
  return static_cast<int>(std::min<long>(v, 3600));
}

const char* patch_content_type(PatchType type) {
  switch (type) {
    case PatchType::JsonPatch: return "application/json-patch+json";
    case PatchType::MergePatch: return "application/merge-patch+json";
    case PatchType::StrategicMergePatch: return "application/strategic-merge-patch+json";
    case PatchType::Apply: return "application/apply-patch+yaml";
  }
  return kJson;
}

void append_param(std::string& q, const char* name, const std::string& value) {
  if (value.empty()) return;
  q += q.empty() ? '?' : '&';
  q += name;
  q += '=';
  q += url_encode(value);
}

std::string write_query(const WriteOptions& o) {
  std::string q;
  append_param(q, "fieldManager", o.field_manager);
  if (o.dry_run) append_param(q, "dryRun", "All");
  return q;
}

}  // namespace

rapidjson::Document parse_json(std::string_view json) {
  rapidjson::Document doc;
  doc.Parse(json.data(), json.size());
  if (doc.HasParseError()) {
    throw DecodeError(std::string("invalid JSON at offset ") + std::to_string(doc.GetErrorOffset()) + ": " +
                      rapidjson::GetParseError_En(doc.GetParseError()));
  }
  return doc;
}

std::string to_json(const rapidjson::Value& value) {
  rapidjson::StringBuffer buf;
  rapidjson::Writer<rapidjson::StringBuffer> w(buf);
  value.Accept(w);
  return {buf.GetString(), buf.GetSize()};
}

std::string string_at(const rapidjson::Value& value, std::initializer_list<const char*> path) {
  const rapidjson::Value* v = &value;
  for (const char* key : path) {
    if (!v->IsObject()) return {};
    auto it = v->FindMember(key);
    if (it == v->MemberEnd()) return {};
    v = &it->value;
  }
  return v->IsString() ? std::string(v->GetString(), v->GetStringLength()) : std::string();
}

Client::Client(RestConfig config, std::shared_ptr<HttpTransport> transport)
    : config_(std::move(config)),
      transport_(transport ? std::move(transport) : make_curl_transport(config_)),
      limiter_(config_.qps, config_.burst),
      requests_total_(metrics::controller_metrics().rest_client_requests_total) {
  auto start = config_.server.find("://");
  host_ = start == std::string::npos ? config_.server : config_.server.substr(start + 3);
  host_ = host_.substr(0, host_.find('/'));
}

void Client::count_request(const std::string& method, int status) {
  requests_total_.with({status > 0 ? std::to_string(status) : "<error>", method, host_}).inc();
}

std::string Client::url(const std::string& path_and_query) const {
  std::string base = config_.server;
  while (!base.empty() && base.back() == '/') base.pop_back();
  return base + path_and_query;
}

std::string Client::query(const ListOptions& o, bool watch) const {
  std::string q;
  if (watch) append_param(q, "watch", "1");
  append_param(q, "labelSelector", o.label_selector);
  append_param(q, "fieldSelector", o.field_selector);
  if (o.limit > 0 && !watch) append_param(q, "limit", std::to_string(o.limit));
  if (!watch) append_param(q, "continue", o.continue_token);
  append_param(q, "resourceVersion", o.resource_version);
  append_param(q, "resourceVersionMatch", o.resource_version_match);
  if (o.timeout_seconds) append_param(q, "timeoutSeconds", std::to_string(*o.timeout_seconds));
  if (watch && o.allow_watch_bookmarks) append_param(q, "allowWatchBookmarks", "true");
  if (watch && o.send_initial_events) append_param(q, "sendInitialEvents", "true");
  return q;
}

HttpResponse Client::request(std::string method, const std::string& path_and_query, std::string body,
                             std::string content_type, bool idempotent) {
  HttpRequest req;
  req.method = std::move(method);
  req.url = url(path_and_query);
  req.body = std::move(body);
  req.timeout = config_.timeout;
  req.headers.emplace_back("Accept", kJson);
  if (!content_type.empty()) req.headers.emplace_back("Content-Type", std::move(content_type));

  Backoff backoff(std::chrono::milliseconds(100), std::chrono::seconds(5));
  bool reauthenticated = false;
  // An earlier attempt may have been carried out: it timed out, its
  // connection broke, or the server answered 5xx (etcd may still commit).
  bool maybe_done = false;
  for (int attempt = 0;; ++attempt) {
    limiter_.acquire();
    stats_.requests++;
    HttpResponse resp;
    try {
      resp = transport_->send(req);
    } catch (const TransportError& e) {
      count_request(req.method, 0);
      // A refused connection never reached the server: any method may retry.
      // Otherwise only idempotent requests may be sent again.
      bool retry = attempt < config_.max_retries &&
                   (e.kind() == TransportError::Kind::Connect ||
                    (idempotent && (e.kind() == TransportError::Kind::Other || e.kind() == TransportError::Kind::Timeout)));
      if (!retry) throw;
      auto wait = backoff.next();
      spdlog::debug("{} {}: {}; retrying in {} ms", req.method, path_and_query.substr(0, path_and_query.find('?')),
                    e.what(), std::chrono::duration_cast<std::chrono::milliseconds>(wait).count());
      stats_.retries++;
      maybe_done = maybe_done || e.kind() != TransportError::Kind::Connect;
      std::this_thread::sleep_for(wait);
      continue;
    }
    count_request(req.method, resp.status);
    stats_.connections_opened += static_cast<uint64_t>(resp.new_connections);
    if (resp.http_major == 2) stats_.http2_responses++;
    if (resp.status == 401 && !reauthenticated && config_.credentials) {
      // The credential may have rotated or expired: fetch a fresh one once.
      config_.credentials->invalidate();
      reauthenticated = true;
      continue;
    }
    if (resp.status >= 200 && resp.status < 300) return resp;
    if (resp.status == 404 && maybe_done && req.method == "DELETE") {
      // What the caller asked for is so, most likely by its own earlier
      // attempt; answering NotFound would say the object was never there.
      spdlog::info("DELETE {}: not found after a retry; an earlier attempt deleted it",
                   path_and_query.substr(0, path_and_query.find('?')));
      resp.status = 200;
      resp.body = R"({"apiVersion":"v1","kind":"Status","status":"Success","reason":"NotFound","message":"deleted by an earlier attempt of this request"})";
      return resp;
    }
    auto after = retry_after(resp);
    // 429 means the server did not act on the request, so any method may retry.
    bool retry = attempt < config_.max_retries && is_retryable_status(resp.status) &&
                 (resp.status == 429 || idempotent);
    if (!retry) throw decode_api_error(resp.status, resp.body, after);
    auto wait = after ? std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::seconds(*after))
                      : backoff.next();
    spdlog::debug("{} {}: HTTP {}; retrying in {} ms", req.method, path_and_query.substr(0, path_and_query.find('?')),
                  resp.status, std::chrono::duration_cast<std::chrono::milliseconds>(wait).count());
    stats_.retries++;
    maybe_done = maybe_done || resp.status != 429;
    std::this_thread::sleep_for(wait);
  }
}

rapidjson::Document Client::get(const ResourceRef& ref, const GetOptions& options) {
  std::string q;
  append_param(q, "resourceVersion", options.resource_version);
  return parse_json(request("GET", resource_path(ref) + q, "", "", true).body);
}

rapidjson::Document Client::create(const ResourceRef& collection, std::string_view body, const WriteOptions& options) {
  return parse_json(request("POST", resource_path(collection) + write_query(options), std::string(body), kJson, false).body);
}

rapidjson::Document Client::update(const ResourceRef& ref, std::string_view body, const WriteOptions& options) {
  // A PUT carries the resourceVersion it read, so repeating it is safe.
  return parse_json(request("PUT", resource_path(ref) + write_query(options), std::string(body), kJson, true).body);
}

rapidjson::Document Client::patch(const ResourceRef& ref, PatchType type, std::string_view body,
                                  const PatchOptions& options) {
  std::string q;
  append_param(q, "fieldManager", options.field_manager);
  if (options.force) append_param(q, "force", "true");
  if (options.dry_run) append_param(q, "dryRun", "All");
  // Apply is declarative and merge patches are not; only Apply is repeated on failure.
  return parse_json(
      request("PATCH", resource_path(ref) + q, std::string(body), patch_content_type(type), type == PatchType::Apply).body);
}

rapidjson::Document Client::remove(const ResourceRef& ref, const DeleteOptions& options) {
  rapidjson::Document body(rapidjson::kObjectType);
  auto& a = body.GetAllocator();
  body.AddMember("apiVersion", "v1", a);
  body.AddMember("kind", "DeleteOptions", a);
  if (options.precondition_uid || options.precondition_resource_version) {
    rapidjson::Value pre(rapidjson::kObjectType);
    if (options.precondition_uid) pre.AddMember("uid", rapidjson::Value(options.precondition_uid->c_str(), a), a);
    if (options.precondition_resource_version) {
      pre.AddMember("resourceVersion", rapidjson::Value(options.precondition_resource_version->c_str(), a), a);
    }
    body.AddMember("preconditions", pre, a);
  }
  if (options.propagation_policy) {
    body.AddMember("propagationPolicy", rapidjson::Value(options.propagation_policy->c_str(), a), a);
  }
  if (options.grace_period_seconds) body.AddMember("gracePeriodSeconds", *options.grace_period_seconds, a);
  if (options.dry_run) {
    rapidjson::Value dry(rapidjson::kArrayType);
    dry.PushBack("All", a);
    body.AddMember("dryRun", dry, a);
  }
  return parse_json(request("DELETE", resource_path(ref), to_json(body), kJson, true).body);
}

std::string Client::post_raw(const ResourceRef& ref, std::string_view body) {
  return request("POST", resource_path(ref), std::string(body), kJson, false).body;
}

std::string Client::list_page_raw(const ResourceRef& collection, const ListOptions& options) {
  return request("GET", resource_path(collection) + query(options, false), "", "", true).body;
}

std::string Client::list_items(const ResourceRef& collection, const ListOptions& options,
                               const std::function<void(std::string_view item_json)>& on_item,
                               const std::function<void()>& on_restart) {
  constexpr int kMaxRestarts = 5;
  ListOptions page = options;
  std::string list_rv;
  bool first = true;
  for (int restarts = 0;;) {
    std::string body;
    try {
      body = list_page_raw(collection, page);
    } catch (const ApiError& e) {
      // The continue token expired (etcd compacted past the list's snapshot):
      // the pages already seen belong to an old snapshot, so start over.
      if (!e.is_gone() || page.continue_token.empty() || ++restarts > kMaxRestarts) throw;
      spdlog::info("list {}: continue token expired; restarting the list", resource_path(collection));
      if (on_restart) on_restart();
      page = options;
      first = true;
      continue;
    }
    ListMeta meta = scan_list(body, on_item);
    if (first) list_rv = meta.resource_version;
    first = false;
    if (meta.continue_token.empty()) return list_rv;
    page.continue_token = meta.continue_token;
  }
}

rapidjson::Document Client::list(const ResourceRef& collection, const ListOptions& options) {
  rapidjson::Document doc(rapidjson::kObjectType);
  auto& a = doc.GetAllocator();
  rapidjson::Value items(rapidjson::kArrayType);
  std::string rv = list_items(
      collection, options,
      [&](std::string_view item) {
        rapidjson::Document parsed(&a);
        parsed.Parse(item.data(), item.size());
        if (parsed.HasParseError()) throw DecodeError("invalid JSON in a list item of " + resource_path(collection));
        items.PushBack(parsed.Move(), a);  // parsed shares the allocator: no copy
      },
      [&] { items.Clear(); });
  rapidjson::Value meta(rapidjson::kObjectType);
  meta.AddMember("resourceVersion", rapidjson::Value(rv.c_str(), a), a);
  doc.AddMember("metadata", meta, a);
  doc.AddMember("items", items, a);
  return doc;
}

}  // namespace gpupool::kube
