// gpupoolctl: companion of gpupool-operator, and the kubectl plugin
// `kubectl gpupool` (the build links kubectl-gpupool to it).
//
//   gpupoolctl validate -f FILE_OR_DIR...     check manifests (schema + semantic rules)
//   gpupoolctl mig plan --model M PROFILES    place MIG instances on one GPU
//   gpupoolctl mig layouts --model M          every maximal MIG layout of a model
//   gpupoolctl status [-n NS | -A]            pools, nodes, quotas as tables, with reasons
//   gpupoolctl explain KIND NAME              why a pool, node or quota is not progressing
//   gpupoolctl approve NAMESPACE/NAME         approve a TenantQuota
//
// The commands that talk to the cluster take kubectl's flags after the
// subcommand (--kubeconfig, --context, -n, --request-timeout), as kubectl
// passes them to a plugin, and honour $KUBECONFIG.
//
// Exit status: 0 fine; 1 problems found (invalid manifests, a layout that does
// not fit, an object not found); 2 the command could not run (usage,
// unreadable input, no cluster).
#include <CLI/CLI.hpp>
#include <iostream>

#include "approve_command.h"
#include "explain_command.h"
#include "gpupool/gpu/catalog.h"
#include "gpupool/gpu/mig_parted.h"
#include "mig_commands.h"
#include "program.h"
#include "status_command.h"
#include "validate_command.h"

int main(int argc, char** argv) {
  gpupool::ctl::set_program_name(gpupool::ctl::program_name_from(argc > 0 ? argv[0] : "gpupoolctl"));
  const std::string& program = gpupool::ctl::program_name();
  CLI::App app{program + ": validate gpupool.io manifests offline, plan MIG layouts; show the operator's status, "
                         "explain what is not progressing, approve TenantQuotas"};
  app.name(program);
  app.require_subcommand(1);
  gpupool::ctl::add_validate_command(app);
  gpupool::ctl::add_mig_commands(app);
  gpupool::ctl::add_status_command(app);
  gpupool::ctl::add_explain_command(app);
  gpupool::ctl::add_approve_command(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::RuntimeError& e) {
    return e.get_exit_code();  // a command's own exit status
  } catch (const CLI::ParseError& e) {
    int status = app.exit(e);
    return status == 0 ? 0 : 2;
  } catch (const gpupool::gpu::CatalogError& e) {
    std::cerr << "error: GPU model catalog: " << e.what() << "\n";
    return 2;
  } catch (const gpupool::gpu::MigPartedError& e) {
    std::cerr << "error: mig-parted config: " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 2;
  }
  return 0;
}
