#include "amd_tool.h"

#include <cstdlib>

#include "gpupool/backend/amd_parse.h"
#include "gpupool/common/subprocess.h"

namespace gpupool::backend::amd {

namespace {

constexpr std::size_t kMaxMessageOutput = 2000;

// The environment the tools get: what they need to find Python and the ROCm
// libraries, and a UTF-8 locale (they print "°C" and fail under ASCII ones).
std::vector<std::string> tool_environment() {
  std::vector<std::string> env;
  for (const char* name : {"PATH", "LD_LIBRARY_PATH", "PYTHONPATH", "HOME", "ROCM_PATH"}) {
    if (const char* value = std::getenv(name)) env.push_back(std::string(name) + "=" + value);
  }
  env.emplace_back("LC_ALL=C.UTF-8");
  env.emplace_back("PYTHONIOENCODING=utf-8");
  return env;
}

std::string trimmed(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r' || s.back() == ' ')) s.pop_back();
  if (s.size() > kMaxMessageOutput) s = "..." + s.substr(s.size() - kMaxMessageOutput);
  return s;
}

}  // namespace

Tool::Tool(std::string name, std::string path, std::chrono::milliseconds timeout)
    : name_(std::move(name)), path_(std::move(path)), timeout_(timeout) {}

std::string Tool::command_line(const std::vector<std::string>& args) const {
  std::string line = name_;
  for (const auto& a : args) line += " " + a;
  return line;
}

std::string Tool::run(const std::vector<std::string>& args, std::chrono::milliseconds timeout,
                      const std::string& stdin_text) const {
  std::vector<std::string> argv{path_};
  argv.insert(argv.end(), args.begin(), args.end());
  const std::string shown = "`" + command_line(args) + "`";
  common::ProcessOptions options;
  options.timeout = timeout;
  options.max_output = amdsmi::kMaxInputBytes;
  options.stdin_text = stdin_text;
  const common::ProcessResult r = common::run_process(path_, argv, tool_environment(), options);
  if (!r.started) throw BackendError("not-found", shown + ": cannot start " + path_ + ": " + r.start_error);
  if (r.timed_out) {
    throw BackendError("timeout", shown + " did not finish within " + std::to_string(timeout.count()) + " ms");
  }
  if (!r.exited) {
    throw BackendError("signal " + std::to_string(r.signal),
                       shown + " was killed by signal " + std::to_string(r.signal) + ": " + trimmed(r.err));
  }
  if (r.exit_code != 0) {
    std::string detail = trimmed(r.err);
    if (detail.empty()) detail = trimmed(r.out);  // amd-smi prints some failures on stdout
    if (r.out.find("Do you accept these terms") != std::string::npos) {
      detail = stdin_text.empty()
                   ? "it asked for confirmation on stdin, which was not given; " + detail
                   : "it asked for confirmation and did not take the answer given on stdin; " + detail;
    }
    throw BackendError("exit " + std::to_string(r.exit_code),
                       shown + " exited with status " + std::to_string(r.exit_code) + ": " + detail);
  }
  if (r.out_truncated) {
    throw BackendError("parse", shown + " printed more than " + std::to_string(amdsmi::kMaxInputBytes) + " bytes");
  }
  return r.out;
}

void throw_parse_error(const std::string& parser_error) { throw BackendError("parse", parser_error); }

std::string amdsmi_status_in(const std::string& output) {
  const std::string marker = "[AMDSMI_STATUS_";
  const auto start = output.find(marker);
  if (start == std::string::npos) return "";
  const auto end = output.find(']', start);
  if (end == std::string::npos || end - start > 64) return "";
  return output.substr(start + 1, end - start - 1);
}

}  // namespace gpupool::backend::amd
