// Cross-checks of the built-in catalog against real nvidia-smi outputs, when
// the shared test data (../shared/testdata, not part of the project) is there.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <optional>
#include <sstream>

#include "gpu_fixtures.h"
#include "gpupool/gpu/catalog.h"

namespace gpupool::gpu {
namespace {

constexpr const char* kNoData =
    "no shared test data (" GPUPOOL_SOURCE_DIR "/../shared/testdata or $GPUPOOL_SHARED_TESTDATA)";

// The lines of a shared test data file, or nullopt when it is absent.
std::optional<std::vector<std::string>> lines_of(const std::string& relative) {
  const std::string path = testing::shared_testdata(relative);
  if (path.empty()) return std::nullopt;
  std::ifstream in(path);
  if (!in) return std::nullopt;
  std::vector<std::string> out;
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

const MigProfile* by_id(const GpuModel& m, int id) {
  for (const MigProfile& p : m.mig->profiles) {
    if (p.profile_id == id) return &p;
  }
  return nullptr;
}

// "|   0  MIG 1g.5gb        19     7/7        4.75       No     14     0     0   |"
TEST(CatalogNvidiaSmi, A100ProfilesMatchMigLgip) {
  const auto lines = lines_of("nvidia-smi/mig-lgip_a100-sxm4-40gb.txt");
  if (!lines) GTEST_SKIP() << kNoData;
  const GpuModel* m = Catalog::builtin().find("NVIDIA A100-SXM4-40GB");
  ASSERT_NE(m, nullptr);
  ASSERT_TRUE(m->mig.has_value());
  int rows = 0;
  for (const std::string& line : *lines) {
    const auto at = line.find(" MIG ");
    if (at == std::string::npos) continue;
    std::istringstream row(line.substr(at + 5));
    std::string name, instances;
    int id = -1;
    double gib = 0;
    row >> name >> id >> instances >> gib;
    ASSERT_FALSE(row.fail()) << line;
    SCOPED_TRACE(name);
    ++rows;
    const MigProfile* p = m->mig->profile(name);
    ASSERT_NE(p, nullptr);
    EXPECT_EQ(p->profile_id, id);
    EXPECT_EQ(std::to_string(p->max_count), instances.substr(instances.find('/') + 1));
    EXPECT_NEAR(p->memory_mib / 1024.0, gib, 0.01);
  }
  EXPECT_EQ(rows, static_cast<int>(m->mig->profiles.size()));
}

// "GPU  0 Profile ID 14 Placements: {0,1,2,3}:1" / "GPU  0 Profile ID  0 Placement : {0}:4"
TEST(CatalogNvidiaSmi, A30PlacementsMatchMigLgipp) {
  const auto lines = lines_of("nvidia-smi/mig-lgipp_a30-24gb.txt");
  if (!lines) GTEST_SKIP() << kNoData;
  const GpuModel* m = Catalog::builtin().find("NVIDIA A30");
  if (m == nullptr || !m->mig) GTEST_SKIP() << "the built-in catalog has no A30 with MIG";
  int rows = 0;
  for (const std::string& line : *lines) {
    const auto id_at = line.find("Profile ID");
    const auto colon = line.find(':', id_at);
    if (id_at == std::string::npos || colon == std::string::npos) continue;
    const int id = std::stoi(line.substr(id_at + 10));
    std::string expected = line.substr(colon + 1);
    expected.erase(0, expected.find_first_not_of(' '));
    expected.erase(expected.find_last_not_of(" \r") + 1);
    ++rows;
    const MigProfile* p = by_id(*m, id);
    ASSERT_NE(p, nullptr) << "profile id " << id;
    std::string text = "{";
    for (const MigPlacement& pl : p->placements) text += (text.size() > 1 ? "," : "") + std::to_string(pl.start);
    text += "}:" + std::to_string(p->placements.front().size);
    EXPECT_EQ(text, expected) << p->name;
  }
  EXPECT_GT(rows, 0);
}

}  // namespace
}  // namespace gpupool::gpu
