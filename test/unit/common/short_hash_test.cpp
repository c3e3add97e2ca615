// short_hash: stable, sized, different for different names.
#include <gtest/gtest.h>

#include "gpupool/common/short_hash.h"

namespace gpupool::common {
namespace {

TEST(ShortHash, StableSizedAndDistinct) {
  EXPECT_EQ(short_hash(""), "cbf29ce484");  // FNV-1a offset basis: the same in every build
  EXPECT_EQ(short_hash("gpu-node-1", 16).size(), 16u);
  EXPECT_EQ(short_hash("gpu-node-1", 40).size(), 16u);
  EXPECT_EQ(short_hash("gpu-node-1", 0).size(), 1u);
  EXPECT_NE(short_hash("gpu-node-1"), short_hash("gpu-node-2"));
  EXPECT_EQ(short_hash("gpu-node-1"), short_hash("gpu-node-1"));
}

}  // namespace
}  // namespace gpupool::common
