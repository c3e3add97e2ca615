// nvidia-smi -q -x: every DTD version and platform the fixtures have, then
// malformed logs, whose errors must name the element or line.
#include <gtest/gtest.h>

#include "gpupool/backend/nvidia_smi_parse.h"
#include "nvsmi_fixtures.h"

namespace gpupool::backend::nvsmi {
namespace {

using testing::fixture;
using testing::ok_or_fail;

const gpu::Catalog& catalog() { return gpu::Catalog::builtin(); }

struct GpuExpect {
  std::string name, uuid, bus_id, catalog_id;
  std::uint32_t device_id;
  std::int64_t memory_mib;
  bool mig_capable;
  MigModeState mig;
  std::size_t instances;
};
struct XmlCase {
  std::string file, driver, cuda;
  std::vector<GpuExpect> gpus;
  std::size_t processes;
};

const MigModeState kOff{MigMode::disabled, MigMode::disabled};

class QueryXmlFixtures : public ::testing::TestWithParam<XmlCase> {};

TEST_P(QueryXmlFixtures, ReadsInventory) {
  const XmlCase& c = GetParam();
  const QueryXml xml = ok_or_fail(parse_query_xml(fixture(c.file), catalog()));
  EXPECT_EQ(xml.inventory.driver_version, c.driver);
  EXPECT_EQ(xml.inventory.cuda_version, c.cuda);
  EXPECT_TRUE(xml.inventory.links.empty());
  ASSERT_EQ(xml.inventory.gpus.size(), c.gpus.size());
  for (std::size_t i = 0; i < c.gpus.size(); ++i) {
    SCOPED_TRACE("gpu " + std::to_string(i));
    const GpuInfo& g = xml.inventory.gpus[i];
    const GpuExpect& e = c.gpus[i];
    EXPECT_EQ(g.index, static_cast<int>(i));
    EXPECT_EQ(g.name, e.name);
    EXPECT_EQ(g.uuid, e.uuid);
    EXPECT_EQ(g.pci_bus_id, e.bus_id);
    EXPECT_EQ(g.pci_device_id, e.device_id);
    EXPECT_EQ(g.memory_mib, e.memory_mib);
    EXPECT_EQ(g.catalog_id, e.catalog_id);
    EXPECT_EQ(g.vendor, gpu::Vendor::nvidia);
    EXPECT_EQ(g.mig_capable, e.mig_capable);
    EXPECT_EQ(g.mig, e.mig);
    EXPECT_EQ(g.instances.size(), e.instances);
  }
  EXPECT_EQ(xml.processes.size(), c.processes);
}

INSTANTIATE_TEST_SUITE_P(
    Versions, QueryXmlFixtures,
    ::testing::Values(
        XmlCase{"q-x_2x-a100-sxm4-80gb_mig_v12.xml", "550.127.08", "12.4",
                {{"NVIDIA A100-SXM4-80GB", "GPU-5a3c2d1e-0b4f-4e6a-9c1d-7f2e8a9b0c11", "00000000:07:00.0",
                  "a100-sxm4-80gb", 0x20B2, 81920, true, {MigMode::enabled, MigMode::enabled}, 3},
                 {"NVIDIA A100-SXM4-80GB", "GPU-0d9e8f7a-6b5c-4d3e-2f1a-0b9c8d7e6f55", "00000000:0F:00.0",
                  "a100-sxm4-80gb", 0x20B2, 81920, true, {MigMode::disabled, MigMode::enabled}, 0}},
                2},
        XmlCase{"q-x_tesla-t4_v11.xml", "515.105.01", "11.7",
                {{"Tesla T4", "GPU-7e1f3c2a-55aa-4b3c-8d9e-0a1b2c3d4e5f", "00000000:00:1E.0", "t4-16gb", 0x1EB8,
                  15360, false, kOff, 0}},
                2},
        // Index is the position in the log, not <minor_number> (1 then 0 here).
        XmlCase{"q-x_2x-rtx-a5000_v13.xml", "590.44.01", "13.1",
                {{"NVIDIA RTX A5000", "GPU-1a2b3c4d-aaaa-bbbb-cccc-000000000081", "00000000:81:00.0", "", 0x2231,
                  24564, false, kOff, 0},
                 {"NVIDIA RTX A5000", "GPU-1a2b3c4d-aaaa-bbbb-cccc-0000000000c1", "00000000:C1:00.0", "", 0x2231,
                  24564, false, kOff, 0}},
                1},
        XmlCase{"q-x_v100_v10_no-doctype.xml", "418.67", "10.1",
                {{"Tesla V100-SXM2-16GB", "GPU-3f6b2a18-9c1e-4d7a-b2e5-86a0f1c2d3e4", "00000000:86:00.0",
                  "v100-sxm2-16gb", 0x1DB1, 16130, false, kOff, 0}},
                0},
        XmlCase{"q-x_windows_rtx-4090_wddm.xml", "566.36", "12.7",
                {{"NVIDIA GeForce RTX 4090", "GPU-9b8a7c6d-1234-5678-9abc-def012345678", "00000000:01:00.0", "",
                  0x2684, 24564, false, kOff, 0}},
                1},
        // A vGPU guest reports the A100's device id but is no MIG-capable A100.
        XmlCase{"q-x_vgpu-guest_a100-4c.xml", "535.161.08", "12.2",
                {{"GRID A100X-4C", "GPU-c0ffee00-1111-2222-3333-444455556666", "00000000:02:01.0", "", 0x20B2, 4096,
                  false, kOff, 0}},
                0}),
    [](const auto& p) {
      std::string n = p.param.file.substr(4, p.param.file.find('.') - 4);
      for (char& ch : n) {
        if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
      }
      return n;
    });

TEST(QueryXml, MigDevicesBecomeInstancesWithIdsOnly) {
  const QueryXml xml = ok_or_fail(parse_query_xml(fixture("q-x_2x-a100-sxm4-80gb_mig_v12.xml"), catalog()));
  ASSERT_EQ(xml.inventory.gpus.size(), 2u);
  const auto& instances = xml.inventory.gpus[0].instances;
  ASSERT_EQ(instances.size(), 3u);
  // Sorted by GPU instance id until merge_mig_tables knows the placements.
  EXPECT_EQ(instances[0].gpu_instance_id, 1);
  EXPECT_EQ(instances[1].gpu_instance_id, 5);
  EXPECT_EQ(instances[2].gpu_instance_id, 13);
  for (const MigInstance& m : instances) {
    EXPECT_EQ(m.compute_instance_id, 0);
    EXPECT_EQ(m.profile, "");
    EXPECT_EQ(m.profile_id, -1);
  }
  const std::vector<XmlMigDevice> devices{
      {0, 0, 1, 0, 40192, 38012, 2180}, {0, 1, 5, 0, 19968, 12, 19955}, {0, 2, 13, 0, 9728, 6, 9721}};
  EXPECT_EQ(xml.mig_devices, devices);
}

TEST(QueryXml, Processes) {
  const QueryXml xml = ok_or_fail(parse_query_xml(fixture("q-x_2x-a100-sxm4-80gb_mig_v12.xml"), catalog()));
  const std::vector<GpuProcess> expected{{0, 1, 4242, 37990, ""}, {1, -1, 5151, 1200, ""}};
  EXPECT_EQ(xml.processes, expected);
  // Windows (WDDM) has no per-process memory: 0.
  const QueryXml win = ok_or_fail(parse_query_xml(fixture("q-x_windows_rtx-4090_wddm.xml"), catalog()));
  const std::vector<GpuProcess> win_expected{{0, -1, 9876, 0, ""}};
  EXPECT_EQ(win.processes, win_expected);
}

TEST(QueryXml, ComputeCapabilityWhenPresent) {
  const std::string xml =
      "<nvidia_smi_log><gpu id=\"00000000:01:00.0\"><product_name>NVIDIA H100 80GB HBM3</product_name>"
      "<compute_cap>9.0</compute_cap><mig_mode><current_mig>Disabled</current_mig></mig_mode></gpu></nvidia_smi_log>";
  const QueryXml parsed = ok_or_fail(parse_query_xml(xml, catalog()));
  ASSERT_EQ(parsed.inventory.gpus.size(), 1u);
  const GpuInfo& g = parsed.inventory.gpus[0];
  EXPECT_EQ(g.compute_major, 9);
  EXPECT_EQ(g.compute_minor, 0);
  EXPECT_EQ(g.catalog_id, "h100-sxm5-80gb");
  EXPECT_TRUE(g.mig_capable);
  // No pending mode reported: the current one.
  EXPECT_EQ(g.mig, kOff);
  EXPECT_EQ(g.pci_bus_id, "00000000:01:00.0");  // from the id attribute
}

TEST(QueryXml, UnknownBoardWithMigFieldsIsMigCapable) {
  const std::string xml =
      "<nvidia_smi_log><gpu><product_name>NVIDIA Future GPU</product_name><mig_mode><current_mig>Enabled</current_mig>"
      "<pending_mig>Disabled</pending_mig></mig_mode></gpu></nvidia_smi_log>";
  const QueryXml parsed = ok_or_fail(parse_query_xml(xml, catalog()));
  ASSERT_EQ(parsed.inventory.gpus.size(), 1u);
  EXPECT_TRUE(parsed.inventory.gpus[0].mig_capable);
  EXPECT_EQ(parsed.inventory.gpus[0].mig, (MigModeState{MigMode::enabled, MigMode::disabled}));
}

TEST(QueryXml, EmptyLogHasNoGpus) {
  const QueryXml parsed = ok_or_fail(parse_query_xml("<nvidia_smi_log></nvidia_smi_log>", catalog()));
  EXPECT_TRUE(parsed.inventory.gpus.empty());
}

struct BadXml {
  std::string name, xml, where, message_part;
};
class QueryXmlErrors : public ::testing::TestWithParam<BadXml> {};

TEST_P(QueryXmlErrors, NameTheElementOrLine) {
  const BadXml& c = GetParam();
  const auto r = parse_query_xml(c.xml, catalog());
  ASSERT_FALSE(r.ok());
  if (c.where.back() == '*') {
    EXPECT_EQ(r.error().where.rfind(c.where.substr(0, c.where.size() - 1), 0), 0u) << r.error().to_string();
  } else {
    EXPECT_EQ(r.error().where, c.where) << r.error().to_string();
  }
  EXPECT_NE(r.error().message.find(c.message_part), std::string::npos) << r.error().to_string();
}

INSTANTIATE_TEST_SUITE_P(
    Malformed, QueryXmlErrors,
    ::testing::Values(
        BadXml{"Empty", "", "/", "no <nvidia_smi_log>"},
        BadXml{"NotXml", "GPU 0: Tesla T4 (UUID: GPU-1)\n", "/", "no <nvidia_smi_log>"},
        BadXml{"Truncated", "<?xml version=\"1.0\" ?>\n<nvidia_smi_log>\n<gpu>\n<uuid>GPU-1</uuid>\n", "line *",
               "not well-formed"},
        BadXml{"TruncatedAfterWarning", "WARNING: x\nWARNING: y\n<nvidia_smi_log>\n<gpu>\n<uuid>GPU-1</uui>\n",
               "line 5", "not well-formed"},
        BadXml{"OtherRoot", "<?xml version=\"1.0\" ?>\n<amd_smi/>", "/", "'amd_smi'"},
        BadXml{"BadDeviceId", "<nvidia_smi_log><gpu/><gpu><pci><pci_device_id>zz10DE</pci_device_id></pci></gpu></nvidia_smi_log>",
               "/nvidia_smi_log/gpu[2]/pci/pci_device_id", "'zz10DE'"},
        BadXml{"BadMemory", "<nvidia_smi_log><gpu><fb_memory_usage><total>lots MiB</total></fb_memory_usage></gpu></nvidia_smi_log>",
               "/nvidia_smi_log/gpu[1]/fb_memory_usage/total", "'lots MiB'"},
        BadXml{"NegativeMemory", "<nvidia_smi_log><gpu><fb_memory_usage><total>-5 MiB</total></fb_memory_usage></gpu></nvidia_smi_log>",
               "/nvidia_smi_log/gpu[1]/fb_memory_usage/total", "'-5 MiB'"},
        BadXml{"BadMigMode", "<nvidia_smi_log><gpu><mig_mode><current_mig>Maybe</current_mig></mig_mode></gpu></nvidia_smi_log>",
               "/nvidia_smi_log/gpu[1]/mig_mode/current_mig", "'Maybe'"},
        BadXml{"BadMigDevice",
               "<nvidia_smi_log><gpu><mig_devices><mig_device><gpu_instance_id>1</gpu_instance_id></mig_device>"
               "<mig_device><gpu_instance_id>x</gpu_instance_id></mig_device></mig_devices></gpu></nvidia_smi_log>",
               "/nvidia_smi_log/gpu[1]/mig_devices/mig_device[2]/gpu_instance_id", "'x'"},
        BadXml{"BadPid",
               "<nvidia_smi_log><gpu><processes><process_info><pid>99999999999</pid></process_info></processes></gpu>"
               "</nvidia_smi_log>",
               "/nvidia_smi_log/gpu[1]/processes/process_info[1]/pid", "'99999999999'"},
        BadXml{"BadComputeCap", "<nvidia_smi_log><gpu><compute_cap>nine</compute_cap></gpu></nvidia_smi_log>",
               "/nvidia_smi_log/gpu[1]/compute_cap", "'nine'"}),
    [](const auto& p) { return p.param.name; });

TEST(QueryXml, DeepNestingIsAnErrorNotACrash) {
  std::string xml = "<nvidia_smi_log>";
  for (int i = 0; i < 5000; ++i) xml += "<a>";
  const auto r = parse_query_xml(xml, catalog());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().where.rfind("line ", 0), 0u) << r.error().to_string();
}

TEST(QueryXml, TooManyGpusIsAnError) {
  std::string xml = "<nvidia_smi_log>";
  for (int i = 0; i < kMaxGpus + 1; ++i) xml += "<gpu/>";
  xml += "</nvidia_smi_log>";
  const auto r = parse_query_xml(xml, catalog());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().where, "/nvidia_smi_log");
}

}  // namespace
}  // namespace gpupool::backend::nvsmi
