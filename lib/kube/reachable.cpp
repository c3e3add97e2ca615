#include "gpupool/kube/reachable.h"

#include <spdlog/spdlog.h>

#include "gpupool/common/stoppable_sleep.h"
#include "gpupool/kube/backoff.h"
#include "gpupool/kube/errors.h"

namespace gpupool::kube {

std::optional<std::string> get_when_reachable(Client& client, const std::string& path, std::stop_token stop) {
  Backoff backoff(std::chrono::milliseconds(500), std::chrono::seconds(10));
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
    const auto wait = std::chrono::duration_cast<std::chrono::milliseconds>(backoff.next());
    spdlog::warn("the API server does not answer GET {} yet ({}); trying again in {} ms", path, why, wait.count());
    if (!common::sleep_for(wait, stop)) return std::nullopt;
  }
}

}  // namespace gpupool::kube
