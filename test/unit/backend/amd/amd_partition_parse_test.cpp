// amd-smi partition (JSON and text) and static --partition -> partition modes.
#include <gtest/gtest.h>

#include "amd_fixtures.h"
#include "gpupool/backend/amd_parse.h"

namespace gpupool::backend {
namespace {

using amd_test::fixture;
using amdsmi::PartitionModes;

TEST(AmdSmiPartition, CurrentPartitionObject) {
  const auto parsed = amdsmi::parse_partition_json(fixture("amd-smi-partition-current_mi300x-cpx-nps4.json"));
  ASSERT_TRUE(parsed) << parsed.error;
  ASSERT_EQ(parsed.value->size(), 8u);
  for (int i = 0; i < 8; ++i) EXPECT_EQ((*parsed.value)[static_cast<std::size_t>(i)], (PartitionModes{i, "CPX", "NPS4"}));
}

TEST(AmdSmiPartition, Rocm63ConcatenatedTablesUseTheFirst) {
  const auto parsed = amdsmi::parse_partition_json(fixture("amd-smi-partition_rocm63-concatenated.json"));
  ASSERT_TRUE(parsed) << parsed.error;
  EXPECT_EQ(*parsed.value, (std::vector<PartitionModes>{{0, "SPX", "NPS1"}, {1, "DPX", "NPS1"}}));
}

TEST(AmdSmiPartition, StaticPartitionSectionsInBothForms) {
  struct Case {
    const char* file;
    PartitionModes want;
  };
  for (const Case& c : {Case{"amd-smi-static-partition_gpu0_spx-nps1.json", {0, "SPX", "NPS1"}},
                        Case{"amd-smi-static-partition_gpu0_cpx-nps1.json", {0, "CPX", "NPS1"}},
                        Case{"amd-smi-static-partition_gpu0_cpx-nps4.json", {0, "CPX", "NPS4"}}}) {
    const auto parsed = amdsmi::parse_partition_json(fixture(c.file));
    ASSERT_TRUE(parsed) << c.file << ": " << parsed.error;
    EXPECT_EQ(*parsed.value, std::vector<PartitionModes>{c.want}) << c.file;
  }
}

TEST(AmdSmiPartition, MemoryObjectWithCapsAndCurrent) {
  const auto parsed = amdsmi::parse_partition_json(
      R"([{"gpu": 3, "memory_partition": {"caps": "NPS1, NPS4", "current": "nps4"}, "accelerator_type": "CPX*"}])");
  ASSERT_TRUE(parsed) << parsed.error;
  EXPECT_EQ(*parsed.value, std::vector<PartitionModes>{(PartitionModes{3, "CPX", "NPS4"})});
}

TEST(AmdSmiPartition, TextTable) {
  const auto parsed = amdsmi::parse_partition_text(fixture("amd-smi-partition-current_mi300x.txt"));
  ASSERT_TRUE(parsed) << parsed.error;
  EXPECT_EQ(*parsed.value, (std::vector<PartitionModes>{{0, "CPX", "NPS4"},
                                                        {1, "CPX", "NPS4"},
                                                        {2, "CPX", "NPS4"},
                                                        {3, "CPX", "NPS4"},
                                                        {4, "SPX", "NPS1"},
                                                        {5, "", ""}}));
}

TEST(AmdSmiPartition, TextWithoutHeaderNamesTheLastLine) {
  const auto parsed = amdsmi::parse_partition_text("GPU: 0\n    PARTITION: N/A\n");
  ASSERT_FALSE(parsed);
  EXPECT_NE(parsed.error.find("line 3"), std::string::npos) << parsed.error;
  EXPECT_NE(parsed.error.find("no GPU_ID"), std::string::npos) << parsed.error;
}

TEST(AmdSmiPartition, TextShortRowNamesItsLine) {
  const auto parsed = amdsmi::parse_partition_text("GPU_ID MEMORY ACCELERATOR_TYPE\n0 NPS1 SPX\n1 NPS1\n");
  ASSERT_FALSE(parsed);
  EXPECT_NE(parsed.error.find("amd-smi partition: line 3: expected 3 columns"), std::string::npos) << parsed.error;
}

TEST(AmdSmiPartition, NormalizesModes) {
  EXPECT_EQ(amdsmi::normalize_partition_mode(" cpx* "), "CPX");
  EXPECT_EQ(amdsmi::normalize_partition_mode("N/A"), "");
  EXPECT_EQ(amdsmi::normalize_partition_mode("NPS4"), "NPS4");
}

}  // namespace
}  // namespace gpupool::backend
