// Independent jobs on a few threads at once: for API requests (one quota's
// status, one pod's gate) that would otherwise each wait for the one
// before's round trip. The client multiplexes them over its HTTP/2
// connections.
#pragma once

#include <cstddef>
#include <functional>

namespace gpupool::common {

// Runs fn(0) .. fn(count - 1), at most `workers` at once (the calling thread
// is one of them; workers 0 counts as 1), in no particular order. Returns
// when every call has returned. When calls throw, the others still run and
// the first exception caught is rethrown at the end.
void for_each_parallel(std::size_t count, std::size_t workers, const std::function<void(std::size_t)>& fn);

}  // namespace gpupool::common
