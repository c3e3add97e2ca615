// Child processes that cannot outlive their owner.
//
// Every child is forked from one dedicated thread that lives as long as the
// process, with PR_SET_PDEATHSIG set in the child: the kernel sends that
// signal when the forking *thread* exits, so forking from a short-lived thread
// would kill the child early, and forking from any thread of a process that
// dies delivers it. The child gets default signal dispositions, an empty
// signal mask and no inherited file descriptors beyond 0, 1 and 2.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <csignal>
#include <optional>
#include <string>
#include <vector>

#include "gpupool/testenv/control_plane.h"  // CommandResult

namespace gpupool::testenv {

struct SpawnSpec {
  std::string path;                // executable, absolute or found on $PATH
  std::vector<std::string> args;   // argv[1..]
  std::vector<std::string> env;    // "NAME=VALUE" set on top of the environment
  std::string log_file;            // stdout and stderr appended here; empty: inherited
  bool new_process_group = true;   // so a terminal's ^C does not reach it directly
  int death_signal = SIGKILL;      // sent when the owner dies; 0: none
  // When >= 0, become the child's fd 0, 1 or 2 (over log_file). The caller
  // keeps ownership.
  int stdin_fd = -1;
  int stdout_fd = -1;
  int stderr_fd = -1;
};

// A running (or finished) child. Not copyable; the destructor kills and reaps
// a child still running.
class Process {
 public:
  Process() = default;
  // Forks and execs; returns once the child runs `spec.path` (or has
  // exited), so /proc/PID describes that program, never a copy of this one.
  // Throws std::runtime_error when the fork fails; an exec failure shows as
  // exit status 127 with a message in the log.
  static Process spawn(const SpawnSpec& spec);

  Process(Process&& other) noexcept;
  Process& operator=(Process&& other) noexcept;
  Process(const Process&) = delete;
  Process& operator=(const Process&) = delete;
  ~Process();

  pid_t pid() const { return pid_; }
  bool valid() const { return pid_ > 0; }
  // Reaps without blocking; true while the child has not exited.
  bool running();
  // Exit status once exited (128+N when killed by signal N).
  std::optional<int> exit_status() const { return status_; }
  // Sends `sig` (to the process group when the child leads one).
  void signal(int sig) const;
  // Blocks until exit or deadline; true if exited.
  bool wait_until(std::chrono::steady_clock::time_point deadline);
  // SIGTERM, wait up to `grace`, SIGKILL, reap. Returns the exit status.
  int terminate(std::chrono::milliseconds grace = std::chrono::seconds(10));

 private:
  pid_t pid_ = -1;
  bool group_ = false;
  std::optional<int> status_;
};

// Runs a command to completion, feeding `stdin_data` and capturing stdout and
// stderr. Killed (status 128+9) when it runs past `timeout`.
CommandResult run_command(const std::string& path, const std::vector<std::string>& args,
                          const std::string& stdin_data = "",
                          std::chrono::milliseconds timeout = std::chrono::minutes(5),
                          const std::vector<std::string>& env = {});

}  // namespace gpupool::testenv
