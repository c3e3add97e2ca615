#include "gpupool/metrics/http_endpoint.h"

#include <sys/socket.h>

#include <cerrno>
#include <exception>
#include <latch>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <system_error>
#include <thread>
#include <vector>

#include <httplib.h>
#include <spdlog/spdlog.h>

#include "gpupool/metrics/bind_address.h"
#include "gpupool/metrics/exposition.h"

namespace gpupool::metrics {
namespace {

constexpr std::size_t kWorkerThreads = 4;
// Bounds on how long a connection can keep stop() waiting (see the header).
constexpr time_t kKeepAliveSeconds = 1;
constexpr time_t kIoTimeoutSeconds = 5;

constexpr const char* kPlainText = "text/plain; charset=utf-8";

bool is_valid_path(std::string_view path) {
  if (!path.starts_with('/')) return false;
  for (char c : path) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '/' ||
                    c == '_' || c == '.' || c == '-';
    if (!ok) return false;
  }
  return true;
}

// httplib matches routes as whole-path regular expressions.
std::string path_pattern(std::string_view path) {
  std::string out;
  for (char c : path) {
    if (c == '.') out += '\\';
    out += c;
  }
  return out;
}

void not_found(httplib::Response& res) {
  res.status = 404;
  res.set_content("404 page not found\n", kPlainText);
}

}  // namespace

struct HttpEndpoint::Impl {
  std::string address;  // as given, for messages
  std::optional<BindAddress> bind;
  httplib::Server server;
  std::thread thread;
  bool started = false;
  int port = 0;
  std::mutex stop_mu;
  // Counted down once httplib's accept loop runs (it asks for its task queue
  // right after marking itself running, so from then on stop() reaches it),
  // or once listening ended without getting there.
  std::latch accepting{1};
  std::once_flag accepting_once;

  void signal_accepting() {
    std::call_once(accepting_once, [this] { accepting.count_down(); });
  }

  void check_route(const std::string& path) const {
    if (started) throw std::logic_error("HTTP endpoint " + address + ": route " + path + " added after start()");
    if (!is_valid_path(path)) throw std::invalid_argument("HTTP endpoint " + address + ": invalid path \"" + path + "\"");
  }
};

HttpEndpoint::HttpEndpoint(std::string_view bind_address) : impl_(std::make_unique<Impl>()) {
  impl_->address = std::string(bind_address);
  impl_->bind = parse_bind_address(bind_address);

  auto& server = impl_->server;
  server.new_task_queue = [impl = impl_.get()] {
    impl->signal_accepting();
    return new httplib::ThreadPool(kWorkerThreads);
  };
  // httplib's default is SO_REUSEPORT, which would let a second process bind
  // the same port and take half the scrapes; SO_REUSEADDR (as Go's listeners
  // use) only allows rebinding over connections in TIME_WAIT.
  server.set_socket_options([](socket_t sock) {
    int yes = 1;
    ::setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
  });
  server.set_keep_alive_timeout(kKeepAliveSeconds);
  server.set_read_timeout(kIoTimeoutSeconds, 0);
  server.set_write_timeout(kIoTimeoutSeconds, 0);
  server.set_error_handler([](const httplib::Request&, httplib::Response& res) {
    if (res.status == 404 && res.body.empty()) not_found(res);
  });
  server.set_exception_handler(
      [address = impl_->address](const httplib::Request& req, httplib::Response& res, std::exception_ptr error) {
        std::string what = "unknown exception";
        try {
          std::rethrow_exception(error);
        } catch (const std::exception& e) {
          what = e.what();
        } catch (...) {
        }
        spdlog::error("HTTP endpoint {}: {} {}: {}", address, req.method, req.path, what);
        res.status = 500;
        res.set_content("internal server error\n", kPlainText);
      });
}

HttpEndpoint::~HttpEndpoint() { stop(); }

void HttpEndpoint::serve_metrics(const Registry& registry, std::string path) {
  impl_->check_route(path);
  impl_->server.Get(path_pattern(path), [&registry](const httplib::Request&, httplib::Response& res) {
    static const std::string content_type(kTextContentType);
    res.set_content(render_text(registry), content_type.c_str());
  });
}

void HttpEndpoint::serve_checks(std::string path, const HealthChecks& checks) {
  impl_->check_route(path);
  impl_->server.Get(path_pattern(path), [&checks](const httplib::Request& req, httplib::Response& res) {
    std::vector<std::string> exclude;
    const std::size_t excluded = req.get_param_value_count("exclude");
    for (std::size_t i = 0; i < excluded; ++i) exclude.push_back(req.get_param_value("exclude", i));
    const HealthReport report = checks.run(req.has_param("verbose"), exclude);
    res.status = report.status;
    res.set_content(report.body, kPlainText);
  });
  impl_->server.Get(path_pattern(path) + "/([^/]+)", [&checks](const httplib::Request& req, httplib::Response& res) {
    const auto report = checks.run_one(req.matches[1].str());
    if (!report) return not_found(res);
    res.status = report->status;
    res.set_content(report->body, kPlainText);
  });
}

void HttpEndpoint::start() {
  Impl& impl = *impl_;
  if (!impl.bind) return;
  if (impl.started) throw std::logic_error("HTTP endpoint " + impl.address + " started twice");
  impl.started = true;

  const std::string host = impl.bind->host.empty() ? "0.0.0.0" : impl.bind->host;
  errno = 0;
  int port = impl.bind->port;
  if (port == 0) {
    port = impl.server.bind_to_any_port(host);
  } else if (!impl.server.bind_to_port(host, port)) {
    port = -1;
  }
  if (port <= 0) {
    const int error = errno;
    std::string message = "HTTP endpoint: cannot listen on " + impl.address;
    if (error != 0) message += ": " + std::error_code(error, std::generic_category()).message();
    throw std::runtime_error(message);
  }
  impl.port = port;
  impl.thread = std::thread([&impl] {
    if (!impl.server.listen_after_bind()) spdlog::error("HTTP endpoint {}: stopped accepting connections", impl.address);
    impl.signal_accepting();
  });
  impl.accepting.wait();
}

void HttpEndpoint::stop() {
  std::lock_guard lock(impl_->stop_mu);
  if (!impl_->thread.joinable()) return;
  impl_->server.stop();
  impl_->thread.join();
}

bool HttpEndpoint::enabled() const { return impl_->bind.has_value(); }

int HttpEndpoint::port() const { return impl_->port; }

}  // namespace gpupool::metrics
