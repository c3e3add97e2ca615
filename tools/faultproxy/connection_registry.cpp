#include "connection_registry.h"

#include <sys/socket.h>
#include <unistd.h>

#include <utility>

#include "gpupool/netutil/tcp.h"

namespace gpupool::faultproxy {

bool Link::attach_upstream(int fd) {
  std::lock_guard lock(registry_->mu_);
  if (cut_) {
    ::close(fd);
    return false;
  }
  upstream_fd_ = fd;
  return true;
}

void Link::close_upstream() {
  std::lock_guard lock(registry_->mu_);
  if (upstream_fd_ >= 0) ::close(upstream_fd_);
  upstream_fd_ = -1;
}

bool Link::was_cut() const {
  std::lock_guard lock(registry_->mu_);
  return cut_;
}

void Link::mark_cut() {
  std::lock_guard lock(registry_->mu_);
  cut_ = true;
  ConnectionRegistry::shut(*this);
}

ConnectionRegistry::~ConnectionRegistry() { stop(); }

void ConnectionRegistry::shut(const Link& link) {
  ::shutdown(link.client_fd_, SHUT_RDWR);
  if (link.upstream_fd_ >= 0) ::shutdown(link.upstream_fd_, SHUT_RDWR);
}

bool ConnectionRegistry::start(int fd, std::function<void(Link&)> serve) {
  std::lock_guard lock(mu_);
  reap();
  if (stopped_ || links_.size() >= max_) return false;
  Link& link = links_.emplace_back(Link(this, fd));
  link.thread_ = std::thread([this, &link, serve = std::move(serve)] {
    netutil::block_sigpipe_in_this_thread();
    serve(link);
    finish(link);
  });
  return true;
}

void ConnectionRegistry::finish(Link& link) {
  std::lock_guard lock(mu_);
  if (link.upstream_fd_ >= 0) ::close(link.upstream_fd_);
  link.upstream_fd_ = -1;
  if (link.cut_) {
    netutil::close_with_reset(link.client_fd_);
  } else {
    ::close(link.client_fd_);
  }
  link.client_fd_ = -1;
  link.done_ = true;
}

void ConnectionRegistry::reap() {
  for (auto it = links_.begin(); it != links_.end();) {
    if (it->done_) {
      it->thread_.join();  // it has returned from finish() or is about to
      it = links_.erase(it);
    } else {
      ++it;
    }
  }
}

std::size_t ConnectionRegistry::cut_all() {
  std::lock_guard lock(mu_);
  std::size_t n = 0;
  for (Link& link : links_) {
    if (link.done_ || link.cut_) continue;
    link.cut_ = true;
    shut(link);
    ++n;
  }
  return n;
}

std::size_t ConnectionRegistry::open() const {
  std::lock_guard lock(mu_);
  std::size_t n = 0;
  for (const Link& link : links_) n += link.done_ ? 0 : 1;
  return n;
}

void ConnectionRegistry::stop() {
  std::list<Link> all;
  {
    std::lock_guard lock(mu_);
    stopped_ = true;
    for (Link& link : links_) {
      if (link.done_) continue;
      link.cut_ = true;
      shut(link);
    }
    all.splice(all.end(), links_);
  }
  for (Link& link : all) {
    if (link.thread_.joinable()) link.thread_.join();
  }
}

}  // namespace gpupool::faultproxy
