// The package/runfile installer: the command really runs (through /bin/sh,
// no namespace prefix here), gets the version, and its failures read well.
#include <gtest/gtest.h>

#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "gpupool/node/driver_installer.h"

namespace gpupool::node {
namespace {

namespace fs = std::filesystem;

class HostCommandInstallerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("gpupool-host-installer-" + std::to_string(::getpid()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  api::DriverSpec driver(const std::string& command, const std::string& timeout = "") {
    api::DriverSpec d;
    d.version = "570.133.20";
    d.installer.kind = api::InstallerKind::runfile;
    d.installer.parameters["command"] = command;
    d.installer.parameters["RUNFILE_DIR"] = dir_.string();
    if (!timeout.empty()) d.installer.parameters["timeoutSeconds"] = timeout;
    return d;
  }
  std::string read(const std::string& name) {
    std::ifstream in(dir_ / name);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }
  // The InstallError a failing install throws.
  InstallError failure(DriverInstaller& installer, const api::DriverSpec& d, std::stop_token stop = {}) {
    try {
      installer.install(d, stop);
    } catch (const InstallError& e) {
      return e;
    }
    ADD_FAILURE() << "the install did not fail";
    return InstallError("", "");
  }

  fs::path dir_;
};

TEST_F(HostCommandInstallerTest, RunsTheCommandWithTheVersionAsArgumentAndEnvironment) {
  auto installer = make_host_command_installer({});
  installer->install(driver(R"(echo "$1 $DRIVER_VERSION" > "$RUNFILE_DIR/installed")"), {});
  EXPECT_EQ(read("installed"), "570.133.20 570.133.20\n");
}

TEST_F(HostCommandInstallerTest, APrefixRunsBeforeTheShell) {
  // /usr/bin/env stands in for nsenter: a program that runs the rest of its arguments.
  HostCommandOptions o;
  o.prefix = {"/usr/bin/env", "VIA_PREFIX=yes"};
  auto installer = make_host_command_installer(o);
  installer->install(driver(R"(echo "$VIA_PREFIX" > "$RUNFILE_DIR/prefix")"), {});
  EXPECT_EQ(read("prefix"), "yes\n");
}

TEST_F(HostCommandInstallerTest, AFailureNamesTheExitCodeAndTheLastOutput) {
  auto installer = make_host_command_installer({});
  auto e = failure(*installer, driver("for i in $(seq 1 2000); do echo progress line $i; done; "
                                      "echo 'ERROR: Unable to load the kernel module nvidia.ko' >&2; exit 7"));
  EXPECT_EQ(e.reason(), "InstallFailed");
  const std::string what = e.what();
  EXPECT_NE(what.find("driver 570.133.20 (runfile installer, parameters.command) failed with exit code 7"), std::string::npos) << what;
  EXPECT_NE(what.find("Unable to load the kernel module nvidia.ko"), std::string::npos) << what;
}

TEST_F(HostCommandInstallerTest, OnlyTheTailOfALongOutputIsKept) {
  auto installer = make_host_command_installer({});
  auto e = failure(*installer, driver("for i in $(seq 1 3000); do echo line $i; done; exit 1"));
  const std::string what = e.what();
  EXPECT_NE(what.find("line 3000"), std::string::npos);
  EXPECT_EQ(what.find("line 1\n"), std::string::npos);
  EXPECT_LT(what.size(), 4096u + 200u);
}

TEST_F(HostCommandInstallerTest, TimeoutKillsTheCommandAndSaysWhichParameter) {
  auto installer = make_host_command_installer({});
  const auto t0 = std::chrono::steady_clock::now();
  auto e = failure(*installer, driver("echo started; sleep 30", "1"));
  EXPECT_EQ(e.reason(), "InstallTimeout");
  EXPECT_NE(std::string(e.what()).find("parameters.timeoutSeconds"), std::string::npos) << e.what();
  EXPECT_NE(std::string(e.what()).find("started"), std::string::npos) << e.what();
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(20));
}

TEST_F(HostCommandInstallerTest, StopCancelsARunningInstall) {
  auto installer = make_host_command_installer({});
  std::stop_source stop;
  std::jthread stopper([&] {
    // Stop once the command has started (it writes a file first).
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (!fs::exists(dir_ / "started") && std::chrono::steady_clock::now() < deadline) std::this_thread::yield();
    stop.request_stop();
  });
  auto e = failure(*installer, driver(R"(touch "$RUNFILE_DIR/started"; sleep 30)"), stop.get_token());
  EXPECT_EQ(e.reason(), "Cancelled");
}

TEST_F(HostCommandInstallerTest, InvalidParametersAndAMissingPrefixProgramFailClearly) {
  auto installer = make_host_command_installer({});
  auto d = driver("true");
  d.installer.parameters.erase("command");
  auto e = failure(*installer, d);
  EXPECT_EQ(e.reason(), "InvalidParameters");
  EXPECT_NE(std::string(e.what()).find("spec.driver.installer.parameters[command]"), std::string::npos) << e.what();

  HostCommandOptions o;
  o.prefix = {"/nonexistent/nsenter", "--target", "1", "--"};
  auto missing = make_host_command_installer(o);
  auto e2 = failure(*missing, driver("true"));
  EXPECT_EQ(e2.reason(), "InstallFailed");
  EXPECT_NE(std::string(e2.what()).find("/nonexistent/nsenter could not be started"), std::string::npos) << e2.what();
}

TEST(InstallerByKind, RoutesEachKindAndRefusesPreinstalled) {
  struct Recording : DriverInstaller {
    std::string* last;
    std::string name;
    Recording(std::string* l, std::string n) : last(l), name(std::move(n)) {}
    void install(const api::DriverSpec&, std::stop_token) override { *last = name; }
  };
  std::string last;
  auto installer = make_installer_by_kind(std::make_unique<Recording>(&last, "container"),
                                          std::make_unique<Recording>(&last, "host"));
  api::DriverSpec d;
  d.version = "570.133.20";
  for (auto [kind, want] : {std::pair{api::InstallerKind::container, "container"}, {api::InstallerKind::package, "host"},
                            {api::InstallerKind::runfile, "host"}}) {
    d.installer.kind = kind;
    installer->install(d, {});
    EXPECT_EQ(last, want);
  }
  d.installer.kind = api::InstallerKind::preinstalled;
  try {
    installer->install(d, {});
    ADD_FAILURE() << "preinstalled installed something";
  } catch (const InstallError& e) {
    EXPECT_EQ(e.reason(), "InstallerNotAvailable");
  }
}

}  // namespace
}  // namespace gpupool::node
