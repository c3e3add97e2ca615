#include "io_wait.h"

#include <poll.h>

#include <cerrno>
#include <optional>

namespace gpupool::faultproxy {
namespace {

using Clock = std::chrono::steady_clock;

constexpr short kGone = POLLRDHUP | POLLHUP | POLLERR | POLLNVAL;

// Milliseconds left until `deadline` for poll(), -1 without one.
int poll_timeout(const std::optional<Clock::time_point>& deadline) {
  if (!deadline) return -1;
  const auto left = std::chrono::ceil<std::chrono::milliseconds>(*deadline - Clock::now()).count();
  return left > 0 ? static_cast<int>(left) : 0;
}

}  // namespace

Wake wait_readable(const netutil::SocketStream& stream, const netutil::SocketStream* watched,
                   std::chrono::milliseconds timeout) {
  if (stream.has_buffered_data()) return Wake::Readable;
  std::optional<Clock::time_point> deadline;
  if (timeout.count() >= 0) deadline = Clock::now() + timeout;
  pollfd fds[2] = {{stream.fd(), POLLIN, 0}, {watched != nullptr ? watched->fd() : -1, POLLRDHUP, 0}};
  for (;;) {
    const int rc = ::poll(fds, watched != nullptr ? 2 : 1, poll_timeout(deadline));
    if (rc < 0 && errno == EINTR) continue;
    if (rc < 0) return Wake::Readable;  // the read then fails and says so
    if (rc == 0) return Wake::Timeout;
    if ((fds[0].revents & (POLLIN | kGone)) != 0) return Wake::Readable;
    if ((fds[1].revents & kGone) != 0) return Wake::PeerGone;
  }
}

bool sleep_unless_gone(const netutil::SocketStream& watched, std::chrono::milliseconds duration) {
  const auto deadline = Clock::now() + duration;
  pollfd fd{watched.fd(), POLLRDHUP, 0};
  for (;;) {
    const int rc = ::poll(&fd, 1, poll_timeout(deadline));
    if (rc < 0 && errno == EINTR) continue;
    if (rc == 0) return true;
    if (rc < 0 || (fd.revents & kGone) != 0) return false;
  }
}

}  // namespace gpupool::faultproxy
