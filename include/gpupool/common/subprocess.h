// Runs a program to completion without a shell and captures its output
// (exec credential plugins, vendor GPU tools, driver installer commands).
#pragma once

#include <chrono>
#include <cstddef>
#include <stop_token>
#include <string>
#include <vector>

namespace gpupool::common {

struct ProcessResult {
  bool started = false;
  std::string start_error;  // why it could not be started (strerror text)
  bool timed_out = false;   // killed (with its process group) at the deadline
  bool cancelled = false;   // killed (with its process group) because stop was requested
  bool exited = false;      // exited normally with exit_code
  int exit_code = 0;
  int signal = 0;           // the terminating signal when it did not exit
  std::string out;          // stdout, at most max_output bytes
  std::string err;          // stderr, at most max_output bytes
  bool out_truncated = false;
};

struct ProcessOptions {
  std::chrono::milliseconds timeout{std::chrono::seconds(30)};
  std::size_t max_output = 1 << 20;  // per stream
  // Keep the last max_output bytes of each stream instead of the first (an
  // installer's last lines say why it failed).
  bool keep_tail = false;
  std::stop_token stop;  // once requested, the child's process group is killed (checked every 100 ms)
  // The child's stdin, then end of file (a tool's confirmation prompt: "Y\n").
  // At most 4096 bytes (it is written into the pipe before the child starts);
  // empty: /dev/null.
  std::string stdin_text;
};

// Starts `program` (a path: no $PATH search) with `argv` (argv[0] included)
// and exactly the environment `env` ("NAME=value"). stdin is /dev/null, or
// options.stdin_text. The
// child gets its own process group so a timeout can kill what it started.
ProcessResult run_process(const std::string& program, const std::vector<std::string>& argv,
                          const std::vector<std::string>& env, const ProcessOptions& options);
// The same with the first max_output bytes kept and no stop token.
ProcessResult run_process(const std::string& program, const std::vector<std::string>& argv,
                          const std::vector<std::string>& env, std::chrono::milliseconds timeout,
                          std::size_t max_output);

// The first executable file named `name` in the directories of `path_list`
// ($PATH syntax); empty when there is none. Relative directories are skipped.
std::string find_in_path(const std::string& name, const std::string& path_list);

}  // namespace gpupool::common
