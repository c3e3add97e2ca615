// device_plugin_config_yaml: the device plugin's own config format, per MIG strategy and sharing.
#include <gtest/gtest.h>

#include "gpupool/node/device_plugin_config.h"

namespace gpupool::node {
namespace {

api::Sharing time_slicing(int replicas, bool renamed) {
  api::Sharing s;
  s.mode = api::SharingMode::time_slicing;
  s.time_slicing = api::TimeSlicing{replicas, renamed};
  return s;
}

TEST(DevicePluginConfigYaml, ExclusiveIsJustTheStrategy) {
  EXPECT_EQ(device_plugin_config_yaml(api::MIGStrategy::single, api::Sharing{}, {"1g.10gb"}),
            "version: v1\nflags:\n  migStrategy: single\n");
}

TEST(DevicePluginConfigYaml, TimeSlicingListsTheGpuAndUnderMixedEveryMigResource) {
  EXPECT_EQ(device_plugin_config_yaml(api::MIGStrategy::mixed, time_slicing(4, false), {"3g.40gb", "1g.10gb+me", "1g.10gb"}),
            "version: v1\nflags:\n  migStrategy: mixed\nsharing:\n  timeSlicing:\n    renameByDefault: false\n    resources:\n"
            "    - name: nvidia.com/gpu\n      replicas: 4\n"
            "    - name: nvidia.com/mig-1g.10gb\n      replicas: 4\n"
            "    - name: nvidia.com/mig-1g.10gb.me\n      replicas: 4\n"
            "    - name: nvidia.com/mig-3g.40gb\n      replicas: 4\n");
  const auto single = device_plugin_config_yaml(api::MIGStrategy::single, time_slicing(2, true), {"1g.10gb"});
  EXPECT_NE(single.find("renameByDefault: true"), std::string::npos);
  EXPECT_EQ(single.find("nvidia.com/mig-"), std::string::npos) << "single strategy has no mig-* resources";
}

TEST(DevicePluginConfigYaml, MpsSharesOnlyTheWholeGpu) {
  api::Sharing mps;
  mps.mode = api::SharingMode::mps;
  mps.mps = api::MPS{8, 50};
  EXPECT_EQ(device_plugin_config_yaml(api::MIGStrategy::mixed, mps, {"1g.10gb"}),
            "version: v1\nflags:\n  migStrategy: mixed\nsharing:\n  mps:\n    resources:\n"
            "    - name: nvidia.com/gpu\n      replicas: 8\n");
}

}  // namespace
}  // namespace gpupool::node
