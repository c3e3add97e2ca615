// node_labels: the NVIDIA (GFD), AMD (node labeller) and gpupool.io labels
// of an inventory, every value made a valid label value.
#include "gpupool/node/node_labels.h"

namespace gpupool::node {

std::map<std::string, std::string> node_labels(const LabelInputs& in) {
  std::map<std::string, std::string> out;
  if (in.inventory == nullptr || in.inventory->gpus.empty()) return out;
  out = nvidia_labels(in);
  out.merge(amd_labels(in));

  const backend::Inventory& inv = *in.inventory;
  const backend::GpuInfo* model_gpu = described_nvidia_gpu(inv);
  if (model_gpu == nullptr) {
    for (const backend::GpuInfo& g : inv.gpus) {
      if (g.vendor == gpu::Vendor::amd) {
        model_gpu = &g;
        break;
      }
    }
  }
  if (model_gpu != nullptr) {
    if (const gpu::GpuModel* m = catalog_model(*model_gpu, in.catalog)) out["gpupool.io/gpu-model"] = m->id;
  }

  for (auto& [key, value] : out) value = label_value(value);
  return out;
}

}  // namespace gpupool::node
