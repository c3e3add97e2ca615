// The offline side of the invalid-object table (test/data/invalid-objects.yaml):
// every case marked rejectedBy gpupoolctl is reported by validate_manifests
// with the case's field path; the samples in config/samples/ pass clean.
// (test/integration/crd_install_test.cpp checks the apiserver side.)
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <string>

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include "gpupool/api/manifest.h"
#include "gpupool/api/yaml_json.h"
#include "gpupool/validation/validate.h"

namespace {

using gpupool::validation::Problem;

const std::string kTable = std::string(GPUPOOL_SOURCE_DIR) + "/test/data/invalid-objects.yaml";

gpupool::validation::ValidateResult validate_text(const std::string& text, const std::string& origin) {
  auto manifests = gpupool::api::load_manifests_from_string(text, origin);
  EXPECT_TRUE(manifests.errors.empty()) << manifests.errors.front().str();
  gpupool::validation::ValidateOptions options;
  options.catalog = &gpupool::gpu::Catalog::builtin();
  options.schemas = &gpupool::schema::CrdSchemaSet::builtin();
  return gpupool::validation::validate_manifests(manifests, options);
}

std::string dump(const std::vector<Problem>& problems) {
  std::string out;
  for (const auto& p : problems) out += "  " + format_problem(p) + "\n";
  return out.empty() ? "  (no problems)\n" : out;
}

// JSON text of a table node, converted as kubectl converts YAML (quoted
// scalars stay strings: "1.5" must not turn into the number 1.5).
std::string json_of(const YAML::Node& node) {
  rapidjson::Document doc;
  rapidjson::Value v = gpupool::api::yaml_to_json(node, doc.GetAllocator());
  rapidjson::StringBuffer buf;
  rapidjson::Writer<rapidjson::StringBuffer> w(buf);
  v.Accept(w);
  return std::string(buf.GetString(), buf.GetSize()) + "\n";
}

bool rejected_by(const YAML::Node& c, const std::string& who) {
  for (const auto& r : c["rejectedBy"]) {
    if (r.as<std::string>() == who) return true;
  }
  return false;
}

TEST(InvalidObjectTable, GpupoolctlReportsEveryCaseAtItsField) {
  YAML::Node table = YAML::LoadFile(kTable);
  ASSERT_TRUE(table.IsSequence());
  int offline = 0;
  for (const auto& c : table) {
    const std::string name = c["name"].as<std::string>();
    SCOPED_TRACE("case " + name);
    if (!rejected_by(c, "gpupoolctl")) continue;
    ++offline;
    // Context objects first, then the case's object, as one input.
    std::string text;
    if (c["context"]) {
      for (const auto& ctx : c["context"]) text += json_of(ctx);
    }
    const std::string object_name = c["object"]["metadata"]["name"].as<std::string>();
    text += json_of(c["object"]);
    auto result = validate_text(text, name + ".yaml");
    const std::string field = c["field"].as<std::string>();
    bool found = std::any_of(result.problems.begin(), result.problems.end(), [&](const Problem& p) {
      return p.object.find(object_name) != std::string::npos && p.path.rfind(field, 0) == 0;
    });
    EXPECT_TRUE(found) << "expected a problem at " << field << " for " << object_name << ", got:\n"
                       << dump(result.problems);
  }
  EXPECT_GE(offline, 40);
}

TEST(InvalidObjectTable, SemanticOnlyCasesPassTheSchema) {
  // A case the apiserver accepts must not fail the offline schema check
  // either: its only problem is semantic. (Catches a schema checker stricter
  // than kube-apiserver.)
  YAML::Node table = YAML::LoadFile(kTable);
  for (const auto& c : table) {
    if (rejected_by(c, "apiserver")) continue;
    SCOPED_TRACE("case " + c["name"].as<std::string>());
    auto manifests = gpupool::api::load_manifests_from_string(json_of(c["object"]), "case.json");
    ASSERT_EQ(manifests.objects.size(), 1u);
    auto errors = gpupool::schema::CrdSchemaSet::builtin().validate(manifests.objects[0].object);
    EXPECT_TRUE(errors.empty()) << gpupool::api::format_field_errors(errors);
  }
}

TEST(Samples, PassOfflineValidation) {
  auto manifests = gpupool::api::load_manifests({std::string(GPUPOOL_SOURCE_DIR) + "/config/samples"});
  // kustomization.yaml is no object of ours: it is skipped, not an error.
  for (const auto& e : manifests.errors) ADD_FAILURE() << e.str();
  gpupool::validation::ValidateOptions options;
  options.catalog = &gpupool::gpu::Catalog::builtin();
  options.schemas = &gpupool::schema::CrdSchemaSet::builtin();
  auto result = gpupool::validation::validate_manifests(manifests, options);
  EXPECT_TRUE(result.problems.empty()) << dump(result.problems);
  EXPECT_GE(result.objects_checked, 7);
}

}  // namespace
