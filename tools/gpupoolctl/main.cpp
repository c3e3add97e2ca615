// gpupoolctl: offline companion of gpupool-operator.
//
//   gpupoolctl validate -f FILE_OR_DIR...     check manifests (schema + semantic rules)
//   gpupoolctl mig plan --model M PROFILES    place MIG instances on one GPU
//   gpupoolctl mig layouts --model M          every maximal MIG layout of a model
//   gpupoolctl approve NAMESPACE/NAME         approve a TenantQuota (the one online command)
//
// Exit status: 0 fine; 1 problems found (invalid manifests, a layout that does
// not fit); 2 the command could not run (usage, unreadable input).
#include <CLI/CLI.hpp>
#include <iostream>

#include "gpupool/gpu/catalog.h"
#include "gpupool/gpu/mig_parted.h"
#include "approve_command.h"
#include "mig_commands.h"
#include "validate_command.h"

int main(int argc, char** argv) {
  CLI::App app{"gpupoolctl: validate gpupool.io manifests offline, plan MIG layouts, approve TenantQuotas"};
  app.require_subcommand(1);
  gpupool::ctl::add_validate_command(app);
  gpupool::ctl::add_mig_commands(app);
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
