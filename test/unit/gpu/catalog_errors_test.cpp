// Catalog files that break the format or an invariant: CatalogError names
// the model and the field.
#include <gtest/gtest.h>

#include "gpu_fixtures.h"
#include "gpupool/gpu/catalog.h"

namespace gpupool::gpu {
namespace {

// Two small models; each case edits one line.
constexpr const char* kBase = R"(
models:
  - id: alpha
    vendor: nvidia
    displayName: NVIDIA Alpha-40GB
    names: ["NVIDIA Alpha-40GB"]
    pciDeviceIds: ["0x1111"]
    memoryMiB: 40960
    architecture: Ampere
    mig:
      computeSlices: 7
      memorySlices: 8
      profiles:
        - {name: 1g.5gb, id: 19, computeSlices: 1, memorySlices: 1, memoryMiB: 4864, maxCount: 7, placements: "{0,1,2,3,4,5,6}:1"}
        - {name: 3g.20gb, id: 9, computeSlices: 3, memorySlices: 4, memoryMiB: 19968, maxCount: 2, placements: "{0,4}:4"}
    sources: ["alpha source"]
  - id: beta
    vendor: amd
    displayName: AMD Beta
    names: ["AMD Beta"]
    pciDeviceIds: ["0x2222"]
    memoryMiB: 65536
    architecture: CDNA3
    amdPartitions:
      compute: [SPX, CPX]
      memory: [NPS1, NPS4]
      combinations: [[SPX, NPS1], [CPX, NPS4]]
    sources: ["beta source"]
)";

std::string edit(const std::string& from, const std::string& to) {
  std::string text = kBase;
  const auto at = text.find(from);
  if (at == std::string::npos) throw std::logic_error("fixture has no " + from);
  return text.replace(at, from.size(), to);
}

// kBase and a third model, nvidia, with that PCI id.
std::string with_gamma(const std::string& pci_id) {
  return std::string(kBase) + R"(  - id: gamma
    vendor: nvidia
    displayName: NVIDIA Gamma
    names: []
    pciDeviceIds: [")" + pci_id + R"("]
    memoryMiB: 16384
    architecture: Turing
    sources: ["gamma source"]
)";
}

// alpha with its two profiles named "1g.5gb+gfx,me" and "1g.5gb+me,gfx".
std::string two_spellings() {
  std::string text = edit("name: 1g.5gb, id: 19", "name: \"1g.5gb+gfx,me\", id: 19");
  const std::string from = "name: 3g.20gb, id: 9, computeSlices: 3";
  return text.replace(text.find(from), from.size(), "name: \"1g.5gb+me,gfx\", id: 9, computeSlices: 1");
}

// The what() of parsing `text`, or "" (after failing) if it parses.
std::string error_parsing(const std::string& text) {
  try {
    Catalog::parse(text, "case.yaml");
  } catch (const CatalogError& e) {
    return e.what();
  }
  ADD_FAILURE() << "parsed without error";
  return "";
}

struct Case {
  const char* name;
  std::string text;
  std::vector<std::string> expected_parts;  // model, field, reason
};

std::vector<Case> cases() {
  const std::string p1g = R"({name: 1g.5gb, id: 19, computeSlices: 1, memorySlices: 1, memoryMiB: 4864, maxCount: 7, placements: "{0,1,2,3,4,5,6}:1"})";
  auto profile = [&](const std::string& from, const std::string& to) {
    std::string p = p1g;
    return edit(p1g, p.replace(p.find(from), from.size(), to));
  };
  return {
      {"base parses", "", {}},
      {"duplicate id", edit("id: beta", "id: alpha"), {"model alpha: id", "appears twice"}},
      {"duplicate name", edit("names: [\"AMD Beta\"]", "names: [\"AMD Beta\", \"NVIDIA Alpha 40GB\"]"),
       {"model beta: names[1]", "would also find model alpha"}},
      {"name colliding in GFD form", edit("names: [\"AMD Beta\"]", "names: [\"NVIDIA-ALPHA-40GB\"]"),
       {"model beta: names[0]", "would also find model alpha"}},
      {"duplicate pci id", with_gamma("0x1111"), {"model gamma: pciDeviceIds", "0x1111 is also model alpha's"}},
      {"same pci id at another vendor", with_gamma("0x2222"), {}},
      {"pci id repeated in a model", edit("\"0x1111\"", "\"0x1111\", \"0x1111\""), {"model alpha: pciDeviceIds", "appears twice"}},
      {"pci id without 0x", edit("\"0x1111\"", "\"1111\""), {"model alpha: pciDeviceIds[0]", "expected a 16-bit hex id"}},
      {"pci id too short", edit("\"0x1111\"", "\"0x111\""), {"model alpha: pciDeviceIds[0]", "\"0x111\""}},
      {"pci id not hex", edit("\"0x1111\"", "\"0x11G1\""), {"model alpha: pciDeviceIds[0]"}},
      {"unknown vendor", edit("vendor: amd", "vendor: intel"), {"model beta: vendor", "expected nvidia or amd"}},
      {"placements without colon", profile("\"{0,1,2,3,4,5,6}:1\"", "\"{0,1,2,3,4,5,6}1\""),
       {"model alpha: mig.profiles[1g.5gb].placements", "expected \"{start,start,...}:size\""}},
      {"placements with spaces", profile("\"{0,1,2,3,4,5,6}:1\"", "\"{0, 1}:1\""),
       {"model alpha: mig.profiles[1g.5gb].placements"}},
      {"placements empty", profile("\"{0,1,2,3,4,5,6}:1\"", "\"{}:1\""), {"mig.profiles[1g.5gb].placements"}},
      {"placements trailing comma", profile("\"{0,1,2,3,4,5,6}:1\"", "\"{0,1,}:1\""), {"mig.profiles[1g.5gb].placements"}},
      {"placements descending", profile("\"{0,1,2,3,4,5,6}:1\"", "\"{1,0}:1\""), {"strictly ascending"}},
      {"placement size zero", profile("\"{0,1,2,3,4,5,6}:1\"", "\"{0}:0\""), {"size must be positive"}},
      {"placement size differs", profile("\"{0,1,2,3,4,5,6}:1\"", "\"{0,1,2,3,4,5,6}:2\""),
       {"model alpha: mig.profiles[1g.5gb].placements", "size 2 differs from memorySlices 1"}},
      {"placement past the slices", edit("\"{0,4}:4\"", "\"{0,4,6}:4\""),
       {"model alpha: mig.profiles[3g.20gb].placements", "start 6 + size 4 exceeds the 8 memory slices"}},
      {"duplicate profile name", edit("name: 3g.20gb", "name: 1g.5gb"),
       {"model alpha: mig.profiles[1g.5gb].name", "appears twice"}},
      {"duplicate profile id", edit("id: 9,", "id: 19,"), {"model alpha: mig.profiles[3g.20gb].id", "profile id 19 is also 1g.5gb's"}},
      {"profile name outside the grammar", edit("name: 3g.20gb", "name: 3g.20gb++me"),
       {"model alpha: mig.profiles[3g.20gb++me].name", "not a MIG profile name: attribute \"+me\" has a character"}},
      {"profile name not a name", edit("name: 3g.20gb", "name: big"),
       {"model alpha: mig.profiles[big].name", "not a MIG profile name: expected <g>g.<gb>gb"}},
      {"compute-instance profile name", edit("name: 3g.20gb", "name: 1c.3g.20gb"),
       {"model alpha: mig.profiles[1c.3g.20gb].name", "a compute-instance profile name"}},
      {"name and compute slices disagree", edit("name: 3g.20gb", "name: 4g.20gb"),
       {"model alpha: mig.profiles[4g.20gb].name", "says 4g but computeSlices is 3"}},
      {"two spellings of one profile", two_spellings(),
       {"model alpha: mig.profiles[1g.5gb+me,gfx].name", "1g.5gb+me,gfx names the same profile as 1g.5gb+gfx,me"}},
      {"RTX PRO attributes are names", edit("name: 3g.20gb", "name: 3g.20gb-me"), {}},
      {"compute slices above the model's", edit("name: 3g.20gb, id: 9, computeSlices: 3", "name: 3g.20gb, id: 9, computeSlices: 8"),
       {"model alpha: mig.profiles[3g.20gb].computeSlices", "8 is not within 1..7"}},
      {"memory slices above the model's", edit("computeSlices: 3, memorySlices: 4", "computeSlices: 3, memorySlices: 9"),
       {"model alpha: mig.profiles[3g.20gb].memorySlices", "9 is not within 1..8"}},
      {"compute slices zero", profile("computeSlices: 1", "computeSlices: 0"), {"mig.profiles[1g.5gb].computeSlices"}},
      {"max count zero", profile("maxCount: 7", "maxCount: 0"), {"model alpha: mig.profiles[1g.5gb].maxCount", "at least 1"}},
      {"max count above placements", profile("maxCount: 7", "maxCount: 8"), {"mig.profiles[1g.5gb].maxCount", "exceeds the 7 placements"}},
      {"negative max count", profile("maxCount: 7", "maxCount: -1"), {"mig.profiles[1g.5gb].maxCount", "non-negative integer"}},
      {"profile memory above the model's", profile("memoryMiB: 4864", "memoryMiB: 99999"), {"mig.profiles[1g.5gb].memoryMiB"}},
      {"mig on amd", edit("    amdPartitions:", "    mig: {computeSlices: 1, memorySlices: 1, profiles: [{name: 1g.5gb, id: 1, "
                                               "computeSlices: 1, memorySlices: 1, memoryMiB: 1, maxCount: 1, placements: \"{0}:1\"}]}\n"
                                               "    amdPartitions:"),
       {"model beta: mig", "only NVIDIA models have MIG"}},
      {"amd partitions on nvidia", edit("    sources: [\"alpha source\"]", "    amdPartitions: {compute: [SPX], memory: [NPS1]}\n"
                                                                         "    sources: [\"alpha source\"]"),
       {"model alpha: amdPartitions", "only AMD models"}},
      {"amd combination with an unlisted mode", edit("[CPX, NPS4]", "[DPX, NPS4]"),
       {"model beta: amdPartitions.combinations[1]", "compute mode DPX is not in compute (SPX, CPX)"}},
      {"amd unknown mode", edit("memory: [NPS1, NPS4]", "memory: [NPS1, NPS3]"), {"model beta: amdPartitions.memory", "unknown mode NPS3"}},
      {"empty sources", edit("sources: [\"beta source\"]", "sources: []"), {"model beta: sources", "at least one public source"}},
      {"missing sources", edit("    sources: [\"beta source\"]\n", ""), {"model beta: sources", "required field is missing"}},
      {"unknown field", edit("architecture: CDNA3", "architecture: CDNA3\n    formFactor: OAM"), {"model beta: formFactor", "unknown field"}},
      {"unknown profile field", profile("maxCount: 7", "maxCount: 7, shared: true"), {"mig.profiles[1g.5gb].shared", "unknown field"}},
      {"bad id", edit("id: beta", "id: Beta_1"), {"model Beta_1: id", "lowercase"}},
      {"missing id", edit("  - id: beta\n    vendor: amd", "  - vendor: amd"), {"models[1]: id", "required field is missing"}},
      {"memory as text", edit("memoryMiB: 65536", "memoryMiB: 64GiB"), {"model beta: memoryMiB", "expected a non-negative integer, got 64GiB"}},
      {"memory quoted", edit("memoryMiB: 65536", "memoryMiB: \"65536\""), {"model beta: memoryMiB"}},
      {"names not a list", edit("names: [\"AMD Beta\"]", "names: AMD Beta"), {"model beta: names", "expected a list of strings"}},
      {"no models", "models: []\n", {"models", "non-empty list"}},
      {"not yaml", "models: [\n", {"gpu catalog case.yaml: YAML"}},
      {"not a map", "- 1\n- 2\n", {"gpu catalog case.yaml: top level", "expected a map"}},
  };
}

TEST(CatalogErrors, EachInvariantNamesModelAndField) {
  for (const Case& c : cases()) {
    SCOPED_TRACE(c.name);
    if (c.expected_parts.empty()) {
      EXPECT_NO_THROW(Catalog::parse(c.text.empty() ? std::string(kBase) : c.text, "case.yaml"));
      continue;
    }
    const std::string what = error_parsing(c.text);
    GPUPOOL_EXPECT_CONTAINS(what, "gpu catalog case.yaml: ");
    for (const std::string& part : c.expected_parts) GPUPOOL_EXPECT_CONTAINS(what, part);
  }
}

TEST(CatalogErrors, ExactMessage) {
  EXPECT_EQ(error_parsing(edit("\"{0,4}:4\"", "\"{0,4,6}:4\"")),
            "gpu catalog case.yaml: model alpha: mig.profiles[3g.20gb].placements: start 6 + size 4 exceeds the 8 "
            "memory slices");
}

}  // namespace
}  // namespace gpupool::gpu
