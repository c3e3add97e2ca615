// The built-in catalog and lookups.
#include <gtest/gtest.h>

#include <cctype>
#include <cstdio>
#include <set>

#include "gpu_fixtures.h"
#include "gpupool/gpu/catalog.h"

namespace gpupool::gpu {
namespace {

using testing::fixture_catalog;

std::string hex(std::uint32_t id) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%04X", id);
  return buf;
}

// "NVIDIA A100-SXM4-80GB" -> "NVIDIA-A100-SXM4-80GB", GPU Feature Discovery's nvidia.com/gpu.product.
std::string gfd_label(std::string name) {
  for (char& c : name) {
    if (c == ' ') c = '-';
  }
  return name;
}

TEST(CatalogBuiltin, LoadsWithTheA100) {
  const Catalog& c = Catalog::builtin();
  ASSERT_FALSE(c.models().empty());
  EXPECT_EQ(&c, &Catalog::builtin());  // parsed once
  const GpuModel* a100 = c.find("a100-sxm4-40gb");
  ASSERT_NE(a100, nullptr);
  EXPECT_EQ(a100->vendor, Vendor::nvidia);
  ASSERT_TRUE(a100->mig.has_value());
  EXPECT_EQ(a100->mig->compute_slices, 7);
  EXPECT_EQ(a100->mig->memory_slices, 8);
  const MigProfile* p = a100->mig->profile("3g.20gb");
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(p->profile_id, 9);
  EXPECT_EQ(p->max_count, 2);
  EXPECT_EQ(p->placements, (std::vector<MigPlacement>{{0, 4}, {4, 4}}));
  EXPECT_EQ(a100->mig->profile("5g.40gb"), nullptr);
}

TEST(CatalogBuiltin, EveryModelIsComplete) {
  for (const GpuModel& m : Catalog::builtin().models()) {
    SCOPED_TRACE(m.id);
    EXPECT_FALSE(m.sources.empty());
    EXPECT_FALSE(m.display_name.empty());
    EXPECT_FALSE(m.pci_device_ids.empty());
    EXPECT_GT(m.memory_mib, 0);
    EXPECT_FALSE(m.architecture.empty());
    if (m.mig) {
      EXPECT_EQ(m.vendor, Vendor::nvidia);
      EXPECT_FALSE(m.mig->profiles.empty());
    }
    if (m.amd_partitions) {
      EXPECT_EQ(m.vendor, Vendor::amd);
    }
  }
}

// Every model is found by its id, display name, reported names (as written,
// upper-cased, without the vendor word, in GFD label form) and PCI ids.
void expect_lookups(const Catalog& c) {
  for (const GpuModel& m : c.models()) {
    SCOPED_TRACE(m.id);
    EXPECT_EQ(c.find(m.id), &m);
    std::vector<std::string> names = m.names;
    names.push_back(m.display_name);
    for (const std::string& n : names) {
      SCOPED_TRACE(n);
      EXPECT_EQ(c.find(n), &m);
      EXPECT_EQ(c.find(gfd_label(n)), &m);
      std::string upper = n;
      for (char& ch : upper) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
      EXPECT_EQ(c.find(upper), &m);
      for (const char* prefix : {"NVIDIA ", "AMD "}) {
        if (n.rfind(prefix, 0) == 0) {
          EXPECT_EQ(c.find(n.substr(std::string(prefix).size())), &m);
        }
      }
    }
    for (std::uint32_t id : m.pci_device_ids) {
      SCOPED_TRACE(hex(id));
      EXPECT_EQ(c.find_by_pci_device_id(m.vendor, id), &m);
    }
  }
}

TEST(CatalogLookup, EveryBuiltinModel) { expect_lookups(Catalog::builtin()); }
TEST(CatalogLookup, EveryFixtureModel) { expect_lookups(fixture_catalog()); }

TEST(CatalogLookup, NameForms) {
  const Catalog& c = fixture_catalog();
  const GpuModel* a100 = c.find("a100-sxm4-40gb");
  ASSERT_NE(a100, nullptr);
  EXPECT_EQ(c.find("NVIDIA A100-SXM4-40GB"), a100);
  EXPECT_EQ(c.find("A100-SXM4-40GB"), a100);
  EXPECT_EQ(c.find("NVIDIA-A100-SXM4-40GB"), a100);  // GFD nvidia.com/gpu.product
  EXPECT_EQ(c.find("  nvidia   a100 sxm4 40gb "), a100);
  EXPECT_EQ(c.find("NVIDIA A100-PCIE-40GB"), a100);
  EXPECT_EQ(c.find("NVIDIA_A100_PCIE_40GB"), a100);

  const GpuModel* t4 = c.find("t4");
  ASSERT_NE(t4, nullptr);
  EXPECT_EQ(c.find("Tesla T4"), t4);   // as nvidia-smi reports it
  EXPECT_EQ(c.find("T4"), t4);
  EXPECT_EQ(c.find("Tesla-T4"), t4);   // as GFD labels it
  EXPECT_EQ(c.find("NVIDIA T4"), t4);

  const GpuModel* mi300x = c.find("mi300x");
  ASSERT_NE(mi300x, nullptr);
  EXPECT_EQ(c.find("AMD Instinct MI300X"), mi300x);
  EXPECT_EQ(c.find("MI300X"), mi300x);
  EXPECT_EQ(c.find("AMD_Instinct_MI300X_OAM"), mi300x);

  EXPECT_EQ(c.find(""), nullptr);
  EXPECT_EQ(c.find("NVIDIA"), nullptr);
  EXPECT_EQ(c.find("A100"), nullptr);
  EXPECT_EQ(c.find("A100-SXM4-40"), nullptr);
  EXPECT_EQ(c.find("H100"), nullptr);
}

TEST(CatalogLookup, PciIdsAreVendorScoped) {
  const Catalog& c = fixture_catalog();
  EXPECT_EQ(c.find_by_pci_device_id(Vendor::nvidia, 0x20B0), c.find("a100-sxm4-40gb"));
  EXPECT_EQ(c.find_by_pci_device_id(Vendor::nvidia, 0x20F1), c.find("a100-sxm4-40gb"));
  EXPECT_EQ(c.find_by_pci_device_id(Vendor::amd, 0x20B0), nullptr);
  EXPECT_EQ(c.find_by_pci_device_id(Vendor::amd, 0x74A1), c.find("mi300x"));
  EXPECT_EQ(c.find_by_pci_device_id(Vendor::nvidia, 0x74A1), nullptr);
  EXPECT_EQ(c.find_by_pci_device_id(Vendor::nvidia, 0x0000), nullptr);
}

TEST(CatalogLookup, AllMigProfileNames) {
  const std::vector<std::string> names = fixture_catalog().all_mig_profile_names();
  EXPECT_EQ(names, (std::vector<std::string>{"1g.10gb", "1g.5gb", "1g.5gb+me", "1g.6gb", "1g.6gb+me", "2g.10gb",
                                             "2g.12gb", "2g.12gb+me", "3g.20gb", "4g.20gb", "4g.24gb", "7g.40gb"}));
  std::set<std::string> builtin;
  for (const std::string& n : Catalog::builtin().all_mig_profile_names()) EXPECT_TRUE(builtin.insert(n).second) << n;
  for (const GpuModel& m : Catalog::builtin().models()) {
    if (!m.mig) continue;
    for (const MigProfile& p : m.mig->profiles) EXPECT_EQ(builtin.count(p.name), 1U) << p.name;
  }
}

TEST(CatalogAmd, PartitionModes) {
  const GpuModel* mi300x = fixture_catalog().find("mi300x");
  ASSERT_NE(mi300x, nullptr);
  ASSERT_TRUE(mi300x->amd_partitions.has_value());
  EXPECT_FALSE(mi300x->mig.has_value());
  const AmdPartitionModes& modes = *mi300x->amd_partitions;
  EXPECT_TRUE(modes.supports("SPX", "NPS1"));
  EXPECT_TRUE(modes.supports("CPX", "NPS4"));
  EXPECT_FALSE(modes.supports("SPX", "NPS4"));
  EXPECT_FALSE(modes.supports("TPX", "NPS1"));
  AmdPartitionModes any{{"SPX", "CPX"}, {"NPS1", "NPS4"}, {}};
  EXPECT_TRUE(any.supports("SPX", "NPS4"));
  EXPECT_FALSE(any.supports("DPX", "NPS1"));
  EXPECT_EQ(to_string(Vendor::amd), "amd");
  EXPECT_EQ(to_string(Vendor::nvidia), "nvidia");
}

TEST(CatalogLoad, ReadsAFileAndNamesAMissingOne) {
  const std::string path = ::testing::TempDir() + "gpupool_catalog_load_test.yaml";
  {
    std::FILE* f = std::fopen(path.c_str(), "w");
    ASSERT_NE(f, nullptr);
    std::fputs(testing::kFixtureCatalog, f);
    std::fclose(f);
  }
  const Catalog c = Catalog::load(path);
  EXPECT_EQ(c.models().size(), fixture_catalog().models().size());
  EXPECT_NE(c.find("Tesla T4"), nullptr);
  std::remove(path.c_str());
  try {
    Catalog::load(path);
    ADD_FAILURE() << "expected CatalogError";
  } catch (const CatalogError& e) {
    GPUPOOL_EXPECT_CONTAINS(e.what(), path);
  }
}

}  // namespace
}  // namespace gpupool::gpu
