#include "client_session.h"

#include <chrono>
#include <memory>
#include <optional>
#include <string>

#include "fault_answer.h"
#include "gpupool/netutil/http_request_reader.h"
#include "gpupool/netutil/socket_stream.h"
#include "gpupool/netutil/tcp.h"
#include "io_wait.h"
#include "response_relay.h"
#include "upstream_request.h"

namespace gpupool::faultproxy {
namespace {

using netutil::HttpRequestReader;
using netutil::RecordedRequest;
using netutil::SocketStream;

// A partly sent request or a TLS handshake may take this long between bytes.
constexpr std::chrono::seconds kReadTimeout{30};
constexpr std::chrono::seconds kWriteTimeout{30};

enum class Next { Continue, Stop };

class Session {
 public:
  Session(ProxyState& state, Link& link)
      : s_(state), link_(link), client_(link.client_fd(), state.client_tls.get()) {}
  ~Session() { drop_upstream(); }
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  void run();

 private:
  // Reads the next request into `request`; false when the connection ends.
  bool read_request(RecordedRequest& request, bool& keep_alive);
  Next handle(const RecordedRequest& request, bool keep_alive);
  Next forward(const RecordedRequest& request, bool keep_alive, std::uint64_t cut_after_bytes);
  // Opens the upstream connection; false with `error` when it cannot.
  bool connect_upstream(std::string& error);
  void drop_upstream();
  Next fail_gateway(const std::string& error);
  void cut();  // ends the connection abruptly

  ProxyState& s_;
  Link& link_;
  SocketStream client_;
  std::string client_buffer_;
  std::unique_ptr<SocketStream> upstream_;
  std::string upstream_buffer_;
};

void Session::run() {
  netutil::set_read_timeout(link_.client_fd(), kReadTimeout);
  netutil::set_write_timeout(link_.client_fd(), kWriteTimeout);
  if (!client_.handshake()) return;
  for (;;) {
    RecordedRequest request;
    bool keep_alive = true;
    if (!read_request(request, keep_alive)) return;
    if (handle(request, keep_alive) == Next::Stop) return;
  }
}

bool Session::read_request(RecordedRequest& request, bool& keep_alive) {
  HttpRequestReader reader;
  bool sent_continue = false;
  HttpRequestReader::Result result;
  while ((result = reader.feed(client_buffer_)) == HttpRequestReader::Result::NeedMore) {
    if (!sent_continue && reader.expects_continue()) {
      if (!client_.write_all("HTTP/1.1 100 Continue\r\n\r\n")) return false;
      sent_continue = true;
    }
    // Between requests the connection may idle; within one, bytes must keep coming.
    const bool idle = client_buffer_.empty() && !reader.head_done();
    const auto timeout = idle ? s_.options.idle_timeout : std::chrono::milliseconds(kReadTimeout);
    if (wait_readable(client_, nullptr, timeout) != Wake::Readable) {
      if (idle) client_.close_gracefully();
      return false;
    }
    if (!client_.read_some(client_buffer_)) return false;  // closed, failed, or cut
  }
  if (result == HttpRequestReader::Result::Malformed) {
    client_.write_all(proxy_error_response(400, "BadRequest", "malformed HTTP request: " + reader.error()));
    client_.close_gracefully();
    return false;
  }
  keep_alive = reader.keep_alive();
  request = reader.take();
  ++s_.counters.requests;
  return true;
}

Next Session::handle(const RecordedRequest& request, bool keep_alive) {
  if (s_.plan.refusing()) {  // the refusal began while this connection was open
    ++s_.counters.cut;
    cut();
    return Next::Stop;
  }
  const Decision decision = s_.plan.decide(request.method, request.path, request.query);
  if (decision.delay.count() > 0) {
    ++s_.counters.delayed;
    if (!sleep_unless_gone(client_, decision.delay)) return Next::Stop;
  }
  if (decision.fault && decision.fault->kind == Fault::Kind::Status) {
    ++s_.counters.injected;
    if (!client_.write_all(injected_response(*decision.fault, request.method, request.path, keep_alive))) {
      return Next::Stop;
    }
    if (keep_alive) return Next::Continue;
    client_.close_gracefully();
    return Next::Stop;
  }
  std::uint64_t cut_after_bytes = 0;
  if (decision.fault && decision.fault->kind == Fault::Kind::Cut) {
    if (decision.fault->cut_after_bytes == 0) {
      ++s_.counters.cut;
      cut();
      return Next::Stop;
    }
    cut_after_bytes = decision.fault->cut_after_bytes;
  }
  return forward(request, keep_alive, cut_after_bytes);
}

Next Session::forward(const RecordedRequest& request, bool keep_alive, std::uint64_t cut_after_bytes) {
  const std::string wire = upstream_request(request, keep_alive);
  // A kept-alive upstream connection may have closed meanwhile: then the
  // request goes once more on a fresh one, as HTTP clients do.
  for (int attempt = 0; attempt < 2; ++attempt) {
    const bool fresh = !upstream_;
    if (fresh) {
      std::string error;
      if (!connect_upstream(error)) return link_.was_cut() ? Next::Stop : fail_gateway(error);
    }
    if (!upstream_->write_all(wire)) {
      drop_upstream();
      if (link_.was_cut()) return Next::Stop;
      if (fresh) return fail_gateway("the upstream closed the connection");
      continue;
    }
    ++s_.counters.forwarded;
    const RelayResult r = relay_response(*upstream_, upstream_buffer_, client_, request.method == "HEAD",
                                         cut_after_bytes);
    switch (r.end) {
      case RelayResult::End::Complete:
        if (!r.upstream_reusable) drop_upstream();
        if (r.keep_alive && keep_alive) return Next::Continue;
        client_.close_gracefully();
        return Next::Stop;
      case RelayResult::End::NoResponse:
        drop_upstream();
        if (link_.was_cut()) return Next::Stop;
        if (fresh) return fail_gateway("the upstream closed the connection without answering");
        continue;
      case RelayResult::End::ClientGone:
        return Next::Stop;
      case RelayResult::End::CutByFault:
        ++s_.counters.cut;
        cut();
        return Next::Stop;
      case RelayResult::End::Failed:
        cut();  // pass the upstream's failure on
        return Next::Stop;
    }
  }
  return fail_gateway("the upstream closed the connection without answering");
}

bool Session::connect_upstream(std::string& error) {
  const UpstreamTarget& target = s_.upstream;
  const int fd = netutil::connect_tcp(target.host, target.port, s_.options.connect_timeout, &error);
  if (fd < 0) return false;
  netutil::set_read_timeout(fd, kReadTimeout);
  netutil::set_write_timeout(fd, kWriteTimeout);
  if (!link_.attach_upstream(fd)) {
    error = "cut";
    return false;
  }
  upstream_ = std::make_unique<SocketStream>(fd, s_.upstream_tls.get());
  upstream_buffer_.clear();
  if (!upstream_->connect_handshake(target.host, &error)) {
    drop_upstream();
    return false;
  }
  return true;
}

void Session::drop_upstream() {
  if (!upstream_) return;
  upstream_.reset();
  upstream_buffer_.clear();
  link_.close_upstream();
}

Next Session::fail_gateway(const std::string& error) {
  ++s_.counters.upstream_errors;
  const std::string where = s_.options.upstream_url;
  client_.write_all(proxy_error_response(502, "ServiceUnavailable", "fault proxy: upstream " + where + ": " + error));
  client_.close_gracefully();
  return Next::Stop;
}

void Session::cut() {
  client_.cut();
  link_.mark_cut();
}

}  // namespace

void serve_client(ProxyState& state, Link& link) {
  try {
    Session(state, link).run();
  } catch (const std::exception&) {
    link.mark_cut();  // out of memory and the like: end this connection, not the process
  }
}

}  // namespace gpupool::faultproxy
