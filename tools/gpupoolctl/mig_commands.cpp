#include "mig_commands.h"

#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "catalog_option.h"
#include "gpupool/gpu/mig_planner.h"

namespace gpupool::ctl {
namespace {

int used(const gpu::GpuModel& model, const gpu::Layout& layout, bool compute) {
  int total = 0;
  for (const auto& inst : layout) {
    const gpu::MigProfile* p = model.mig->profile(inst.profile);
    if (p != nullptr) total += compute ? p->compute_slices : p->memory_slices;
  }
  return total;
}

// A row of memory slices with the instance occupying each:
//   slices   0        1        2  ...
//            3g.40gb  3g.40gb  ...
void print_layout(const gpu::GpuModel& model, const gpu::Layout& layout) {
  std::cout << "  PROFILE        PLACEMENT  MEMORY-SLICES\n";
  for (const auto& inst : layout) {
    std::string profile = inst.profile;
    profile.resize(std::max<std::size_t>(profile.size(), 14), ' ');
    std::string placement = "{" + std::to_string(inst.start) + "}:" + std::to_string(inst.size);
    placement.resize(std::max<std::size_t>(placement.size(), 10), ' ');
    std::cout << "  " << profile << " " << placement << " " << inst.start << "-" << (inst.start + inst.size - 1)
              << "\n";
  }
  std::cout << "  uses " << used(model, layout, true) << " of " << model.mig->compute_slices
            << " compute slices and " << used(model, layout, false) << " of " << model.mig->memory_slices
            << " memory slices\n";
}

struct MigArgs {
  CatalogOption catalog;
  std::string model;
  std::string request;
  std::vector<std::string> current;
};

int run_plan(MigArgs& args) {
  const gpu::GpuModel& model = args.catalog.model(args.model);
  auto wanted = gpu::parse_profile_counts(args.request);
  if (auto* err = std::get_if<gpu::PlanError>(&wanted)) {
    std::cerr << "error: " << err->message << "\n";
    return 1;
  }
  const auto& counts = std::get<gpu::ProfileCounts>(wanted);
  if (!args.current.empty()) {
    // --current 3g.40gb@0,1g.10gb@6: plan the smallest change from there.
    if (!model.mig) {
      std::cerr << "error: " << gpu::short_name(model) << " does not support MIG\n";
      return 1;
    }
    gpu::Layout current;
    for (const auto& item : args.current) {
      auto at = item.find('@');
      if (at == std::string::npos) {
        std::cerr << "error: --current wants PROFILE@START items, e.g. 3g.40gb@0\n";
        return 1;
      }
      gpu::PlacedInstance inst{item.substr(0, at), 0, 0};
      try {
        inst.start = std::stoi(item.substr(at + 1));
      } catch (const std::exception&) {
        std::cerr << "error: --current " << item << ": the start is not a number\n";
        return 1;
      }
      if (const gpu::MigProfile* p = model.mig->profile(inst.profile)) inst.size = p->memory_slices;
      current.push_back(inst);
    }
    if (auto check = gpu::check_layout(model, current); std::holds_alternative<gpu::PlanError>(check)) {
      std::cerr << "error: --current: " << std::get<gpu::PlanError>(check).message << "\n";
      return 1;
    }
    auto change = gpu::plan_change(model, current, counts);
    if (auto* err = std::get_if<gpu::PlanError>(&change)) {
      std::cerr << "error: " << err->message << "\n";
      return 1;
    }
    const auto& c = std::get<gpu::LayoutChange>(change);
    auto list = [](const gpu::Layout& l) {
      std::string s;
      for (const auto& i : l) s += (s.empty() ? "" : ", ") + i.profile + "@" + std::to_string(i.start);
      return s.empty() ? std::string("-") : s;
    };
    std::cout << gpu::short_name(model) << ": change to " << gpu::format_profile_counts(counts, &model) << "\n"
              << "  keep:    " << list(c.keep) << "\n"
              << "  destroy: " << list(c.destroy) << "\n"
              << "  create:  " << list(c.create) << "\n";
    print_layout(model, c.result);
    return 0;
  }
  auto planned = gpu::plan(model, counts);
  if (auto* err = std::get_if<gpu::PlanError>(&planned)) {
    std::cerr << "error: " << err->message << "\n";
    return 1;
  }
  std::cout << gpu::short_name(model) << ": " << gpu::format_profile_counts(counts, &model) << "\n";
  print_layout(model, std::get<gpu::Layout>(planned));
  return 0;
}

int run_layouts(MigArgs& args) {
  const gpu::GpuModel& model = args.catalog.model(args.model);
  if (!model.mig) {
    std::cerr << "error: " << gpu::short_name(model) << " does not support MIG\n";
    return 1;
  }
  auto layouts = gpu::enumerate_maximal_layouts(model);
  std::cout << "# " << layouts.size() << " maximal MIG layouts of " << gpu::short_name(model) << " (" << model.id
            << "): no further instance fits any of them\n";
  for (const auto& l : layouts) std::cout << gpu::format_profile_counts(l.counts, &model) << "\n";
  return 0;
}

}  // namespace

void add_mig_commands(CLI::App& app) {
  auto args = std::make_shared<MigArgs>();
  CLI::App* mig = app.add_subcommand("mig", "Plan NVIDIA MIG layouts against the GPU model catalog");
  mig->require_subcommand(1);

  CLI::App* plan = mig->add_subcommand("plan", "Place the wanted MIG instances on one GPU, or say why they don't fit");
  plan->add_option("--model", args->model, "GPU model: catalog id or reported name (a100-sxm4-80gb)")->required();
  plan->add_option("profiles", args->request, "wanted instances, e.g. 3g.40gb=1,2g.20gb=1,1g.10gb=2")->required();
  plan->add_option("--current", args->current,
                   "instances now on the GPU as PROFILE@START (comma-separated): plan the smallest change")
      ->delimiter(',');
  args->catalog.add_to(*plan);
  plan->callback([args] { throw CLI::RuntimeError(run_plan(*args)); });

  CLI::App* layouts = mig->add_subcommand("layouts", "List every maximal MIG layout of a GPU model");
  layouts->add_option("--model", args->model, "GPU model: catalog id or reported name")->required();
  args->catalog.add_to(*layouts);
  layouts->callback([args] { throw CLI::RuntimeError(run_layouts(*args)); });
}

}  // namespace gpupool::ctl
