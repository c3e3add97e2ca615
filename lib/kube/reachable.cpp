#include "gpupool/kube/reachable.h"

#include <spdlog/spdlog.h>

#include <condition_variable>
#include <mutex>

#include "gpupool/kube/backoff.h"
#include "gpupool/kube/errors.h"

namespace gpupool::kube {

std::optional<std::string> get_when_reachable(Client& client, const std::string& path, std::stop_token stop) {
  Backoff backoff(std::chrono::milliseconds(500), std::chrono::seconds(10));
  std::mutex mu;
  std::condition_variable_any cv;
  for (;;) {
    if (stop.stop_requested()) return std::nullopt;
    std::string why;
    try {
      return client.request("GET", path, "", "", true).body;
    } catch (const ApiError& e) {
      if (!e.is_server_error() && !e.is_too_many_requests()) throw;
      why = e.what();
    } catch (const TransportError& e) {
      why = e.what();
    }
    const auto wait = backoff.next();
    spdlog::warn("the API server does not answer GET {} yet ({}); trying again in {} ms", path, why,
                 std::chrono::duration_cast<std::chrono::milliseconds>(wait).count());
    std::unique_lock lock(mu);
    if (cv.wait_for(lock, stop, wait, [] { return false; }) || stop.stop_requested()) return std::nullopt;
  }
}

}  // namespace gpupool::kube
