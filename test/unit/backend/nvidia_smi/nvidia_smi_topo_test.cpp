// nvidia-smi topo -m: NVLink and PCIe boxes, NIC and affinity columns,
// colour codes, malformed matrices.
#include <gtest/gtest.h>

#include "gpupool/backend/nvidia_smi_parse.h"
#include "nvsmi_fixtures.h"

namespace gpupool::backend::nvsmi {
namespace {

using testing::fixture;
using testing::ok_or_fail;

TEST(Topo, FourGpuNvlinkBoxWithNics) {
  const auto links = ok_or_fail(parse_topo_matrix(fixture("topo-m_4x-a100-nvlink.txt")));
  std::vector<GpuLink> expected;
  for (int a = 0; a < 4; ++a) {
    for (int b = a + 1; b < 4; ++b) expected.push_back(GpuLink{a, b, LinkKind::nvlink, 4});
  }
  EXPECT_EQ(links, expected);
  for (const auto& l : links) EXPECT_EQ(link_label(l), "NV4");
}

TEST(Topo, TwoGpuPcieBoxWithColourCodes) {
  const auto links = ok_or_fail(parse_topo_matrix(fixture("topo-m_2x-rtx-a5000-pcie_ansi.txt")));
  const std::vector<GpuLink> expected{{0, 1, LinkKind::cross_numa, 0}};
  EXPECT_EQ(links, expected);
}

TEST(Topo, EveryPcieKind) {
  const auto links = ok_or_fail(parse_topo_matrix(fixture("topo-m_4x-t4-pcie.txt")));
  const std::vector<GpuLink> expected{
      {0, 1, LinkKind::pcie_same_switch, 0}, {0, 2, LinkKind::same_numa, 0}, {0, 3, LinkKind::cross_numa, 0},
      {1, 2, LinkKind::pcie_host_bridge, 0}, {1, 3, LinkKind::cross_numa, 0}, {2, 3, LinkKind::cross_numa, 0}};
  EXPECT_EQ(links, expected);
  std::vector<std::string> labels;
  for (const auto& l : links) labels.push_back(link_label(l));
  EXPECT_EQ(labels, (std::vector<std::string>{"PIX", "NODE", "SYS", "PHB", "SYS", "SYS"}));
}

TEST(Topo, SpacesInsteadOfTabsAndOldLabels) {
  const auto links = ok_or_fail(parse_topo_matrix(
      "        GPU0    GPU1    GPU2    CPU Affinity\n"
      "GPU0     X      PXB     SOC     0-7\n"
      "GPU1    PXB      X      NV2     0-7\n"
      "GPU2    SOC     NV2      X      8-15\n"));
  const std::vector<GpuLink> expected{
      {0, 1, LinkKind::pcie_multi_switch, 0}, {0, 2, LinkKind::cross_numa, 0}, {1, 2, LinkKind::nvlink, 2}};
  EXPECT_EQ(links, expected);
}

TEST(Topo, OneGpuHasNoLinksAndUnknownLabelsAreUnknown) {
  EXPECT_TRUE(ok_or_fail(parse_topo_matrix("\tGPU0\tCPU Affinity\nGPU0\t X \t0-7\n")).empty());
  const auto links = ok_or_fail(parse_topo_matrix("\tGPU0\tGPU1\nGPU0\t X \tC2C\nGPU1\tC2C\t X \n"));
  ASSERT_EQ(links.size(), 1u);
  EXPECT_EQ(links[0].kind, LinkKind::unknown);
}

struct BadTopo {
  std::string name, text, where, message_part;
};
class TopoErrors : public ::testing::TestWithParam<BadTopo> {};

TEST_P(TopoErrors, NameTheLine) {
  const auto r = parse_topo_matrix(GetParam().text);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().where, GetParam().where) << r.error().to_string();
  EXPECT_NE(r.error().message.find(GetParam().message_part), std::string::npos) << r.error().to_string();
}

INSTANTIATE_TEST_SUITE_P(
    Malformed, TopoErrors,
    ::testing::Values(
        BadTopo{"Empty", "", "line 1", "no header"},
        BadTopo{"NotAMatrix", "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver.\n", "line 1",
                "no header"},
        BadTopo{"ShortRow", "\tGPU0\tGPU1\nGPU0\t X \tNV4\nGPU1\tNV4\n", "line 3", "expected 2 GPU cells"},
        BadTopo{"UnknownGpuRow", "\tGPU0\tGPU1\nGPU0\t X \tNV4\nGPU7\tNV4\t X \n", "line 3", "GPU7"},
        BadTopo{"DuplicateRow", "\tGPU0\tGPU1\nGPU0\t X \tNV4\nGPU0\t X \tNV4\n", "line 3", "second row"},
        BadTopo{"DuplicateColumn", "\tGPU0\tGPU0\n", "line 1", "twice"},
        BadTopo{"DiagonalNotX", "\tGPU0\tGPU1\nGPU0\tNV4\tNV4\n", "line 2", "not X"}),
    [](const auto& p) { return p.param.name; });

}  // namespace
}  // namespace gpupool::backend::nvsmi
