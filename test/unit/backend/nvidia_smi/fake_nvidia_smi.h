// A fake nvidia-smi for backend tests: a /bin/sh script in a temporary
// directory that prints canned output for each exact argument list, exits
// with the status given, and appends every argument list it was run with to
// a log the test reads back. Unexpected arguments exit 99.
#pragma once

#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace gpupool::backend::nvsmi::testing {

class FakeNvidiaSmi {
 public:
  FakeNvidiaSmi() {
    std::string templ = (std::filesystem::temp_directory_path() / "fake-nvidia-smi-XXXXXX").string();
    if (::mkdtemp(templ.data()) == nullptr) ADD_FAILURE() << "mkdtemp failed";
    dir_ = templ;
  }
  ~FakeNvidiaSmi() {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
  FakeNvidiaSmi(const FakeNvidiaSmi&) = delete;
  FakeNvidiaSmi& operator=(const FakeNvidiaSmi&) = delete;

  // `args` joined by single spaces, as "$*" shows them.
  void respond(const std::string& args, const std::string& out, int exit_code = 0, const std::string& err = "") {
    responses_.push_back({args, out, err, exit_code, ""});
  }
  // Runs `shell` (e.g. "exec sleep 10") for `args` instead of printing.
  void respond_with_shell(const std::string& args, const std::string& shell) {
    responses_.push_back({args, "", "", 0, shell});
  }

  // Writes the script; returns its path.
  std::string install() {
    std::string script = "#!/bin/sh\nprintf '%s\\n' \"$*\" >> '" + log_path() + "'\ncase \"$*\" in\n";
    for (std::size_t i = 0; i < responses_.size(); ++i) {
      const Response& r = responses_[i];
      const std::string out = dir_ + "/out" + std::to_string(i), err = dir_ + "/err" + std::to_string(i);
      write(out, r.out);
      write(err, r.err);
      script += "'" + r.args + "') ";
      if (!r.shell.empty()) {
        script += r.shell + " ;;\n";
      } else {
        script += "cat '" + out + "'; cat '" + err + "' >&2; exit " + std::to_string(r.exit_code) + " ;;\n";
      }
    }
    script += "*) echo \"fake nvidia-smi: unexpected arguments: $*\" >&2; exit 99 ;;\nesac\n";
    const std::string path = dir_ + "/nvidia-smi";
    write(path, script);
    ::chmod(path.c_str(), 0755);
    return path;
  }

  // Every argument list the script was run with, in order.
  std::vector<std::string> calls() const {
    std::vector<std::string> out;
    std::ifstream in(log_path());
    for (std::string line; std::getline(in, line);) out.push_back(line);
    return out;
  }

  const std::string& dir() const { return dir_; }

 private:
  struct Response {
    std::string args, out, err;
    int exit_code;
    std::string shell;
  };
  std::string dir_;
  std::vector<Response> responses_;

  std::string log_path() const { return dir_ + "/calls.log"; }
  static void write(const std::string& path, const std::string& content) {
    std::ofstream f(path, std::ios::binary | std::ios::trunc);
    f << content;
    if (!f) ADD_FAILURE() << "cannot write " << path;
  }
};

}  // namespace gpupool::backend::nvsmi::testing
