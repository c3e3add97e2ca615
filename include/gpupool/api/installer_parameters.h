// What a DriverInstaller's free-form `parameters` mean, read in one place for
// the validator (which reports problems by field) and the agent (which acts
// on them):
//   timeoutSeconds   every kind: how long an install may take (default 3600,
//                    1..86400)
//   command          package and runfile (required there, refused elsewhere):
//                    a /bin/sh command run in the host's namespaces; the
//                    version is its $1 and $DRIVER_VERSION
//   anything else    an environment variable for the installer pod
//                    (container) or the command (package, runfile), so the
//                    key must be an environment variable name
//                    ([A-Za-z_][A-Za-z0-9_]*); DRIVER_VERSION is reserved.
#pragma once

#include <chrono>
#include <string>
#include <utility>
#include <vector>

#include "gpupool/api/common_types.h"
#include "gpupool/api/field_error.h"

namespace gpupool::api {

struct InstallerParameters {
  std::chrono::seconds timeout{3600};
  std::string command;                                     // package, runfile
  std::vector<std::pair<std::string, std::string>> env;    // by key, every other parameter
};

// Reads `installer.parameters`; each problem is added to `errors` under
// `path` ("spec.driver.installer") + ".parameters[key]". What could be read
// is returned regardless, defaults in place of bad values.
InstallerParameters read_installer_parameters(const DriverInstaller& installer, const FieldPath& path,
                                              FieldErrors& errors);

}  // namespace gpupool::api
