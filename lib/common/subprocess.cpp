#include "gpupool/common/subprocess.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace gpupool::common {

namespace {

using Clock = std::chrono::steady_clock;

class Fd {
 public:
  Fd() = default;
  explicit Fd(int fd) : fd_(fd) {}
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() { reset(); }
  int get() const { return fd_; }
  void reset(int fd = -1) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = fd;
  }

 private:
  int fd_ = -1;
};

struct Pipe {
  Fd read;
  Fd write;
};

bool make_pipe(Pipe& p) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return false;
  p.read.reset(fds[0]);
  p.write.reset(fds[1]);
  return true;
}

std::vector<char*> c_strings(const std::vector<std::string>& v) {
  std::vector<char*> out;
  out.reserve(v.size() + 1);
  for (const auto& s : v) out.push_back(const_cast<char*>(s.c_str()));
  out.push_back(nullptr);
  return out;
}

int remaining_ms(Clock::time_point deadline) {
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
  if (left <= 0) return 0;
  return left > 60000 ? 60000 : static_cast<int>(left);
}

void record_status(ProcessResult& r, int status) {
  if (WIFEXITED(status)) {
    r.exited = true;
    r.exit_code = WEXITSTATUS(status);
  } else if (WIFSIGNALED(status)) {
    r.signal = WTERMSIG(status);
  }
}

}  // namespace

ProcessResult run_process(const std::string& program, const std::vector<std::string>& argv,
                          const std::vector<std::string>& env, std::chrono::milliseconds timeout,
                          std::size_t max_output) {
  ProcessOptions options;
  options.timeout = timeout;
  options.max_output = max_output;
  return run_process(program, argv, env, options);
}

ProcessResult run_process(const std::string& program, const std::vector<std::string>& argv,
                          const std::vector<std::string>& env, const ProcessOptions& options) {
  const std::size_t max_output = options.max_output;
  ProcessResult result;
  Pipe out, err, in;
  if (!make_pipe(out) || !make_pipe(err)) {
    result.start_error = std::strerror(errno);
    return result;
  }
  if (!options.stdin_text.empty()) {
    // Written whole before the child exists: no SIGPIPE, no blocking (a pipe holds at least 4096 bytes).
    if (options.stdin_text.size() > 4096) {
      result.start_error = "stdin text longer than 4096 bytes";
      return result;
    }
    if (!make_pipe(in) ||
        ::write(in.write.get(), options.stdin_text.data(), options.stdin_text.size()) !=
            static_cast<ssize_t>(options.stdin_text.size())) {
      result.start_error = std::strerror(errno);
      return result;
    }
    in.write.reset();
  }

  // posix_spawn rather than fork: safe in a multithreaded process, and it
  // reports exec failures (ENOENT, EACCES) as its return value.
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  if (options.stdin_text.empty()) {
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  } else {
    posix_spawn_file_actions_adddup2(&actions, in.read.get(), 0);
  }
  posix_spawn_file_actions_adddup2(&actions, out.write.get(), 1);
  posix_spawn_file_actions_adddup2(&actions, err.write.get(), 2);

  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  sigset_t empty, defaults;
  sigemptyset(&empty);
  sigemptyset(&defaults);
  sigaddset(&defaults, SIGPIPE);  // the parent may ignore SIGPIPE; the plugin should not inherit that
  posix_spawnattr_setsigmask(&attr, &empty);
  posix_spawnattr_setsigdefault(&attr, &defaults);
  posix_spawnattr_setpgroup(&attr, 0);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP);

  std::vector<char*> c_argv = c_strings(argv);
  std::vector<char*> c_env = c_strings(env);
  pid_t pid = -1;
  const int rc = posix_spawn(&pid, program.c_str(), &actions, &attr, c_argv.data(), c_env.data());
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  if (rc != 0) {
    result.start_error = std::strerror(rc);
    return result;
  }
  result.started = true;
  in.read.reset();
  out.write.reset();
  err.write.reset();

  const auto deadline = Clock::now() + options.timeout;
  // poll in short slices while a stop can be requested
  const auto wait_ms = [&] {
    const int left = remaining_ms(deadline);
    return options.stop.stop_possible() && left > 100 ? 100 : left;
  };
  const auto give_up = [&] {
    if (options.stop.stop_requested()) result.cancelled = true;
    return result.timed_out || result.cancelled;
  };
  bool out_open = true, err_open = true;
  char buf[8192];
  while ((out_open || err_open) && !give_up()) {
    pollfd fds[2];
    nfds_t n = 0;
    if (out_open) fds[n++] = {out.read.get(), POLLIN, 0};
    if (err_open) fds[n++] = {err.read.get(), POLLIN, 0};
    const int ready = ::poll(fds, n, wait_ms());
    if (ready < 0) {
      if (errno == EINTR) continue;
      break;  // poll failed: stop reading, still reap the child
    }
    if (ready == 0) {
      result.timed_out = remaining_ms(deadline) == 0;
      continue;
    }
    for (nfds_t i = 0; i < n; ++i) {
      if (fds[i].revents == 0) continue;
      const bool is_out = fds[i].fd == out.read.get();
      const ssize_t got = ::read(fds[i].fd, buf, sizeof buf);
      if (got < 0 && (errno == EINTR || errno == EAGAIN)) continue;
      if (got <= 0) {
        (is_out ? out_open : err_open) = false;
        continue;
      }
      std::string& dst = is_out ? result.out : result.err;
      if (options.keep_tail) {
        dst.append(buf, static_cast<std::size_t>(got));
        if (dst.size() > max_output) {
          dst.erase(0, dst.size() - max_output);
          if (is_out) result.out_truncated = true;
        }
        continue;
      }
      const std::size_t room = max_output > dst.size() ? max_output - dst.size() : 0;
      const std::size_t take = static_cast<std::size_t>(got) < room ? static_cast<std::size_t>(got) : room;
      dst.append(buf, take);
      if (is_out && take < static_cast<std::size_t>(got)) result.out_truncated = true;
    }
  }

  // Both pipes are closed (or time is up): reap the child, waiting out the
  // rest of the deadline for one that closed its output but keeps running.
  int status = 0;
  while (!give_up()) {
    const pid_t w = ::waitpid(pid, &status, WNOHANG);
    if (w == pid) {
      record_status(result, status);
      return result;
    }
    if (w < 0 && errno != EINTR) return result;  // reaped elsewhere (ECHILD): status unknown
    if (remaining_ms(deadline) == 0) {
      result.timed_out = true;
      break;
    }
    ::poll(nullptr, 0, 5);
  }
  ::kill(-pid, SIGKILL);
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return result;
}

std::string find_in_path(const std::string& name, const std::string& path_list) {
  std::size_t start = 0;
  while (start <= path_list.size()) {
    std::size_t end = path_list.find(':', start);
    if (end == std::string::npos) end = path_list.size();
    const std::string dir = path_list.substr(start, end - start);
    start = end + 1;
    if (dir.empty() || dir.front() != '/') continue;
    const std::string candidate = dir + "/" + name;
    struct stat st {};
    if (::stat(candidate.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(candidate.c_str(), X_OK) == 0) {
      return candidate;
    }
  }
  return {};
}

}  // namespace gpupool::common
