#include "gpupool/netutil/tcp.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstring>
#include <stdexcept>

namespace gpupool::netutil {
namespace {

[[noreturn]] void fail_errno(const std::string& what) {
  throw std::runtime_error(what + ": " + std::strerror(errno));
}

void set_timeout(int fd, int option, std::chrono::milliseconds timeout) {
  timeval tv{};
  tv.tv_sec = static_cast<time_t>(timeout.count() / 1000);
  tv.tv_usec = static_cast<suseconds_t>((timeout.count() % 1000) * 1000);
  ::setsockopt(fd, SOL_SOCKET, option, &tv, sizeof tv);
}

void set_nodelay(int fd) {
  const int one = 1;
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

// Non-blocking connect to one address, waiting at most `timeout`.
int connect_one(const addrinfo& ai, std::chrono::milliseconds timeout, std::string* error) {
  const int fd = ::socket(ai.ai_family, ai.ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, ai.ai_protocol);
  if (fd < 0) {
    *error = std::string("socket: ") + std::strerror(errno);
    return -1;
  }
  int rc = ::connect(fd, ai.ai_addr, ai.ai_addrlen);
  if (rc != 0 && errno == EINPROGRESS) {
    pollfd p{fd, POLLOUT, 0};
    do {
      rc = ::poll(&p, 1, static_cast<int>(timeout.count()));
    } while (rc < 0 && errno == EINTR);
    if (rc == 0) {
      *error = "connect: timed out";
      ::close(fd);
      return -1;
    }
    int so_error = 0;
    socklen_t len = sizeof so_error;
    ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &so_error, &len);
    errno = so_error;
    rc = so_error == 0 ? 0 : -1;
  }
  if (rc != 0) {
    *error = std::string("connect: ") + std::strerror(errno);
    ::close(fd);
    return -1;
  }
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  set_nodelay(fd);
  return fd;
}

}  // namespace

HostPort parse_host_port(const std::string& text) {
  std::string host;
  std::string port_text;
  if (!text.empty() && text.front() == '[') {
    const auto close = text.find(']');
    if (close == std::string::npos || close + 1 >= text.size() || text[close + 1] != ':') {
      throw std::invalid_argument("bad address '" + text + "': expected [V6]:PORT");
    }
    host = text.substr(1, close - 1);
    port_text = text.substr(close + 2);
  } else {
    const auto colon = text.rfind(':');
    if (colon == std::string::npos || text.find(':') != colon) {
      throw std::invalid_argument("bad address '" + text + "': expected HOST:PORT");
    }
    host = text.substr(0, colon);
    port_text = text.substr(colon + 1);
  }
  int port = -1;
  const auto [end, ec] = std::from_chars(port_text.data(), port_text.data() + port_text.size(), port);
  if (ec != std::errc() || end != port_text.data() + port_text.size() || port < 0 || port > 65535) {
    throw std::invalid_argument("bad port in address '" + text + "'");
  }
  return {host, port};
}

std::string url_host(const std::string& host) {
  if (host.empty() || host == "localhost" || host == "0.0.0.0") return "127.0.0.1";
  if (host == "::") return "[::1]";
  return host.find(':') != std::string::npos ? "[" + host + "]" : host;
}

int listen_tcp(const std::string& host, int port, int backlog, int* bound_port) {
  const std::string name = host.empty() || host == "localhost" ? "127.0.0.1" : host;
  const std::string where = name + ":" + std::to_string(port);
  sockaddr_storage storage{};
  socklen_t len = 0;
  auto* v4 = reinterpret_cast<sockaddr_in*>(&storage);
  auto* v6 = reinterpret_cast<sockaddr_in6*>(&storage);
  if (::inet_pton(AF_INET, name.c_str(), &v4->sin_addr) == 1) {
    v4->sin_family = AF_INET;
    v4->sin_port = htons(static_cast<uint16_t>(port));
    len = sizeof *v4;
  } else if (::inet_pton(AF_INET6, name.c_str(), &v6->sin6_addr) == 1) {
    v6->sin6_family = AF_INET6;
    v6->sin6_port = htons(static_cast<uint16_t>(port));
    len = sizeof *v6;
  } else {
    throw std::runtime_error("listen on " + where + ": not a numeric address");
  }
  const int fd = ::socket(storage.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) fail_errno("listen on " + where + ": socket");
  const int one = 1;
  ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  if (::bind(fd, reinterpret_cast<sockaddr*>(&storage), len) != 0 || ::listen(fd, backlog) != 0) {
    const int e = errno;
    ::close(fd);
    errno = e;
    fail_errno("listen on " + where);
  }
  len = sizeof storage;
  if (::getsockname(fd, reinterpret_cast<sockaddr*>(&storage), &len) != 0) {
    const int e = errno;
    ::close(fd);
    errno = e;
    fail_errno("listen on " + where + ": getsockname");
  }
  if (bound_port != nullptr) {
    *bound_port = ntohs(storage.ss_family == AF_INET ? v4->sin_port : v6->sin6_port);
  }
  return fd;
}

bool stop_listening(int fd) {
  sockaddr_storage addr{};
  socklen_t len = sizeof addr;
  if (::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) return false;
  // connect(AF_UNSPEC) takes a listening TCP socket back to the closed state.
  sockaddr unspec{};
  unspec.sa_family = AF_UNSPEC;
  if (::connect(fd, &unspec, sizeof unspec) != 0) return false;
  // A port the kernel chose (bind to port 0) is released with the listen:
  // bind it again at once. A port bound by number stays bound (EINVAL).
  if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), len) != 0 && errno != EINVAL) return false;
  return true;
}

int connect_tcp(const std::string& host, int port, std::chrono::milliseconds timeout, std::string* error) {
  std::string ignored;
  if (error == nullptr) error = &ignored;
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  const std::string service = std::to_string(port);
  const int rc = ::getaddrinfo(host.c_str(), service.c_str(), &hints, &found);
  if (rc != 0) {
    *error = "resolve " + host + ": " + ::gai_strerror(rc);
    return -1;
  }
  int fd = -1;
  for (const addrinfo* ai = found; ai != nullptr && fd < 0; ai = ai->ai_next) fd = connect_one(*ai, timeout, error);
  ::freeaddrinfo(found);
  return fd;
}

int accept_tcp(int listen_fd) {
  const int fd = ::accept4(listen_fd, nullptr, nullptr, SOCK_CLOEXEC);
  if (fd >= 0) set_nodelay(fd);
  return fd;
}

void set_read_timeout(int fd, std::chrono::milliseconds timeout) { set_timeout(fd, SO_RCVTIMEO, timeout); }
void set_write_timeout(int fd, std::chrono::milliseconds timeout) { set_timeout(fd, SO_SNDTIMEO, timeout); }

void close_with_reset(int fd) {
  linger l{};
  l.l_onoff = 1;
  l.l_linger = 0;
  ::setsockopt(fd, SOL_SOCKET, SO_LINGER, &l, sizeof l);
  ::close(fd);
}

void block_sigpipe_in_this_thread() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
}

}  // namespace gpupool::netutil
