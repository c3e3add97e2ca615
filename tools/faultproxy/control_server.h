// The fault proxy's control port: plain HTTP/1.1 on a loopback address, one
// request per connection, served one connection at a time by one thread
// (the commands are quick), each answered as `handler` says with
// "Connection: close". A client that sends nothing for 5 s is dropped.
#pragma once

#include <functional>
#include <mutex>
#include <string>
#include <thread>

#include "control_commands.h"
#include "gpupool/netutil/http_request_reader.h"

namespace gpupool::faultproxy {

class ControlServer {
 public:
  using Handler = std::function<ControlAnswer(const netutil::RecordedRequest&)>;

  // Listens on `listen` ("HOST:PORT") and starts serving. Throws
  // std::invalid_argument for a bad address, std::runtime_error when it
  // cannot listen.
  ControlServer(const std::string& listen, Handler handler);
  ~ControlServer();  // stop()
  ControlServer(const ControlServer&) = delete;
  ControlServer& operator=(const ControlServer&) = delete;

  int port() const { return port_; }
  std::string url() const { return url_; }  // "http://HOST:PORT"
  // Stops accepting, ends the connection being served, joins. Idempotent.
  void stop();

 private:
  void serve();
  void serve_one(int fd);

  Handler handler_;
  int listen_fd_ = -1;
  int stop_fd_ = -1;  // eventfd: readable once stop() was called
  int port_ = 0;
  std::string url_;
  std::mutex mu_;
  int current_fd_ = -1;  // the connection being served; guarded by mu_
  bool stopping_ = false;  // guarded by mu_
  std::thread thread_;
};

}  // namespace gpupool::faultproxy
