// run_process: output, exit status, environment, timeout, stop, output limits.
#include <gtest/gtest.h>

#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <thread>

#include "gpupool/common/subprocess.h"

namespace gpupool::common {
namespace {

using namespace std::chrono_literals;

ProcessResult sh(const std::string& script, ProcessOptions o = {}) {
  return run_process("/bin/sh", {"sh", "-c", script}, {"PATH=/usr/bin:/bin", "ONLY=this"}, o);
}

TEST(RunProcess, CapturesBothStreamsAndTheExitCode) {
  auto r = sh("echo out; echo err >&2; exit 3");
  EXPECT_TRUE(r.started);
  EXPECT_TRUE(r.exited);
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_EQ(r.out, "out\n");
  EXPECT_EQ(r.err, "err\n");
  EXPECT_FALSE(r.timed_out);
  EXPECT_FALSE(r.cancelled);
}

TEST(RunProcess, TheEnvironmentIsExactlyWhatWasGiven) {
  auto r = sh("env | grep -v '^PWD=' | grep -v '^SHLVL=' | grep -v '^_=' | sort");
  EXPECT_EQ(r.out, "ONLY=this\nPATH=/usr/bin:/bin\n");
}

TEST(RunProcess, AMissingProgramIsAStartError) {
  auto r = run_process("/nonexistent/tool", {"tool"}, {}, 5s, 1024);
  EXPECT_FALSE(r.started);
  EXPECT_FALSE(r.start_error.empty());
}

TEST(RunProcess, TimeoutKillsTheWholeProcessGroup) {
  ProcessOptions o;
  o.timeout = 300ms;
  const auto t0 = std::chrono::steady_clock::now();
  auto r = sh("sleep 30 & sleep 30", o);  // a child holding the pipes open too
  EXPECT_TRUE(r.timed_out);
  EXPECT_FALSE(r.exited);
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 10s);
}

TEST(RunProcess, StopKillsTheProcessAndSaysCancelled) {
  std::stop_source stop;
  ProcessOptions o;
  o.timeout = 60s;
  o.stop = stop.get_token();
  const std::string marker = std::filesystem::temp_directory_path() / ("gpupool-run-" + std::to_string(::getpid()));
  std::filesystem::remove(marker);
  std::jthread stopper([&] {
    // Stop once the child runs (it creates the marker first).
    const auto deadline = std::chrono::steady_clock::now() + 20s;
    while (!std::filesystem::exists(marker) && std::chrono::steady_clock::now() < deadline) std::this_thread::yield();
    stop.request_stop();
  });
  const auto t0 = std::chrono::steady_clock::now();
  auto r = sh("touch " + marker + "; sleep 30", o);
  std::filesystem::remove(marker);
  EXPECT_TRUE(r.cancelled);
  EXPECT_FALSE(r.timed_out);
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 10s);
}

TEST(RunProcess, OutputLimitKeepsTheHeadOrTheTail) {
  ProcessOptions head;
  head.max_output = 10;
  auto r = sh("printf 0123456789abcdef", head);
  EXPECT_EQ(r.out, "0123456789");
  EXPECT_TRUE(r.out_truncated);
  ProcessOptions tail = head;
  tail.keep_tail = true;
  r = sh("printf 0123456789abcdef; printf XYZ >&2", tail);
  EXPECT_EQ(r.out, "6789abcdef");
  EXPECT_TRUE(r.out_truncated);
  EXPECT_EQ(r.err, "XYZ");
}

TEST(RunProcess, StdinTextIsGivenThenEndOfFile) {
  ProcessOptions o;
  o.stdin_text = "Y\nsecond line\n";
  auto r = sh("read answer; echo \"got $answer\"; cat; echo eof", o);
  EXPECT_EQ(r.out, "got Y\nsecond line\neof\n");
  // A child that never reads its stdin is not a problem either.
  r = sh("exit 0", o);
  EXPECT_TRUE(r.exited);
  o.stdin_text = std::string(5000, 'x');
  r = sh("cat", o);
  EXPECT_FALSE(r.started);
  EXPECT_NE(r.start_error.find("4096"), std::string::npos);
  // Without stdin text the child reads /dev/null: end of file at once.
  r = sh("cat; echo done");
  EXPECT_EQ(r.out, "done\n");
}

}  // namespace
}  // namespace gpupool::common
