// Turns SIGINT and SIGTERM into a std::stop_token. Construct it first in
// main(), before any thread starts, so every thread inherits the blocked mask
// and only the watcher thread receives those signals.
#pragma once

#include <atomic>
#include <stop_token>
#include <thread>

namespace gpupool {

class ShutdownSignal {
 public:
  ShutdownSignal();
  ~ShutdownSignal();
  ShutdownSignal(const ShutdownSignal&) = delete;
  ShutdownSignal& operator=(const ShutdownSignal&) = delete;

  std::stop_token token() const { return source_.get_token(); }
  // Which signal arrived (0 if none yet, or the stop was requested in code).
  int signal() const { return signal_.load(); }
  // Asks for shutdown from code, as a signal would.
  void request_stop() { source_.request_stop(); }

 private:
  std::stop_source source_;
  std::atomic<int> signal_{0};
  std::jthread watcher_;
};

}  // namespace gpupool
