#include "nvidia_smi_command.h"

#include "gpupool/backend/backend.h"
#include "gpupool/backend/nvidia_smi_parse.h"
#include "gpupool/common/subprocess.h"

namespace gpupool::backend::nvsmi {

namespace {

std::string trimmed(const std::string& s) {
  const auto first = s.find_first_not_of(" \t\r\n");
  if (first == std::string::npos) return "";
  const auto last = s.find_last_not_of(" \t\r\n");
  std::string out = s.substr(first, last - first + 1);
  if (out.size() > 2000) out = out.substr(0, 2000) + "...";
  return out;
}

}  // namespace

std::string NvidiaSmiCommand::describe(const std::vector<std::string>& args) {
  std::string out = "nvidia-smi";
  for (const auto& a : args) out += " " + a;
  return out;
}

void NvidiaSmiCommand::throw_exit(const std::vector<std::string>& args, const CommandOutput& output) {
  std::string said = trimmed(output.err);
  if (said.empty()) said = trimmed(output.out);
  throw BackendError("exit " + std::to_string(output.exit_code),
                     describe(args) + " failed with exit status " + std::to_string(output.exit_code) +
                         (said.empty() ? std::string() : ": " + said));
}

CommandOutput NvidiaSmiCommand::run_any_exit(const std::vector<std::string>& args) const {
  if (path_.empty()) throw BackendError("not-found", "cannot run " + describe(args) + ": no nvidia-smi in $PATH");
  std::vector<std::string> argv{path_};
  argv.insert(argv.end(), args.begin(), args.end());
  const common::ProcessResult r =
      common::run_process(path_, argv, {"PATH=/usr/sbin:/usr/bin:/sbin:/bin", "LC_ALL=C"}, timeout_, kMaxInputBytes + 1);
  if (!r.started) throw BackendError("not-found", "cannot run " + path_ + ": " + r.start_error);
  if (r.timed_out) {
    throw BackendError("timeout", describe(args) + " did not finish within " + std::to_string(timeout_.count()) + " ms");
  }
  if (!r.exited) {
    throw BackendError("signal " + std::to_string(r.signal),
                       describe(args) + " was killed by signal " + std::to_string(r.signal));
  }
  if (r.out_truncated || r.out.size() > kMaxInputBytes) {
    throw BackendError("parse", describe(args) + " printed more than " + std::to_string(kMaxInputBytes) + " bytes");
  }
  return CommandOutput{r.exit_code, r.out, r.err};
}

std::string NvidiaSmiCommand::run(const std::vector<std::string>& args) const {
  CommandOutput output = run_any_exit(args);
  if (output.exit_code != 0) throw_exit(args, output);
  return std::move(output.out);
}

}  // namespace gpupool::backend::nvsmi
