// Watch streams: one request (watch_once) and the resuming loop (watch).
#include <spdlog/spdlog.h>

#include <condition_variable>
#include <exception>
#include <mutex>

#include "gpupool/kube/backoff.h"
#include "gpupool/kube/client.h"

namespace gpupool::kube {

namespace {

constexpr std::size_t kMaxErrorBody = 64 * 1024;

// Waits for `d` or until `stop` fires; returns false if stopped.
bool wait_or_stop(std::chrono::steady_clock::duration d, std::stop_token stop) {
  std::mutex mu;
  std::condition_variable_any cv;
  std::unique_lock lock(mu);
  return !cv.wait_for(lock, stop, d, [] { return false; });
}

}  // namespace

WatchResult Client::watch_once(const ResourceRef& collection, const ListOptions& options,
                               const std::function<bool(const WatchEvent&)>& on_event, std::stop_token stop) {
  return watch_stream(collection, options, on_event, stop, nullptr);
}

WatchResult Client::watch_stream(const ResourceRef& collection, const ListOptions& options,
                                 const std::function<bool(const WatchEvent&)>& on_event, std::stop_token stop,
                                 bool* established) {
  HttpRequest req;
  req.method = "GET";
  req.url = url(resource_path(collection) + query(options, true));
  req.headers.emplace_back("Accept", "application/json");

  WatchResult result{WatchEnd::Closed, options.resource_version};
  WatchDecoder decoder;
  int status = 0;
  std::string error_body;
  bool stopped = false;
  std::exception_ptr failure;  // thrown from inside a callback; rethrown after curl returns

  StreamHandler handler;
  handler.on_headers = [&](int s, const std::map<std::string, std::string>&) {
    status = s;
    if (established && s == 200) *established = true;
    return true;
  };
  handler.on_data = [&](std::string_view chunk) {
    if (status != 200) {
      if (error_body.size() < kMaxErrorBody) error_body.append(chunk.substr(0, kMaxErrorBody - error_body.size()));
      return true;
    }
    try {
      decoder.feed(chunk, [&](const WatchEvent& ev) {
        if (stopped || failure) return;
        if (ev.type == WatchEventType::Error) {
          failure = std::make_exception_ptr(error_from_event(ev));
          return;
        }
        if (!ev.resource_version.empty()) result.last_resource_version = ev.resource_version;
        if (!on_event(ev)) stopped = true;
      });
    } catch (...) {
      failure = std::current_exception();
    }
    return !stopped && !failure && !stop.stop_requested();
  };
  handler.cancelled = [&] { return stop.stop_requested(); };

  limiter_.acquire();
  stats_.requests++;
  try {
    transport_->stream(req, handler);
    count_request("GET", status);
  } catch (const TransportError& e) {
    count_request("GET", status);
    if (failure) std::rethrow_exception(failure);
    if (e.kind() != TransportError::Kind::Aborted) throw;
  }
  if (failure) std::rethrow_exception(failure);
  if (stopped || stop.stop_requested()) {
    result.end = WatchEnd::Stopped;
    return result;
  }
  if (status != 200) {
    if (status == 401 && config_.credentials) config_.credentials->invalidate();
    throw decode_api_error(status, error_body);
  }
  if (decoder.has_partial_event()) {
    throw TransportError(TransportError::Kind::Other, "watch " + resource_path(collection) + ": stream ended mid-event");
  }
  return result;
}

WatchResult Client::watch(const ResourceRef& collection, ListOptions options,
                          const std::function<bool(const WatchEvent&)>& on_event, std::stop_token stop) {
  Backoff backoff(std::chrono::milliseconds(200), std::chrono::seconds(30));
  std::string last_rv = options.resource_version;
  auto counting_handler = [&](const WatchEvent& ev) {
    if (!ev.resource_version.empty()) last_rv = ev.resource_version;
    backoff.reset();  // the connection works again
    return on_event(ev);
  };
  for (;;) {
    if (stop.stop_requested()) return {WatchEnd::Stopped, last_rv};
    options.resource_version = last_rv;
    std::string why;
    bool established = false;
    try {
      WatchResult r = watch_stream(collection, options, counting_handler, stop, &established);
      if (r.end == WatchEnd::Stopped) return {WatchEnd::Stopped, last_rv};
      // The server closed the stream (timeoutSeconds elapsed): resume at once.
      stats_.watch_reconnects++;
      continue;
    } catch (const ApiError& e) {
      if (e.is_gone()) return {WatchEnd::Gone, last_rv};
      if (!e.is_too_many_requests() && !e.is_server_error() && !e.is_unauthorized()) throw;
      why = e.what();
      if (e.retry_after_seconds()) {
        stats_.watch_reconnects++;
        if (!wait_or_stop(std::chrono::seconds(*e.retry_after_seconds()), stop)) return {WatchEnd::Stopped, last_rv};
        continue;
      }
    } catch (const TransportError& e) {
      why = e.what();
    } catch (const DecodeError& e) {
      why = e.what();  // a garbled stream: reconnect and resume
    }
    // A stream the server had accepted (200) and that then broke is a cut
    // connection (a proxy, a load balancer, a restarting server), not a
    // server refusing: reconnect after the shortest wait instead of letting
    // repeated cuts of a quiet watch grow the delay towards the cap (events
    // missed for half a minute). Refusals and errors before the answer still
    // back off.
    if (established) backoff.reset();
    auto wait = backoff.next();
    stats_.watch_reconnects++;
    spdlog::info("watch {}: {}; resuming from resourceVersion {} in {} ms", resource_path(collection), why,
                 last_rv.empty() ? "(none)" : last_rv, std::chrono::duration_cast<std::chrono::milliseconds>(wait).count());
    if (!wait_or_stop(wait, stop)) return {WatchEnd::Stopped, last_rv};
  }
}

}  // namespace gpupool::kube
