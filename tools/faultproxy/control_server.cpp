#include "control_server.h"

#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <stdexcept>
#include <utility>

#include "gpupool/netutil/http_text.h"
#include "gpupool/netutil/socket_stream.h"
#include "gpupool/netutil/tcp.h"

namespace gpupool::faultproxy {
namespace {

constexpr std::chrono::seconds kClientTimeout{5};

std::string http_answer(const ControlAnswer& a) {
  std::string out = "HTTP/1.1 " + std::to_string(a.status) + " " + netutil::reason_phrase(a.status) + "\r\n";
  out.append("Content-Type: application/json\r\nContent-Length: ").append(std::to_string(a.body.size() + 1));
  out.append("\r\nConnection: close\r\n\r\n").append(a.body).append("\n");
  return out;
}

}  // namespace

ControlServer::ControlServer(const std::string& listen, Handler handler) : handler_(std::move(handler)) {
  const netutil::HostPort where = netutil::parse_host_port(listen);
  listen_fd_ = netutil::listen_tcp(where.host, where.port, 16, &port_);
  url_ = "http://" + netutil::url_host(where.host) + ":" + std::to_string(port_);
  stop_fd_ = ::eventfd(0, EFD_CLOEXEC);
  if (stop_fd_ < 0) {
    ::close(listen_fd_);
    throw std::runtime_error(std::string("control port: eventfd: ") + std::strerror(errno));
  }
  thread_ = std::thread([this] { serve(); });
}

ControlServer::~ControlServer() {
  stop();
  ::close(listen_fd_);
  ::close(stop_fd_);
}

void ControlServer::stop() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
    if (current_fd_ >= 0) ::shutdown(current_fd_, SHUT_RDWR);
  }
  const std::uint64_t one = 1;
  [[maybe_unused]] const ssize_t n = ::write(stop_fd_, &one, sizeof one);
  if (thread_.joinable()) thread_.join();
}

void ControlServer::serve() {
  netutil::block_sigpipe_in_this_thread();
  for (;;) {
    pollfd fds[2] = {{listen_fd_, POLLIN, 0}, {stop_fd_, POLLIN, 0}};
    const int ready = ::poll(fds, 2, -1);
    if (ready < 0 && errno == EINTR) continue;
    if (ready < 0 || (fds[1].revents & POLLIN) != 0) return;
    const int fd = netutil::accept_tcp(listen_fd_);
    if (fd < 0) continue;
    {
      std::lock_guard lock(mu_);
      if (stopping_) {
        ::close(fd);
        return;
      }
      current_fd_ = fd;
    }
    serve_one(fd);
    std::lock_guard lock(mu_);
    current_fd_ = -1;
    ::close(fd);
  }
}

void ControlServer::serve_one(int fd) {
  netutil::set_read_timeout(fd, kClientTimeout);
  netutil::set_write_timeout(fd, kClientTimeout);
  netutil::SocketStream stream(fd, nullptr);
  netutil::HttpRequestReader reader;
  std::string buffer;
  netutil::HttpRequestReader::Result result;
  bool sent_continue = false;
  while ((result = reader.feed(buffer)) == netutil::HttpRequestReader::Result::NeedMore) {
    if (!sent_continue && reader.expects_continue()) {
      if (!stream.write_all("HTTP/1.1 100 Continue\r\n\r\n")) return;
      sent_continue = true;
    }
    if (!stream.read_some(buffer)) return;
  }
  ControlAnswer answer;
  if (result == netutil::HttpRequestReader::Result::Malformed) {
    answer = {400, R"({"error":"malformed HTTP request"})"};
  } else {
    try {
      answer = handler_(reader.take());
    } catch (const std::exception& e) {
      std::string body = R"({"error":)";
      netutil::append_json_string(body, e.what());
      answer = {500, body + "}"};
    }
  }
  stream.write_all(http_answer(answer));
  stream.close_gracefully();
}

}  // namespace gpupool::faultproxy
