// What an installer's parameters mean, and every way to get them wrong.
#include <gtest/gtest.h>

#include "gpupool/api/installer_parameters.h"

namespace gpupool::api {
namespace {

struct Case {
  std::string name;
  InstallerKind kind;
  std::map<std::string, std::string> parameters;
  std::string error_path;  // "" = valid
  std::string error_contains;
};

TEST(InstallerParameters, Table) {
  const std::vector<Case> cases = {
      {"container: nothing needed", InstallerKind::container, {}, "", ""},
      {"container: env and timeout", InstallerKind::container, {{"DRIVER_BRANCH", "570"}, {"timeoutSeconds", "900"}}, "", ""},
      {"package: command required", InstallerKind::package, {}, "x.parameters[command]", "Required value"},
      {"runfile: command present", InstallerKind::runfile, {{"command", "sh /opt/NVIDIA.run -s"}}, "", ""},
      {"runfile: blank command", InstallerKind::runfile, {{"command", "  "}}, "x.parameters[command]", "must not be empty"},
      {"container: command refused", InstallerKind::container, {{"command", "true"}}, "x.parameters[command]", "Forbidden"},
      {"timeout not a number", InstallerKind::container, {{"timeoutSeconds", "30m"}}, "x.parameters[timeoutSeconds]", "1 to 86400"},
      {"timeout zero", InstallerKind::container, {{"timeoutSeconds", "0"}}, "x.parameters[timeoutSeconds]", "1 to 86400"},
      {"timeout too long", InstallerKind::container, {{"timeoutSeconds", "86401"}}, "x.parameters[timeoutSeconds]", ""},
      {"key not an env name", InstallerKind::container, {{"driver-branch", "570"}}, "x.parameters[driver-branch]", "[A-Za-z_]"},
      {"key starting with a digit", InstallerKind::package, {{"command", "true"}, {"9LIVES", "x"}}, "x.parameters[9LIVES]", ""},
      {"DRIVER_VERSION reserved", InstallerKind::container, {{"DRIVER_VERSION", "1"}}, "x.parameters[DRIVER_VERSION]", "spec.driver.version"},
  };
  for (const auto& c : cases) {
    DriverInstaller i;
    i.kind = c.kind;
    i.parameters = c.parameters;
    FieldErrors errors;
    read_installer_parameters(i, FieldPath("x"), errors);
    if (c.error_path.empty()) {
      EXPECT_TRUE(errors.empty()) << c.name << ": " << format_field_errors(errors);
      continue;
    }
    ASSERT_EQ(errors.size(), 1u) << c.name << ": " << format_field_errors(errors);
    EXPECT_EQ(errors[0].path, c.error_path) << c.name;
    EXPECT_NE(errors[0].reason.find(c.error_contains), std::string::npos) << c.name << ": " << errors[0].reason;
  }
}

TEST(InstallerParameters, ReadsValuesAndKeepsDefaultsForBadOnes) {
  DriverInstaller i;
  i.kind = InstallerKind::runfile;
  i.parameters = {{"command", "sh run.sh"}, {"timeoutSeconds", "120"}, {"A", "1"}, {"b_2", "two"}};
  FieldErrors errors;
  auto p = read_installer_parameters(i, FieldPath("spec.driver.installer"), errors);
  EXPECT_TRUE(errors.empty());
  EXPECT_EQ(p.command, "sh run.sh");
  EXPECT_EQ(p.timeout, std::chrono::seconds(120));
  ASSERT_EQ(p.env.size(), 2u);
  EXPECT_EQ(p.env[0], (std::pair<std::string, std::string>{"A", "1"}));
  EXPECT_EQ(p.env[1], (std::pair<std::string, std::string>{"b_2", "two"}));

  i.parameters["timeoutSeconds"] = "soon";
  errors.clear();
  p = read_installer_parameters(i, FieldPath("spec.driver.installer"), errors);
  EXPECT_EQ(p.timeout, std::chrono::seconds(3600));
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].path, "spec.driver.installer.parameters[timeoutSeconds]");
}

}  // namespace
}  // namespace gpupool::api
