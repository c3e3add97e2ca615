// The fault proxy's client connections: one thread each, the descriptors of
// the client socket and of its upstream socket, and cutting them from
// another thread.
//
// Descriptors are closed only under the registry's lock and only by the
// registry, so a cut from another thread never shuts down a descriptor number
// that was already reused. A serving thread ends by returning; the registry
// then closes both sockets (the client one with a TCP reset when the link was
// cut) and joins the thread at the next start() or at stop().
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <list>
#include <mutex>
#include <thread>

namespace gpupool::faultproxy {

class ConnectionRegistry;

// One client connection as its serving thread sees it.
class Link {
 public:
  int client_fd() const { return client_fd_; }
  // Hands the upstream socket to the registry (which closes it from now on).
  // False when the link was cut meanwhile: `fd` is then closed already.
  bool attach_upstream(int fd);
  // Closes the attached upstream socket (its stream must be gone).
  void close_upstream();
  // Whether the link was cut (cut_all, stop, or mark_cut).
  bool was_cut() const;
  // The serving thread cuts its own link: both sockets are shut down now and
  // the client one is reset when the thread returns.
  void mark_cut();

 private:
  friend class ConnectionRegistry;
  Link(ConnectionRegistry* registry, int client_fd) : registry_(registry), client_fd_(client_fd) {}

  ConnectionRegistry* registry_;
  int client_fd_;         // closed by the registry after the thread returned
  int upstream_fd_ = -1;  // guarded by the registry's lock
  bool cut_ = false;      // guarded by the registry's lock
  bool done_ = false;     // guarded by the registry's lock
  std::thread thread_;
};

class ConnectionRegistry {
 public:
  explicit ConnectionRegistry(std::size_t max_connections) : max_(max_connections) {}
  ~ConnectionRegistry();  // stop()
  ConnectionRegistry(const ConnectionRegistry&) = delete;
  ConnectionRegistry& operator=(const ConnectionRegistry&) = delete;

  // Runs `serve` on a new thread for the accepted socket `fd`, which the
  // registry then owns. False when full or stopped: `fd` is left to the caller.
  bool start(int fd, std::function<void(Link&)> serve);
  // Cuts every open link; returns how many.
  std::size_t cut_all();
  std::size_t open() const;
  // Refuses new links, cuts the open ones and joins every thread. Idempotent.
  void stop();

 private:
  friend class Link;
  static void shut(const Link& link);  // shutdown(SHUT_RDWR) of both sockets; under mu_
  void finish(Link& link);             // closes the sockets once the thread returned
  void reap();                         // joins finished threads; under mu_

  const std::size_t max_;
  mutable std::mutex mu_;
  bool stopped_ = false;
  std::list<Link> links_;
};

}  // namespace gpupool::faultproxy
