// Many create requests at once over one kube::Client (libcurl, HTTP/2 to the
// API server: requests from several threads share its connections), for
// seeding a large cluster quickly.
#pragma once

#include <cstddef>
#include <functional>
#include <string>

#include "gpupool/kube/client.h"

namespace gpupool::bench {

struct WriteFigures {
  std::size_t objects = 0;
  double seconds = 0;
  double per_second() const { return seconds > 0 ? static_cast<double>(objects) / seconds : 0; }
};

// Creates body(i) in collection(i) for i in [0, count) with `writers`
// threads. AlreadyExists counts as created (a resumed run). A pod refused
// because its namespace's default ServiceAccount does not exist yet
// (kube-controller-manager makes it just after the namespace) is tried again
// for up to a minute. Throws std::runtime_error with the first other failure.
WriteFigures create_all(kube::Client& client, std::size_t count, int writers,
                        const std::function<kube::ResourceRef(std::size_t)>& collection,
                        const std::function<std::string(std::size_t)>& body);

}  // namespace gpupool::bench
