// A fake amd-smi / rocm-smi for the backend tests: a shell script in a fresh
// temporary directory that answers each expected argument list with fixed
// output and exit status, and records every invocation, so tests assert the
// exact commands a backend ran.
#pragma once

#include <stdlib.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace gpupool::backend::amd_test {

struct Reply {
  Reply(std::string out_text, std::string err_text = "", int exit_status = 0, bool marks = false,
        std::string after = "")
      : out(std::move(out_text)),
        err(std::move(err_text)),
        exit(exit_status),
        marks_memory_set(marks),
        after_memory_set(std::move(after)) {}
  std::string out;
  std::string err;
  int exit = 0;
  bool marks_memory_set = false;   // later replies switch to their `after_memory_set`
  std::string after_memory_set;    // stdout once a memory-partition set ran ("" = same as out)
  // Asks "Do you accept these terms? [Y/N]" first and, unless it reads "Y",
  // fails as amd-smi does at end of input.
  bool confirm = false;
};

class FakeTool {
 public:
  FakeTool() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "gpupool-fake-amd-XXXXXX").string();
    if (mkdtemp(tmpl.data()) == nullptr) ADD_FAILURE() << "mkdtemp failed";
    dir_ = tmpl;
  }
  ~FakeTool() {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
  FakeTool(const FakeTool&) = delete;
  FakeTool& operator=(const FakeTool&) = delete;

  // Answers `args` (space-joined) with `reply`; anything else exits 2.
  void on(const std::string& args, Reply reply) { replies_.insert_or_assign(args, std::move(reply)); }

  // Writes the script; returns its path.
  std::string install() {
    std::ostringstream s;
    s << "#!/bin/sh\nprintf '%s\\n' \"$*\" >> '" << (dir_ / "calls.log").string() << "'\ncase \"$*\" in\n";
    int n = 0;
    for (const auto& [args, reply] : replies_) {
      const std::string base = (dir_ / ("r" + std::to_string(n++))).string();
      write(base + ".out", reply.out);
      write(base + ".err", reply.err);
      s << "  '" << args << "')\n";
      if (!reply.after_memory_set.empty()) {
        write(base + ".after", reply.after_memory_set);
        s << "    if [ -e '" << (dir_ / "memory-set").string() << "' ]; then cat '" << base << ".after'; exit "
          << reply.exit << "; fi\n";
      }
      if (reply.confirm) {
        s << "    printf 'Do you accept these terms? [Y/N] '; read answer || { echo 'EOFError: EOF when reading a "
             "line' >&2; exit 1; }; [ \"$answer\" = Y ] || { echo 'Confirmation not given. Exiting without "
             "setting' >&2; exit 1; }\n";
      }
      s << "    cat '" << base << ".out'; cat '" << base << ".err' >&2\n";
      if (reply.marks_memory_set) s << "    : > '" << (dir_ / "memory-set").string() << "'\n";
      s << "    exit " << reply.exit << " ;;\n";
    }
    s << "  *) echo \"fake tool: unexpected arguments: $*\" >&2; exit 2 ;;\nesac\n";
    const std::string path = (dir_ / "tool").string();
    write(path, s.str());
    ::chmod(path.c_str(), 0755);
    return path;
  }

  // Every invocation so far, one space-joined argument list each.
  std::vector<std::string> calls() const {
    std::vector<std::string> out;
    std::ifstream in(dir_ / "calls.log");
    for (std::string line; std::getline(in, line);) out.push_back(line);
    return out;
  }

  std::filesystem::path dir() const { return dir_; }

 private:
  static void write(const std::string& path, const std::string& text) {
    std::ofstream out(path, std::ios::binary);
    out << text;
  }

  std::filesystem::path dir_;
  std::map<std::string, Reply> replies_;
};

}  // namespace gpupool::backend::amd_test
