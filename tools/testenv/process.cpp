#include "gpupool/testenv/process.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <functional>
#include <future>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <utility>

extern char** environ;

namespace gpupool::testenv {

namespace {

// The one thread that forks. It is never joined: it must outlive every child
// it forks, because the kernel delivers PR_SET_PDEATHSIG when it exits.
class Spawner {
 public:
  static Spawner& instance() {
    static Spawner* spawner = new Spawner;  // never destroyed, on purpose
    return *spawner;
  }

  pid_t run(std::function<pid_t()> fork_fn) {
    std::packaged_task<pid_t()> task(std::move(fork_fn));
    auto result = task.get_future();
    {
      std::lock_guard lock(mu_);
      queue_.push_back(std::move(task));
    }
    cv_.notify_one();
    return result.get();
  }

 private:
  Spawner() { std::thread([this] { loop(); }).detach(); }

  [[noreturn]] void loop() {
    for (;;) {
      std::packaged_task<pid_t()> task;
      {
        std::unique_lock lock(mu_);
        cv_.wait(lock, [this] { return !queue_.empty(); });
        task = std::move(queue_.front());
        queue_.pop_front();
      }
      task();
    }
  }

  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::packaged_task<pid_t()>> queue_;
};

int decode_status(int wstatus) {
  if (WIFEXITED(wstatus)) return WEXITSTATUS(wstatus);
  if (WIFSIGNALED(wstatus)) return 128 + WTERMSIG(wstatus);
  return -1;
}

std::string resolve_executable(const std::string& path) {
  if (path.find('/') != std::string::npos) return path;
  const char* env_path = std::getenv("PATH");
  std::string dirs = env_path ? env_path : "/usr/bin:/bin";
  size_t start = 0;
  while (start <= dirs.size()) {
    size_t end = dirs.find(':', start);
    if (end == std::string::npos) end = dirs.size();
    std::string dir = dirs.substr(start, end - start);
    if (dir.empty()) dir = ".";
    std::string candidate = dir + "/" + path;
    if (::access(candidate.c_str(), X_OK) == 0) return candidate;
    start = end + 1;
  }
  return path;  // execve fails; the child reports it
}

// The environment: ours, with each "NAME=VALUE" of `overrides` replacing or adding.
std::vector<std::string> merged_environment(const std::vector<std::string>& overrides) {
  std::vector<std::string> env;
  auto name_of = [](const std::string& kv) { return kv.substr(0, kv.find('=')); };
  for (char** e = environ; e && *e; ++e) {
    std::string kv = *e;
    bool replaced = false;
    for (const auto& o : overrides) replaced = replaced || name_of(o) == name_of(kv);
    if (!replaced) env.push_back(std::move(kv));
  }
  env.insert(env.end(), overrides.begin(), overrides.end());
  return env;
}

struct Prepared {
  std::string path;
  std::vector<std::string> arg_storage, env_storage;
  std::vector<char*> argv, envp;
  int in = -1, out = -1, err = -1;
  bool group = true;
  int death_signal = SIGKILL;
  pid_t parent = -1;
  int exec_fd = -1;  // write end of a close-on-exec pipe: open until execve
};

// Runs in the forked child: async-signal-safe calls only.
[[noreturn]] void exec_child(const Prepared& p) {
  if (p.group) ::setpgid(0, 0);
  if (p.death_signal != 0) {
    if (::prctl(PR_SET_PDEATHSIG, p.death_signal) != 0) ::_exit(127);
    if (::getppid() != p.parent) ::_exit(127);  // the owner died before prctl
  }
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  for (int sig : {SIGPIPE, SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGCHLD, SIGUSR1, SIGUSR2, SIGTTIN, SIGTTOU}) {
    ::signal(sig, SIG_DFL);
  }
  int in = p.in >= 0 ? p.in : ::open("/dev/null", O_RDONLY);
  if (in < 0 || ::dup2(in, 0) < 0) ::_exit(127);
  if (p.out >= 0 && ::dup2(p.out, 1) < 0) ::_exit(127);
  if (p.err >= 0 && ::dup2(p.err, 2) < 0) ::_exit(127);
  // Every other descriptor closed; exec_fd (close-on-exec) stays until the
  // execve succeeds or the child exits.
  if (p.exec_fd > 3) ::close_range(3, static_cast<unsigned>(p.exec_fd) - 1, 0);
  ::close_range(static_cast<unsigned>(std::max(p.exec_fd, 2)) + 1, ~0U, 0);
  ::execve(p.path.c_str(), p.argv.data(), p.envp.data());
  const char msg[] = "process: exec failed: ";
  (void)!::write(2, msg, sizeof msg - 1);
  (void)!::write(2, p.path.c_str(), p.path.size());
  (void)!::write(2, "\n", 1);
  ::_exit(127);
}

}  // namespace

Process Process::spawn(const SpawnSpec& spec) {
  Prepared p;
  p.path = resolve_executable(spec.path);
  p.arg_storage.push_back(spec.path);
  p.arg_storage.insert(p.arg_storage.end(), spec.args.begin(), spec.args.end());
  p.env_storage = merged_environment(spec.env);
  for (auto& a : p.arg_storage) p.argv.push_back(a.data());
  p.argv.push_back(nullptr);
  for (auto& e : p.env_storage) p.envp.push_back(e.data());
  p.envp.push_back(nullptr);
  p.group = spec.new_process_group;
  p.death_signal = spec.death_signal;
  p.parent = ::getpid();

  int log_fd = -1;
  if (!spec.log_file.empty()) {
    log_fd = ::open(spec.log_file.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (log_fd < 0) {
      throw std::runtime_error("cannot open log file " + spec.log_file + ": " + std::strerror(errno));
    }
  }
  p.in = spec.stdin_fd;
  p.out = spec.stdout_fd >= 0 ? spec.stdout_fd : log_fd;
  p.err = spec.stderr_fd >= 0 ? spec.stderr_fd : log_fd;

  // Returns only once the child has exec'd (or exited): until then it is a
  // copy of this process, and what /proc says about it (VmHWM: a benchmark
  // read this process's size there as the controller's peak) is ours.
  int exec_pipe[2] = {-1, -1};
  if (::pipe2(exec_pipe, O_CLOEXEC) != 0) {
    const int e = errno;
    if (log_fd >= 0) ::close(log_fd);
    throw std::runtime_error("pipe failed for " + spec.path + ": " + std::strerror(e));
  }
  p.exec_fd = exec_pipe[1];
  int fork_errno = 0;
  pid_t pid = Spawner::instance().run([&p, &fork_errno] {
    pid_t child = ::fork();
    if (child == 0) exec_child(p);
    if (child < 0) fork_errno = errno;
    return child;
  });
  if (log_fd >= 0) ::close(log_fd);
  ::close(exec_pipe[1]);
  if (pid > 0) {
    char byte = 0;
    while (::read(exec_pipe[0], &byte, 1) < 0 && errno == EINTR) {
    }
  }
  ::close(exec_pipe[0]);
  if (pid < 0) throw std::runtime_error("fork failed for " + spec.path + ": " + std::strerror(fork_errno));
  // Also from the parent, so a signal to the group cannot race the child's setpgid.
  if (p.group) ::setpgid(pid, pid);

  Process proc;
  proc.pid_ = pid;
  proc.group_ = p.group;
  return proc;
}

Process::Process(Process&& other) noexcept
    : pid_(std::exchange(other.pid_, -1)), group_(other.group_), status_(std::exchange(other.status_, std::nullopt)) {}

Process& Process::operator=(Process&& other) noexcept {
  if (this != &other) {
    if (valid() && !status_) terminate(std::chrono::milliseconds(0));
    pid_ = std::exchange(other.pid_, -1);
    group_ = other.group_;
    status_ = std::exchange(other.status_, std::nullopt);
  }
  return *this;
}

Process::~Process() {
  if (valid() && !status_) terminate(std::chrono::milliseconds(0));
}

bool Process::running() {
  if (!valid() || status_) return false;
  int wstatus = 0;
  pid_t r = ::waitpid(pid_, &wstatus, WNOHANG);
  if (r == pid_) {
    status_ = decode_status(wstatus);
    return false;
  }
  if (r < 0 && errno == ECHILD) {  // reaped elsewhere; treat as gone
    status_ = -1;
    return false;
  }
  return true;
}

void Process::signal(int sig) const {
  if (!valid() || status_) return;  // never signal a reaped (possibly reused) pid
  ::kill(group_ ? -pid_ : pid_, sig);
}

bool Process::wait_until(std::chrono::steady_clock::time_point deadline) {
  auto pause = std::chrono::milliseconds(5);
  while (running()) {
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::milliseconds(50));
  }
  return true;
}

int Process::terminate(std::chrono::milliseconds grace) {
  if (!valid()) return -1;
  if (running()) {
    if (grace.count() > 0) {
      signal(SIGTERM);
      wait_until(std::chrono::steady_clock::now() + grace);
    }
    if (running()) {
      signal(SIGKILL);
      int wstatus = 0;
      pid_t r;
      do {
        r = ::waitpid(pid_, &wstatus, 0);
      } while (r < 0 && errno == EINTR);
      status_ = r == pid_ ? decode_status(wstatus) : -1;
    }
  }
  return status_.value_or(-1);
}

CommandResult run_command(const std::string& path, const std::vector<std::string>& args,
                          const std::string& stdin_data, std::chrono::milliseconds timeout,
                          const std::vector<std::string>& env) {
  // stdin is a socket so that writing to a child that exited early fails with
  // EPIPE (MSG_NOSIGNAL) instead of raising SIGPIPE in this process.
  int in_pair[2], out_pipe[2], err_pipe[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, in_pair) != 0) {
    throw std::runtime_error(std::string("socketpair: ") + std::strerror(errno));
  }
  if (::pipe2(out_pipe, O_CLOEXEC) != 0 || ::pipe2(err_pipe, O_CLOEXEC) != 0) {
    throw std::runtime_error(std::string("pipe2: ") + std::strerror(errno));
  }
  SpawnSpec spec;
  spec.path = path;
  spec.args = args;
  spec.env = env;
  spec.stdin_fd = in_pair[1];
  spec.stdout_fd = out_pipe[1];
  spec.stderr_fd = err_pipe[1];
  Process proc;
  try {
    proc = Process::spawn(spec);
  } catch (...) {
    for (int fd : {in_pair[0], in_pair[1], out_pipe[0], out_pipe[1], err_pipe[0], err_pipe[1]}) ::close(fd);
    throw;
  }
  ::close(in_pair[1]);
  ::close(out_pipe[1]);
  ::close(err_pipe[1]);

  CommandResult result;
  int in_fd = in_pair[0];
  size_t written = 0;
  if (stdin_data.empty()) {
    ::close(in_fd);
    in_fd = -1;
  }
  int out_fd = out_pipe[0], err_fd = err_pipe[0];
  auto deadline = std::chrono::steady_clock::now() + timeout;
  bool timed_out = false;
  while (out_fd >= 0 || err_fd >= 0) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      timed_out = true;
      break;
    }
    pollfd fds[3];
    int n = 0;
    if (in_fd >= 0) fds[n++] = {in_fd, POLLOUT, 0};
    if (out_fd >= 0) fds[n++] = {out_fd, POLLIN, 0};
    if (err_fd >= 0) fds[n++] = {err_fd, POLLIN, 0};
    int r = ::poll(fds, static_cast<nfds_t>(n), static_cast<int>(std::min<long long>(left.count(), 1000)));
    if (r < 0 && errno != EINTR) break;
    for (int i = 0; i < n && r > 0; ++i) {
      if (fds[i].revents == 0) continue;
      if (fds[i].fd == in_fd) {
        ssize_t w = ::send(in_fd, stdin_data.data() + written, stdin_data.size() - written,
                           MSG_NOSIGNAL | MSG_DONTWAIT);
        if (w > 0) written += static_cast<size_t>(w);
        if ((w < 0 && errno != EAGAIN && errno != EINTR) || written == stdin_data.size()) {
          ::close(in_fd);  // EOF for the child
          in_fd = -1;
        }
        continue;
      }
      char buf[16384];
      ssize_t got = ::read(fds[i].fd, buf, sizeof buf);
      if (got > 0) {
        (fds[i].fd == out_fd ? result.out : result.err).append(buf, static_cast<size_t>(got));
      } else if (got == 0 || (errno != EINTR && errno != EAGAIN)) {
        ::close(fds[i].fd);
        (fds[i].fd == out_fd ? out_fd : err_fd) = -1;
      }
    }
  }
  for (int fd : {in_fd, out_fd, err_fd}) {
    if (fd >= 0) ::close(fd);
  }
  if (timed_out) {
    proc.terminate(std::chrono::milliseconds(0));
    result.status = 128 + SIGKILL;
    result.err += "\n(killed after " + std::to_string(timeout.count()) + " ms)";
    return result;
  }
  if (!proc.wait_until(deadline)) proc.terminate(std::chrono::milliseconds(0));
  result.status = proc.exit_status().value_or(-1);
  return result;
}

}  // namespace gpupool::testenv
