#include "support/scripted_server.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <condition_variable>
#include <cstdint>
#include <cstring>
#include <deque>
#include <limits>
#include <list>
#include <mutex>
#include <stdexcept>
#include <thread>

#include "gpupool/netutil/socket_stream.h"
#include "gpupool/netutil/tcp.h"
#include "gpupool/netutil/tls_certs.h"
#include "gpupool/netutil/tls_context.h"

namespace gpupool::test {
namespace {

using netutil::HttpRequestReader;
using netutil::reason_phrase;
using netutil::SocketStream;

constexpr std::chrono::seconds kIdleTimeout{30};  // a read waits at most this long
constexpr std::chrono::seconds kWriteTimeout{10};

[[noreturn]] void fail_errno(const char* what) {
  throw std::runtime_error(std::string("scripted server: ") + what + ": " + std::strerror(errno));
}

bool iequals(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         });
}

// Status line and header fields, up to and including the empty line.
std::string response_head(const Step& step, bool streamed, bool close) {
  std::string head = "HTTP/1.1 " + std::to_string(step.status) + " " + reason_phrase(step.status) + "\r\n";
  bool has_content_type = false;
  for (const auto& [name, value] : step.headers) {
    if (iequals(name, "content-length") || iequals(name, "transfer-encoding")) continue;  // ours to set
    has_content_type = has_content_type || iequals(name, "content-type");
    head.append(name).append(": ").append(value).append("\r\n");
  }
  if (!has_content_type) head.append("Content-Type: application/json\r\n");
  if (streamed) {
    head.append("Transfer-Encoding: chunked\r\n");
  } else {
    head.append("Content-Length: ").append(std::to_string(step.body.size())).append("\r\n");
  }
  if (close) head.append("Connection: close\r\n");
  head.append("\r\n");
  return head;
}

std::string chunk_header(std::size_t size) {
  char text[24];
  std::snprintf(text, sizeof text, "%zx\r\n", size);
  return text;
}

bool matches(const Step& step, const RecordedRequest& request) {
  return (step.method.empty() || step.method == request.method) &&
         request.path.compare(0, step.path_prefix.size(), step.path_prefix) == 0 &&
         (step.query_contains.empty() || request.query.find(step.query_contains) != std::string::npos);
}

// How a connection goes on after one answer.
enum class After { KeepAlive, Close, Cut };

}  // namespace

struct ScriptedServer::Impl {
  struct Connection {
    int fd;  // -1 once closed; guarded by mu
    std::thread thread;
  };

  Options options;
  netutil::TestCertificates certs;
  netutil::SslCtxPtr tls;
  int listen_fd = -1;
  int wake_pipe[2] = {-1, -1};
  int port = 0;
  std::thread acceptor;

  mutable std::mutex mu;
  mutable std::condition_variable changed;  // requests recorded, release(), stop()
  bool stopping = false;
  std::uint64_t release_generation = 0;
  std::deque<Step> steps;
  Step default_step = status_step(404, "NotFound", "the server could not find the requested resource");
  std::vector<RecordedRequest> recorded;
  std::size_t accepted = 0;
  std::list<Connection> connections;

  Impl() = default;
  Impl(const Impl&) = delete;
  Impl& operator=(const Impl&) = delete;
  ~Impl() {  // threads are joined by then (stop(), or a constructor that failed before starting them)
    for (const int fd : {listen_fd, wake_pipe[0], wake_pipe[1]}) {
      if (fd >= 0) ::close(fd);
    }
  }

  void accept_loop();
  void serve(Connection* connection);
  After serve_one(SocketStream& stream, std::string& buffer);
  After answer(SocketStream& stream, const RecordedRequest& request, const Step& step, std::uint64_t generation,
               bool keep_alive);
  // Waits `d` unless stop() comes first; false when stopping.
  bool pause(std::chrono::milliseconds d);
  // Waits for release() after `generation`, stop(), or the hold limit; false when stopping.
  bool wait_released(std::uint64_t generation);
};

// ---- lifecycle ---------------------------------------------------------------

ScriptedServer::ScriptedServer() : ScriptedServer(Options{}) {}

ScriptedServer::ScriptedServer(Options options) : impl_(std::make_unique<Impl>()) {
  Impl& s = *impl_;
  s.options = options;
  if (options.tls) {
    s.certs = netutil::make_test_certificates();
    s.tls = netutil::make_server_tls_context(s.certs.server_cert_pem, s.certs.server_key_pem);
  }
  if (::pipe2(s.wake_pipe, O_CLOEXEC) != 0) fail_errno("pipe2");
  s.listen_fd = netutil::listen_tcp("127.0.0.1", 0, 64, &s.port);
  s.acceptor = std::thread([&s] { s.accept_loop(); });
}

ScriptedServer::~ScriptedServer() { stop(); }

void ScriptedServer::stop() {
  Impl& s = *impl_;
  {
    std::lock_guard lock(s.mu);
    s.stopping = true;
  }
  s.changed.notify_all();
  if (s.wake_pipe[1] >= 0) {
    const char byte = 0;
    [[maybe_unused]] const ssize_t n = ::write(s.wake_pipe[1], &byte, 1);
  }
  if (s.acceptor.joinable()) s.acceptor.join();
  // No connection is added any more: interrupt the blocked reads and writes.
  {
    std::lock_guard lock(s.mu);
    for (const auto& c : s.connections) {
      if (c.fd >= 0) ::shutdown(c.fd, SHUT_RDWR);
    }
  }
  for (auto& c : s.connections) {
    if (c.thread.joinable()) c.thread.join();
  }
}

std::string ScriptedServer::url() const {
  return std::string(impl_->options.tls ? "https" : "http") + "://127.0.0.1:" + std::to_string(impl_->port);
}

int ScriptedServer::port() const { return impl_->port; }

std::string ScriptedServer::ca_pem() const { return impl_->certs.ca_pem; }

// ---- script and record -------------------------------------------------------

void ScriptedServer::enqueue(Step step) {
  std::lock_guard lock(impl_->mu);
  impl_->steps.push_back(std::move(step));
}

void ScriptedServer::set_default(Step step) {
  std::lock_guard lock(impl_->mu);
  impl_->default_step = std::move(step);
}

std::size_t ScriptedServer::pending_steps() const {
  std::lock_guard lock(impl_->mu);
  return impl_->steps.size();
}

std::vector<RecordedRequest> ScriptedServer::requests() const {
  std::lock_guard lock(impl_->mu);
  return impl_->recorded;
}

bool ScriptedServer::wait_for_requests(std::size_t n, std::chrono::milliseconds timeout) const {
  std::unique_lock lock(impl_->mu);
  return impl_->changed.wait_for(lock, timeout, [&] { return impl_->recorded.size() >= n; });
}

std::size_t ScriptedServer::connection_count() const {
  std::lock_guard lock(impl_->mu);
  return impl_->accepted;
}

void ScriptedServer::release() {
  {
    std::lock_guard lock(impl_->mu);
    ++impl_->release_generation;
  }
  impl_->changed.notify_all();
}

bool ScriptedServer::Impl::pause(std::chrono::milliseconds d) {
  std::unique_lock lock(mu);
  return !changed.wait_for(lock, d, [&] { return stopping; });
}

bool ScriptedServer::Impl::wait_released(std::uint64_t generation) {
  std::unique_lock lock(mu);
  changed.wait_for(lock, options.hold_limit, [&] { return stopping || release_generation != generation; });
  return !stopping;
}

// ---- serving -----------------------------------------------------------------

void ScriptedServer::Impl::accept_loop() {
  netutil::block_sigpipe_in_this_thread();
  for (;;) {
    pollfd fds[2] = {{listen_fd, POLLIN, 0}, {wake_pipe[0], POLLIN, 0}};
    const int ready = ::poll(fds, 2, -1);  // the wake pipe ends it
    if (ready < 0 && errno == EINTR) continue;
    if (ready < 0 || (fds[1].revents & POLLIN) != 0) return;
    const int fd = netutil::accept_tcp(listen_fd);
    if (fd < 0) continue;  // the client gave up already, or a transient error
    netutil::set_read_timeout(fd, kIdleTimeout);
    netutil::set_write_timeout(fd, kWriteTimeout);
    std::lock_guard lock(mu);
    if (stopping) {
      ::close(fd);
      return;
    }
    ++accepted;
    Connection& c = connections.emplace_back(Connection{fd, {}});
    c.thread = std::thread([this, &c] { serve(&c); });
  }
}

void ScriptedServer::Impl::serve(Connection* connection) {
  netutil::block_sigpipe_in_this_thread();
  int fd = 0;
  {
    std::lock_guard lock(mu);
    fd = connection->fd;
  }
  {
    SocketStream stream(fd, tls.get());
    After after = stream.handshake() ? After::KeepAlive : After::Cut;
    std::string buffer;
    while (after == After::KeepAlive) after = serve_one(stream, buffer);
    if (after == After::Close) {
      stream.close_gracefully();
    } else {
      stream.cut();
    }
  }
  std::lock_guard lock(mu);
  ::close(connection->fd);
  connection->fd = -1;
}

After ScriptedServer::Impl::serve_one(SocketStream& stream, std::string& buffer) {
  HttpRequestReader reader;
  bool sent_continue = false;
  HttpRequestReader::Result result;
  while ((result = reader.feed(buffer)) == HttpRequestReader::Result::NeedMore) {
    if (!sent_continue && reader.expects_continue()) {
      if (!stream.write_all("HTTP/1.1 100 Continue\r\n\r\n")) return After::Cut;
      sent_continue = true;
    }
    if (!stream.read_some(buffer)) return After::Cut;  // peer gone, idle timeout or stop()
  }
  if (result == HttpRequestReader::Result::Malformed) {
    Step bad = status_step(400, "BadRequest", "malformed HTTP request: " + reader.error());
    stream.write_all(response_head(bad, false, true) + bad.body);
    return After::Close;
  }

  const bool keep_alive = reader.keep_alive();
  RecordedRequest request = reader.take();
  Step step;
  std::uint64_t generation = 0;
  {
    std::lock_guard lock(mu);
    recorded.push_back(request);
    generation = release_generation;
    const auto it = std::find_if(steps.begin(), steps.end(), [&](const Step& s) { return matches(s, request); });
    if (it != steps.end()) {
      step = std::move(*it);
      steps.erase(it);
    } else {
      step = default_step;
    }
  }
  changed.notify_all();
  return answer(stream, request, step, generation, keep_alive);
}

After ScriptedServer::Impl::answer(SocketStream& stream, const RecordedRequest& request, const Step& step,
                                   std::uint64_t generation, bool keep_alive) {
  if (step.delay.count() > 0 && !pause(step.delay)) return After::Cut;
  if (step.refuse) return After::Cut;
  if (step.hang) {
    wait_released(generation);
    return After::Cut;
  }

  const bool head_only = request.method == "HEAD";
  const bool streamed = !step.chunks.empty() || step.hold_open;
  const bool cut = step.cut_after_bytes.has_value();
  std::size_t budget = step.cut_after_bytes.value_or(std::numeric_limits<std::size_t>::max());
  const bool close = step.close_after || !keep_alive;
  const std::string head = response_head(step, streamed, close);

  if (!streamed) {
    const std::size_t n = head_only ? 0 : std::min(budget, step.body.size());
    if (!stream.write_all(head + step.body.substr(0, n))) return After::Cut;
    if (cut) return After::Cut;
    return close ? After::Close : After::KeepAlive;
  }

  if (!stream.write_all(head)) return After::Cut;
  if (head_only) return close ? After::Close : After::KeepAlive;
  std::vector<std::string_view> pieces;
  if (!step.body.empty()) pieces.emplace_back(step.body);
  for (const auto& chunk : step.chunks) {
    if (!chunk.empty()) pieces.emplace_back(chunk);  // an empty chunk would end the body
  }
  for (std::size_t i = 0; i < pieces.size(); ++i) {
    if (i > 0 && step.chunk_pause.count() > 0 && !pause(step.chunk_pause)) return After::Cut;
    const std::string_view piece = pieces[i];
    if (budget < piece.size()) {
      // Announce the whole chunk, send only its start: the cut lands mid-chunk.
      stream.write_all(chunk_header(piece.size()) + std::string(piece.substr(0, budget)));
      return After::Cut;
    }
    if (!stream.write_all(chunk_header(piece.size()) + std::string(piece) + "\r\n")) return After::Cut;
    budget -= piece.size();
  }
  if (cut) return After::Cut;
  if (step.hold_open && !wait_released(generation)) return After::Cut;
  if (!stream.write_all("0\r\n\r\n")) return After::Cut;
  return close ? After::Close : After::KeepAlive;
}

}  // namespace gpupool::test
