// Malformed tool output: every parser answers with an error naming the
// command and the JSON path (or line) it could not read, never a throw.
#include <functional>
#include <map>

#include <gtest/gtest.h>

#include "gpupool/backend/amd_parse.h"

namespace gpupool::backend {
namespace {

using Parser = std::function<std::string(std::string_view)>;  // "" on success, else the error

template <class T>
std::string error_of(const amdsmi::Parsed<T>& p) {
  return p ? std::string() : (p.error.empty() ? std::string("(empty error)") : p.error);
}

const std::map<std::string, Parser>& parsers() {
  static const std::map<std::string, Parser> all{
      {"static", [](std::string_view s) { return error_of(amdsmi::parse_static_json(s, gpu::Catalog::builtin())); }},
      {"list", [](std::string_view s) { return error_of(amdsmi::parse_list_json(s)); }},
      {"metric", [](std::string_view s) { return error_of(amdsmi::parse_metric_json(s)); }},
      {"partition", [](std::string_view s) { return error_of(amdsmi::parse_partition_json(s)); }},
      {"partition-text", [](std::string_view s) { return error_of(amdsmi::parse_partition_text(s)); }},
      {"process", [](std::string_view s) { return error_of(amdsmi::parse_process_json(s)); }},
      {"rocm-smi", [](std::string_view s) { return error_of(amdsmi::parse_rocm_smi_json(s, gpu::Catalog::builtin())); }},
      {"rocm-smi-metrics", [](std::string_view s) { return error_of(amdsmi::parse_rocm_smi_metrics_json(s)); }},
  };
  return all;
}

struct BadCase {
  const char* parser;
  std::string input;
  const char* error;  // a substring the error must contain
};

class Malformed : public ::testing::TestWithParam<BadCase> {};

TEST_P(Malformed, ErrorNamesWhereReadingStopped) {
  const BadCase& c = GetParam();
  std::string error;
  ASSERT_NO_THROW(error = parsers().at(c.parser)(c.input));
  EXPECT_NE(error.find(c.error), std::string::npos) << "error was: " << error;
}

INSTANTIATE_TEST_SUITE_P(
    Table, Malformed,
    ::testing::Values(
        BadCase{"static", "", "amd-smi static --json: invalid JSON at line 1 column 1"},
        BadCase{"static", "[\n  {\"gpu\": 0,}\n]", "invalid JSON at line 2 column 13"},
        BadCase{"static", "[{\"gpu\": 0}] trailing", "invalid JSON at line 1 column 14: The document root must not be followed by other values"},
        BadCase{"static", "42", "$: expected an array of GPUs, got a number"},
        BadCase{"static", "{\"gpus\": []}", "$: expected an array of GPUs or an object with \"gpu_data\""},
        BadCase{"static", "{\"gpu_data\": {}}", "$.gpu_data: expected an array of GPUs, got an object"},
        BadCase{"static", "[1]", "$[0]: expected an object, got a number"},
        BadCase{"static", "[{\"asic\": {}}]", "$[0].gpu: missing GPU index"},
        BadCase{"static", "[{\"gpu\": -1}]", "$[0].gpu: expected a GPU index"},
        BadCase{"static", "[{\"gpu\": 1.5}]", "$[0].gpu: expected a GPU index"},
        BadCase{"static", "[{\"gpu\": 0}, {\"gpu\": 0}]", "GPU 0 is listed twice"},
        BadCase{"static", "[{\"gpu\": 0, \"asic\": 7}]", "$[0].asic: expected an object, got a number"},
        BadCase{"static", "{\"gpu_data\": [{\"gpu\": 0, \"asic\": {\"device_id\": \"0xzz\"}}]}",
                "$.gpu_data[0].asic.device_id: expected a PCI device id like \"0x74a1\", got \"0xzz\""},
        BadCase{"static", "[{\"gpu\": 0, \"asic\": {\"market_name\": [\"x\"]}}]",
                "$[0].asic.market_name: expected a string or number, got an array"},
        BadCase{"static", "[{\"gpu\": 0, \"vram\": {\"size\": {\"value\": \"lots\", \"unit\": \"MB\"}}}]",
                "$[0].vram.size.value: expected a number, got \"lots\""},
        BadCase{"static", "[{\"gpu\": 0, \"vram\": {\"size\": {\"value\": 5, \"unit\": \"parsecs\"}}}]",
                "$[0].vram.size: unknown memory unit \"parsecs\""},
        BadCase{"static", "[{\"gpu\": 0, \"vram\": {\"size\": 1e300}}]", "$[0].vram.size: memory size out of range"},
        BadCase{"static", "[" + std::string(100000, '[') , "invalid JSON"},
        BadCase{"list", "[{\"gpu\": 0, \"uuid\": {}}]", "amd-smi list --json: $[0].uuid: expected a string or number"},
        BadCase{"metric", "[{\"gpu\": 0, \"power\": {\"socket_power\": {\"value\": true}}}]",
                "amd-smi metric --json: $[0].power.socket_power.value: expected a number, got a boolean"},
        BadCase{"metric", "{\"gpu_data\": [{\"gpu\": 0, \"ecc\": {\"total_correctable_count\": -4}}]}",
                "$.gpu_data[0].ecc: ECC count out of range"},
        BadCase{"metric", "[{\"gpu\": 0, \"usage\": [1]}]", "$[0].usage: expected an object, got an array"},
        BadCase{"partition", "{\"current_partition\": 3}", "amd-smi partition --json: $.current_partition: expected an array"},
        BadCase{"partition", "{\"current_partition\": [{\"memory\": \"NPS1\"}]}",
                "$.current_partition[0].gpu: missing GPU index"},
        BadCase{"partition-text", "GPU_ID MEMORY\n0x NPS1\n", "amd-smi partition: line 2: expected a GPU index, got \"0x\""},
        BadCase{"process", "[{\"gpu\": 0, \"process_list\": {\"pid\": 1}}]",
                "amd-smi process --json: $[0].process_list: expected an array, got an object"},
        BadCase{"process", "[{\"gpu\": 0, \"process_list\": [{\"process_info\": {\"pid\": -3}}]}]",
                "$[0].process_list[0].process_info.pid: expected a process id"},
        BadCase{"rocm-smi", "[]", "rocm-smi --json: $: expected an object of \"cardN\" members, got an array"},
        BadCase{"rocm-smi", "{\"card0\": \"x\"}", "$.card0: expected an object, got a string"},
        BadCase{"rocm-smi", "{\"card0\": {\"Device ID\": \"0x12345\"}}",
                "$.card0.Device ID: expected a PCI device id like \"0x738c\", got \"0x12345\""},
        BadCase{"rocm-smi-metrics", "{\"card1\": {\"GPU use (%)\": \"busy\"}}",
                "$.card1.GPU use (%): expected a number, got \"busy\""},
        BadCase{"metric", "[{\"gpu\": 0, \"clock\": {\"gfx_0\": {\"clk\": \"fast\"}}}]",
                "$[0].clock.gfx_0.clk: expected a number, got \"fast\""},
        BadCase{"metric", "[{\"gpu\": 0, \"clock\": {\"mem_0\": {\"clk\": {\"value\": 900, \"unit\": \"rpm\"}}}}]",
                "$[0].clock.mem_0.clk: unknown clock unit \"rpm\""},
        BadCase{"metric", "[{\"gpu\": 0, \"clock\": {\"gfx_0\": 1700}}]",
                "$[0].clock.gfx_0: expected an object, got a number"},
        BadCase{"metric", "[{\"gpu\": 0, \"energy\": {\"total_energy_consumption\": {\"value\": 3, \"unit\": \"kWh\"}}}]",
                "$[0].energy.total_energy_consumption: unknown energy unit \"kWh\""},
        BadCase{"metric", "[{\"gpu\": 0, \"energy\": {\"total_energy_consumption\": -5}}]",
                "$[0].energy.total_energy_consumption: energy out of range"},
        BadCase{"metric", "[{\"gpu\": 0, \"mem_usage\": {\"free_vram\": \"lots\"}}]",
                "$[0].mem_usage.free_vram: expected a number, got \"lots\""},
        BadCase{"rocm-smi-metrics", "{\"card0\": {\"sclk clock speed:\": \"(fastMhz)\"}}",
                "$.card0.sclk clock speed:: expected a clock like \"(1700Mhz)\", got \"(fastMhz)\""},
        BadCase{"rocm-smi-metrics", "{\"card0\": {\"mclk clock speed:\": \"(900Mbps)\"}}",
                "$.card0.mclk clock speed:: unknown clock unit \"Mbps\""},
        BadCase{"rocm-smi-metrics", "{\"card0\": {\"Accumulated Energy (uJ)\": \"1e300\"}}",
                "$.card0.Accumulated Energy (uJ): energy out of range"}));

TEST(Malformed, OversizedInputIsRefused) {
  const std::string big(amdsmi::kMaxInputBytes + 1, ' ');
  for (const auto& [name, parse] : parsers()) {
    EXPECT_NE(parse(big).find("-byte limit"), std::string::npos) << name;
  }
}

TEST(Malformed, EmbeddedNulAndGarbageNeverThrow) {
  const std::string inputs[] = {std::string("[{\"gpu\": 0}]\0junk", 17), "\xff\xfe", "{\"gpu_data\": [null]}",
                                "[{\"gpu\": \"7\", \"partition\": \"N/A\"}]", "nul\n"};
  for (const auto& input : inputs) {
    for (const auto& [name, parse] : parsers()) EXPECT_NO_THROW(parse(input)) << name;
  }
}

}  // namespace
}  // namespace gpupool::backend
