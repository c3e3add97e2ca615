// Runs one AMD tool command for the AMD backend and turns every way it can
// fail into a BackendError (codes in amd_backend.h). Internal.
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "gpupool/backend/backend.h"

namespace gpupool::backend::amd {

class Tool {
 public:
  // `name` as commands are shown in messages: "amd-smi", "rocm-smi".
  Tool(std::string name, std::string path, std::chrono::milliseconds timeout);

  // Runs `name args...`; returns stdout. Throws BackendError when the command
  // cannot start, times out, dies of a signal or exits non-zero ("exit N",
  // message: "`amd-smi set -g 0 --compute-partition CPX` exited with status 1: <stderr>").
  std::string run(const std::vector<std::string>& args) const { return run(args, timeout_); }
  // `stdin_text`: the answer to a prompt (amd-smi asks "Do you accept these
  // terms? [Y/N]" before a memory partition change reloads the driver).
  std::string run(const std::vector<std::string>& args, std::chrono::milliseconds timeout,
                  const std::string& stdin_text = "") const;

  // "amd-smi set -g 0 --compute-partition CPX"
  std::string command_line(const std::vector<std::string>& args) const;
  const std::string& name() const { return name_; }
  std::chrono::milliseconds timeout() const { return timeout_; }

 private:
  std::string name_;
  std::string path_;
  std::chrono::milliseconds timeout_;
};

// The parse error of a command's output as BackendError "parse".
[[noreturn]] void throw_parse_error(const std::string& parser_error);

// The first "[AMDSMI_STATUS_...]" amd-smi printed ("" when none).
std::string amdsmi_status_in(const std::string& output);

}  // namespace gpupool::backend::amd
