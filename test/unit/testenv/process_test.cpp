// testenv::Process::spawn: what a caller sees of the child right after it.
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <climits>
#include <filesystem>
#include <string>

#include "gpupool/testenv/process.h"

namespace gpupool::testenv {
namespace {

std::string exe_of(pid_t pid) {
  char buf[PATH_MAX];
  const ssize_t n = ::readlink(("/proc/" + std::to_string(pid) + "/exe").c_str(), buf, sizeof buf);
  return n > 0 ? std::string(buf, static_cast<std::size_t>(n)) : std::string();
}

// Until its exec the child is a copy of this process, and /proc says so: a
// benchmark read this process's size there as a controller's peak RSS.
TEST(ProcessSpawn, ReturnsOnceTheChildRunsItsProgram) {
  const std::string sleep = std::filesystem::canonical("/bin/sleep").string();
  const std::string self = exe_of(::getpid());
  for (int i = 0; i < 20; ++i) {
    SpawnSpec spec;
    spec.path = "/bin/sleep";
    spec.args = {"30"};
    Process p = Process::spawn(spec);
    const std::string exe = exe_of(p.pid());
    EXPECT_NE(exe, self) << "spawn returned before the child's exec (attempt " << i << ")";
    EXPECT_EQ(exe, sleep) << "attempt " << i;
    p.terminate(std::chrono::milliseconds(0));
  }
}

TEST(ProcessSpawn, AnExecFailureReturnsAndExitsWith127) {
  SpawnSpec spec;
  spec.path = "/nonexistent/gpupool-no-such-program";
  spec.log_file = "/dev/null";
  Process p = Process::spawn(spec);
  ASSERT_TRUE(p.wait_until(std::chrono::steady_clock::now() + std::chrono::seconds(30)));
  EXPECT_EQ(p.exit_status(), 127);
}

}  // namespace
}  // namespace gpupool::testenv
