#include "gpupool/common/shutdown.h"

#include <pthread.h>
#include <signal.h>

#include <cerrno>
#include <ctime>

namespace gpupool {

namespace {

sigset_t shutdown_signals() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  return set;
}

}  // namespace

ShutdownSignal::ShutdownSignal() {
  sigset_t set = shutdown_signals();
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  watcher_ = std::jthread([this](std::stop_token self) {
    sigset_t wanted = shutdown_signals();
    // sigtimedwait so the thread notices its own stop at destruction.
    timespec tick{0, 200 * 1000 * 1000};
    while (!self.stop_requested()) {
      int sig = sigtimedwait(&wanted, nullptr, &tick);
      if (sig > 0) {
        signal_.store(sig);
        source_.request_stop();
      }
    }
  });
}

ShutdownSignal::~ShutdownSignal() {
  watcher_.request_stop();
  watcher_.join();
}

}  // namespace gpupool
