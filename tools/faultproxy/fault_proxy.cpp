// FaultProxy: lifecycle, the accept loop and the commands (see fault_proxy.h).
#include "gpupool/faultproxy/fault_proxy.h"

#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <thread>
#include <utility>

#include "client_session.h"
#include "control_server.h"
#include "gpupool/netutil/tcp.h"
#include "proxy_state.h"

namespace gpupool::faultproxy {

namespace {

constexpr int kBacklog = 128;

void signal_eventfd(int fd) {
  const std::uint64_t one = 1;
  [[maybe_unused]] const ssize_t n = ::write(fd, &one, sizeof one);
}

}  // namespace

class FaultProxy::Impl {
 public:
  explicit Impl(Options options) : state(std::move(options)) {}
  Impl(const Impl&) = delete;
  Impl& operator=(const Impl&) = delete;
  ~Impl() {
    for (const int fd : {listen_fd, stop_fd, wake_fd}) {
      if (fd >= 0) ::close(fd);
    }
  }

  void accept_loop();
  void accept_one();
  // Refusing: stop listening, so that the kernel refuses connection attempts.
  void stop_listening();
  // The refusal is over: listen again (false when that failed; the accept
  // loop then retries).
  bool resume_listening();

  ProxyState state;
  int listen_fd = -1;
  int stop_fd = -1;  // eventfd: readable once stop() was called
  int wake_fd = -1;  // eventfd: the refusal changed
  int port = 0;
  std::string url_host;  // the listen address as a URL names it
  std::unique_ptr<ControlServer> control;
  std::thread acceptor;
  bool stopped = false;

  std::mutex listen_mu;
  bool listening = true;  // guarded by listen_mu
};

void FaultProxy::Impl::stop_listening() {
  std::lock_guard lock(listen_mu);
  // When that fails the socket keeps listening, and the accept loop resets
  // what it accepts while refusing.
  if (listening) listening = !netutil::stop_listening(listen_fd);
}

bool FaultProxy::Impl::resume_listening() {
  std::lock_guard lock(listen_mu);
  if (!listening) listening = ::listen(listen_fd, kBacklog) == 0;
  return listening;
}

void FaultProxy::Impl::accept_one() {
  const int fd = netutil::accept_tcp(listen_fd);
  if (fd < 0) return;  // the client gave up already, the socket stopped listening, or a transient error
  if (state.plan.refusing() || !state.connections.start(fd, [this](Link& link) { serve_client(state, link); })) {
    ++state.counters.refused;
    netutil::close_with_reset(fd);
    return;
  }
  ++state.counters.connections;
}

void FaultProxy::Impl::accept_loop() {
  for (;;) {
    const std::chrono::milliseconds refusal = state.plan.refusal_left();
    bool is_listening = false;
    if (refusal.count() == 0) {
      is_listening = resume_listening();
    } else {
      std::lock_guard lock(listen_mu);
      is_listening = listening;
    }
    // While refusing, wake when the refusal ends; if listening again failed, retry soon.
    const int timeout = refusal.count() > 0 ? static_cast<int>(std::min<std::int64_t>(refusal.count(), 60'000))
                                            : is_listening ? -1 : 100;
    pollfd fds[3] = {{is_listening ? listen_fd : -1, POLLIN, 0}, {stop_fd, POLLIN, 0}, {wake_fd, POLLIN, 0}};
    const int ready = ::poll(fds, 3, timeout);
    if (ready < 0 && errno != EINTR) return;
    if ((fds[1].revents & POLLIN) != 0) return;
    if ((fds[2].revents & POLLIN) != 0) {
      std::uint64_t count = 0;
      [[maybe_unused]] const ssize_t n = ::read(wake_fd, &count, sizeof count);
    }
    if ((fds[0].revents & POLLIN) != 0) accept_one();
    // POLLHUP on the listening socket: it stopped listening; the next round sees why.
  }
}

FaultProxy::FaultProxy(Options options) : impl_(std::make_unique<Impl>(std::move(options))) {
  Impl& p = *impl_;
  const netutil::HostPort where = netutil::parse_host_port(p.state.options.listen);
  p.listen_fd = netutil::listen_tcp(where.host, where.port, kBacklog, &p.port);
  p.url_host = netutil::url_host(where.host);
  p.stop_fd = ::eventfd(0, EFD_CLOEXEC);
  p.wake_fd = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (p.stop_fd < 0 || p.wake_fd < 0) {
    throw std::runtime_error(std::string("fault proxy: eventfd: ") + std::strerror(errno));
  }
  if (!p.state.options.control_listen.empty()) {
    p.control = std::make_unique<ControlServer>(
        p.state.options.control_listen, [this](const netutil::RecordedRequest& r) { return handle_control(*this, r); });
  }
  p.acceptor = std::thread([&p] { p.accept_loop(); });
}

FaultProxy::~FaultProxy() { stop(); }

void FaultProxy::stop() {
  Impl& p = *impl_;
  if (p.stopped) return;
  p.stopped = true;
  if (p.control) p.control->stop();
  signal_eventfd(p.stop_fd);
  if (p.acceptor.joinable()) p.acceptor.join();
  p.state.connections.stop();
}

std::string FaultProxy::url() const {
  return std::string(impl_->state.client_tls ? "https" : "http") + "://" + impl_->url_host + ":" +
         std::to_string(impl_->port);
}

int FaultProxy::port() const { return impl_->port; }

int FaultProxy::control_port() const { return impl_->control ? impl_->control->port() : 0; }

std::string FaultProxy::control_url() const {
  return impl_->control ? impl_->control->url() : "";
}

std::size_t FaultProxy::cut_connections() {
  const std::size_t n = impl_->state.connections.cut_all();
  impl_->state.counters.cut += n;
  return n;
}

void FaultProxy::set_delay(std::chrono::milliseconds delay) { impl_->state.plan.set_delay(delay); }

void FaultProxy::set_error_share(int status, double share, int retry_after_seconds, Match match) {
  impl_->state.plan.set_error_share(status, share, retry_after_seconds, std::move(match));
}

void FaultProxy::fail_next(int status, int count, Match match) {
  add_rule(Rule{std::move(match), Fault::error(status), count});
}

void FaultProxy::add_rule(Rule rule) { impl_->state.plan.add_rule(std::move(rule)); }

void FaultProxy::refuse_for(std::chrono::milliseconds duration) {
  impl_->state.plan.refuse_for(duration);
  if (duration.count() > 0) {
    impl_->stop_listening();
    cut_connections();
  } else {
    impl_->resume_listening();
  }
  signal_eventfd(impl_->wake_fd);
}

void FaultProxy::set_seed(std::uint64_t seed) { impl_->state.plan.set_seed(seed); }

void FaultProxy::reset() {
  impl_->state.plan.reset();
  impl_->resume_listening();  // if it was refusing
  signal_eventfd(impl_->wake_fd);
}

Stats FaultProxy::stats() const {
  const Counters& c = impl_->state.counters;
  Stats s;
  s.connections = c.connections;
  s.open_connections = impl_->state.connections.open();
  s.refused = c.refused;
  s.requests = c.requests;
  s.forwarded = c.forwarded;
  s.injected = c.injected;
  s.delayed = c.delayed;
  s.cut = c.cut;
  s.upstream_errors = c.upstream_errors;
  return s;
}

}  // namespace gpupool::faultproxy
