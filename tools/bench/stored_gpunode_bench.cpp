// Heap per GPUNode as the controller keeps it in its store
// (controller/controller/stored_objects.h): split (stored/gpunode.h), against
// the same trims with the whole object in the DOM (as kept until the split).
//
//   kubectl get gpunodes -o json > gpunodes.json
//   gpupool-stored-gpunode-bench --dump gpunodes.json [--copies N]
//
// Decodes every GPUNode of the dump N times over (a pool's members at scale
// share their spec and GPU list as copies do; default 1) and prints
// glibc's in-use heap (mallinfo2) per object kept, for each way, and what
// the split's DOM and Object take apart from its parts. Build it optimised
// and without sanitizers: they replace malloc, and mallinfo2 then says 0.
#include <malloc.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "controller/stored_objects.h"
#include "gpupool/kube/json_projection.h"

namespace {

using namespace gpupool;

// In-use heap per object of `items` decoded with `trim` and all kept.
double heap_per_object(const std::vector<std::string>& items, const kube::DecodeTrim& trim) {
  std::vector<std::shared_ptr<const kube::Object>> kept;
  kept.reserve(items.size());
  malloc_trim(0);
  const std::size_t before = mallinfo2().uordblks;
  for (const auto& item : items) kept.push_back(std::make_shared<const kube::Object>(kube::decode_object(item, trim)));
  const std::size_t after = mallinfo2().uordblks;
  return static_cast<double>(after - before) / static_cast<double>(items.size());
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Heap per GPUNode as the controller keeps it, split and as a DOM"};
  std::string dump;
  int copies = 1;
  app.add_option("--dump", dump, "a GPUNodeList as `kubectl get gpunodes -o json` writes it")->required();
  app.add_option("--copies", copies, "decode each GPUNode this many times")->check(CLI::Range(1, 100000));
  CLI11_PARSE(app, argc, argv);

  std::ifstream in(dump);
  if (!in) {
    std::fprintf(stderr, "cannot read %s\n", dump.c_str());
    return 1;
  }
  std::stringstream text;
  text << in.rdbuf();
  const std::string list = text.str();
  std::vector<std::string> items;
  std::size_t json = 0;
  try {
    for (int c = 0; c < copies; ++c) {
      kube::scan_list(list, [&](std::string_view item) {
        items.emplace_back(item);
        json += item.size();
      });
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: %s\n", dump.c_str(), e.what());
    return 1;
  }
  if (items.empty()) {
    std::fprintf(stderr, "%s holds no GPUNode\n", dump.c_str());
    return 1;
  }

  const kube::DecodeTrim split = controller::gpunode_trim();
  kube::DecodeTrim whole = split;
  whole.take_part = nullptr;
  kube::DecodeTrim dom_only = split;  // the split's DOM, its parts dropped
  dom_only.take_part = [](rapidjson::Document& parsed) -> std::shared_ptr<const kube::ObjectPart> {
    stored::take_gpunode_parts(parsed);
    return nullptr;
  };
  const double as_dom = heap_per_object(items, whole);
  const double as_split = heap_per_object(items, split);
  const double its_dom = heap_per_object(items, dom_only);
  std::printf("%zu GPUNodes (%d copies of each in the dump), JSON %.0f B each\n", items.size(), copies,
              static_cast<double>(json) / static_cast<double>(items.size()));
  std::printf("heap per GPUNode: as a DOM %.0f B, split %.0f B (%.3fx): its DOM and Object %.0f B, its parts %.0f B\n",
              as_dom, as_split, as_dom > 0 ? as_split / as_dom : 0.0, its_dom, as_split - its_dom);
  if (as_dom <= 0) std::printf("(mallinfo2 says nothing: a sanitizer build?)\n");
  return 0;
}
