// Runs nvidia-smi with arguments and turns failures into BackendError
// (private to lib/backend/nvidia_smi).
#pragma once

#include <chrono>
#include <string>
#include <vector>

namespace gpupool::backend::nvsmi {

struct CommandOutput {
  int exit_code = 0;
  std::string out;
  std::string err;
};

class NvidiaSmiCommand {
 public:
  NvidiaSmiCommand(std::string path, std::chrono::milliseconds timeout) : path_(std::move(path)), timeout_(timeout) {}

  // Runs it to the end. Throws BackendError "not-found" (no executable / it
  // cannot be started), "timeout", "signal N" (killed by a signal) or "parse"
  // (more output than a parser accepts); a non-zero exit is returned.
  CommandOutput run_any_exit(const std::vector<std::string>& args) const;
  // As run_any_exit, and a non-zero exit throws BackendError "exit N" naming
  // the command and its stderr (stdout when stderr is empty). Returns stdout.
  std::string run(const std::vector<std::string>& args) const;
  // "nvidia-smi mig -i 0 -lgi": for messages.
  static std::string describe(const std::vector<std::string>& args);
  // The BackendError("exit N") `run` throws for `output`.
  static void throw_exit(const std::vector<std::string>& args, const CommandOutput& output);

 private:
  std::string path_;
  std::chrono::milliseconds timeout_;
};

}  // namespace gpupool::backend::nvsmi
