// load_manifests: files, directories, stdin, multi-document YAML, JSON, Lists.
#include "gpupool/api/manifest.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

namespace gpupool::api {
namespace {

namespace fs = std::filesystem;

class TempDir {
 public:
  TempDir() {
    path_ = fs::temp_directory_path() /
            ("gpupool-manifest-test-" + std::to_string(::getpid()) + "-" + std::to_string(counter_++));
    fs::remove_all(path_);
    fs::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  std::string write(const std::string& rel, const std::string& content) const {
    const fs::path p = path_ / rel;
    fs::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary) << content;
    return p.string();
  }
  std::string str() const { return path_.string(); }

 private:
  static inline int counter_ = 0;
  fs::path path_;
};

std::string cm(const std::string& name) {
  return "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: " + name + "\n";
}

TEST(ManifestLoad, MultiDocumentYamlSkipsEmptyAndCommentOnlyDocuments) {
  const std::string text =
      "# leading comment\n"
      "---\n" +
      cm("a") +
      "---\n"
      "---   # empty, with a comment on the separator\n"
      "# only a comment\n"
      "---\n"
      "\n" +
      cm("b") + "--- \n" + cm("c");
  const ManifestSet set = load_manifests_from_string(text, "x.yaml");
  ASSERT_TRUE(set.errors.empty()) << set.errors.front().str();
  ASSERT_EQ(set.objects.size(), 3u);
  EXPECT_EQ(set.objects[0].name(), "a");
  EXPECT_EQ(set.objects[0].document, 0u);
  EXPECT_EQ(set.objects[0].line, 3u);
  EXPECT_EQ(set.objects[1].name(), "b");
  EXPECT_EQ(set.objects[1].document, 1u);
  EXPECT_EQ(set.objects[1].line, 12u);
  EXPECT_EQ(set.objects[2].name(), "c");
  EXPECT_EQ(set.objects[2].document, 2u);
  EXPECT_EQ(set.objects[2].line, 17u);
  EXPECT_EQ(set.objects[2].location(), "x.yaml:17");
  EXPECT_EQ(set.objects[0].kind(), "ConfigMap");
  EXPECT_EQ(set.objects[0].api_version(), "v1");
  EXPECT_TRUE(set.objects[0].object.IsObject());
}

TEST(ManifestLoad, SeparatorLookalikesDoNotSplit) {
  const ManifestSet set =
      load_manifests_from_string(cm("a") + "data:\n  k: |\n    ---x\n     ---\n" + "---\r\n" + cm("b"), "x.yaml");
  ASSERT_TRUE(set.errors.empty()) << set.errors.front().str();
  ASSERT_EQ(set.objects.size(), 2u);
  EXPECT_STREQ(set.objects[0].object["data"]["k"].GetString(), "---x\n ---\n");
}

TEST(ManifestLoad, NullDocumentIsSkippedButCounted) {
  const ManifestSet set = load_manifests_from_string("null\n---\n" + cm("a"), "x.yaml");
  ASSERT_TRUE(set.errors.empty());
  ASSERT_EQ(set.objects.size(), 1u);
  EXPECT_EQ(set.objects[0].document, 1u);
}

TEST(ManifestLoad, ErrorsCarryFileAndLineAndDoNotStopOtherDocuments) {
  const std::string text = cm("a") + "---\nkind: X\nbad: [1, 2\n---\n- a list\n---\n" + cm("b") +
                           "---\njust a string\n---\na: 1\na: 2\n";
  const ManifestSet set = load_manifests_from_string(text, "bad.yaml");
  ASSERT_EQ(set.objects.size(), 2u);
  EXPECT_EQ(set.objects[1].name(), "b");
  EXPECT_EQ(set.objects[1].document, 3u);
  ASSERT_EQ(set.errors.size(), 4u);
  EXPECT_EQ(set.errors[0].file, "bad.yaml");
  EXPECT_EQ(set.errors[0].line, 7u);  // the flow sequence that never ends
  EXPECT_EQ(set.errors[0].message, "yaml: line 7 (end of document): end of sequence flow not found") << set.errors[0].message;
  EXPECT_EQ(set.errors[1].line, 9u);
  EXPECT_NE(set.errors[1].message.find("not a mapping"), std::string::npos) << set.errors[1].message;
  EXPECT_EQ(set.errors[2].line, 16u);
  EXPECT_NE(set.errors[2].message.find("not a mapping"), std::string::npos);
  EXPECT_EQ(set.errors[3].line, 19u);
  EXPECT_NE(set.errors[3].message.find("line 19, column 1: key \"a\" already set in map"), std::string::npos)
      << set.errors[3].message;
  EXPECT_EQ(set.errors[3].str().rfind("bad.yaml:19: yaml: ", 0), 0u) << set.errors[3].str();
}

TEST(ManifestLoad, HostileInputIsAnErrorNotACrash) {
  const ManifestSet deep = load_manifests_from_string("a: " + std::string(5000, '[') + "\n", "deep.yaml");
  EXPECT_TRUE(deep.objects.empty());
  EXPECT_EQ(deep.errors.size(), 1u);
  const ManifestSet deep_json =
      load_manifests_from_string("{\"a\": " + std::string(100000, '[') + std::string(100000, ']') + "}", "deep.json");
  EXPECT_TRUE(deep_json.objects.empty());
  ASSERT_EQ(deep_json.errors.size(), 1u);
  EXPECT_NE(deep_json.errors[0].message.find("nested deeper than"), std::string::npos);
  const ManifestSet cycle = load_manifests_from_string("a: &x\n  b: *x\n", "cycle.yaml");
  EXPECT_TRUE(cycle.objects.empty());
  ASSERT_EQ(cycle.errors.size(), 1u);
  const ManifestSet inf = load_manifests_from_string("a: .inf\n", "inf.yaml");
  ASSERT_EQ(inf.errors.size(), 1u);
  EXPECT_EQ(inf.errors[0].line, 1u);
  // Malformed input of many sorts: errors (or nothing), never a crash.
  for (const char* junk : {"\t\t:", "{{", "a: b: c", "]", "%YAML 9\n---\na: 1", "\xff\xfe", "\"unterminated",
                           "a: *undefined", "? : :", "- [\n- {", "a: !!binary @@@"}) {
    const ManifestSet s = load_manifests_from_string(junk, "junk");
    for (const auto& e : s.errors) EXPECT_FALSE(e.message.empty()) << junk;
  }
}

TEST(ManifestLoad, ListsAreExpanded) {
  const std::string text =
      "apiVersion: v1\nkind: List\nitems:\n- " + std::string("{apiVersion: v1, kind: ConfigMap, metadata: {name: a}}") +
      "\n- {apiVersion: v1, kind: ConfigMap, metadata: {name: b}}\n- 42\n"
      "---\n"
      "apiVersion: v1\nkind: ConfigMapList\nitems:\n- {kind: ConfigMap, metadata: {name: c}}\n"
      "---\n"
      "apiVersion: v1\nkind: Playlist\nspec: {}\n";  // ends in "List"... no: "Playlist" has no items
  const ManifestSet set = load_manifests_from_string(text, "list.yaml");
  ASSERT_EQ(set.objects.size(), 4u);
  EXPECT_EQ(set.objects[0].name(), "a");
  EXPECT_EQ(set.objects[0].item, 0u);
  EXPECT_EQ(set.objects[0].document, 0u);
  EXPECT_EQ(set.objects[1].name(), "b");
  EXPECT_EQ(set.objects[1].item, 1u);
  EXPECT_EQ(set.objects[2].name(), "c");
  EXPECT_EQ(set.objects[2].document, 1u);
  EXPECT_EQ(set.objects[3].kind(), "Playlist");
  EXPECT_FALSE(set.objects[3].item.has_value());
  ASSERT_EQ(set.errors.size(), 1u);
  EXPECT_NE(set.errors[0].message.find("items[2]"), std::string::npos);
}

TEST(ManifestLoad, JsonStreams) {
  const ManifestSet set = load_manifests_from_string(
      "\n  {\"apiVersion\": \"v1\", \"kind\": \"ConfigMap\", \"metadata\": {\"name\": \"a\"}, \"x\": 3.0}\n"
      "{\"apiVersion\": \"v1\", \"kind\": \"List\", \"items\": [{\"kind\": \"ConfigMap\", \"metadata\": {\"name\": "
      "\"b\"}}]}\n",
      "x.json");
  ASSERT_TRUE(set.errors.empty()) << set.errors.front().str();
  ASSERT_EQ(set.objects.size(), 2u);
  EXPECT_EQ(set.objects[0].line, 2u);
  EXPECT_TRUE(set.objects[0].object["x"].IsDouble());  // sent as written
  EXPECT_EQ(set.objects[1].name(), "b");
  EXPECT_EQ(set.objects[1].document, 1u);
  EXPECT_EQ(set.objects[1].line, 3u);

  const ManifestSet bad = load_manifests_from_string("{\"a\": 1,\n \"a\": 2}\n", "dup.json");
  ASSERT_EQ(bad.errors.size(), 1u);
  EXPECT_NE(bad.errors[0].message.find("duplicate field \"a\""), std::string::npos);
  const ManifestSet broken = load_manifests_from_string("{\"a\": 1,\n\n \"b\" 2}\n", "broken.json");
  ASSERT_EQ(broken.errors.size(), 1u);
  EXPECT_EQ(broken.errors[0].line, 3u);
}

TEST(ManifestLoad, DirectoryWalkOrderAndExtensions) {
  TempDir dir;
  dir.write("b.yaml", cm("b"));
  dir.write("a/z.yml", cm("a-z"));
  dir.write("a-b/x.yaml", cm("a-b-x"));
  dir.write("a/sub/y.json", R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a-sub-y"}})");
  dir.write("a/notes.txt", "not: a manifest");
  dir.write("c.YAML", cm("upper-case-extension-skipped"));
  dir.write("0.yaml", cm("zero") + "---\n" + cm("zero-2"));
  dir.write("a/empty.yaml", "");
  const ManifestSet set = load_manifests({dir.str()});
  ASSERT_TRUE(set.errors.empty()) << set.errors.front().str();
  std::vector<std::string> names;
  for (const auto& m : set.objects) names.push_back(m.name());
  // filepath.Walk order: "0.yaml" < "a" < "a-b" < "b.yaml"; "a"'s entries: sub/ < z.yml.
  EXPECT_EQ(names, (std::vector<std::string>{"zero", "zero-2", "a-sub-y", "a-z", "a-b-x", "b"}));
  EXPECT_EQ(set.objects[0].file, (fs::path(dir.str()) / "0.yaml").string());
}

TEST(ManifestLoad, ExplicitFilesAnyExtensionAndMissingFiles) {
  TempDir dir;
  const std::string txt = dir.write("m.txt", cm("txt"));
  const ManifestSet set = load_manifests({txt, dir.str() + "/missing.yaml"});
  ASSERT_EQ(set.objects.size(), 1u);
  EXPECT_EQ(set.objects[0].name(), "txt");
  ASSERT_EQ(set.errors.size(), 1u);
  EXPECT_EQ(set.errors[0].file, dir.str() + "/missing.yaml");
  EXPECT_EQ(set.errors[0].line, 0u);
  EXPECT_NE(set.errors[0].message.find("no such file"), std::string::npos);
  EXPECT_EQ(set.errors[0].str(), dir.str() + "/missing.yaml: no such file or directory");
}

TEST(ManifestLoad, DashReadsStdin) {
  std::istringstream fake(cm("from-stdin") + "---\n" + cm("second"));
  std::streambuf* saved = std::cin.rdbuf(fake.rdbuf());
  const ManifestSet set = load_manifests({"-"});
  std::cin.rdbuf(saved);
  ASSERT_TRUE(set.errors.empty());
  ASSERT_EQ(set.objects.size(), 2u);
  EXPECT_EQ(set.objects[0].file, "<stdin>");
  EXPECT_EQ(set.objects[0].name(), "from-stdin");
  EXPECT_EQ(set.objects[1].line, 6u);
}

TEST(ManifestLoad, ByteOrderMarkAndEmptyInput) {
  const ManifestSet bom = load_manifests_from_string("\xEF\xBB\xBF" + cm("bom"), "bom.yaml");
  ASSERT_EQ(bom.objects.size(), 1u);
  EXPECT_EQ(bom.objects[0].name(), "bom");
  const ManifestSet empty = load_manifests_from_string("", "empty.yaml");
  EXPECT_TRUE(empty.objects.empty());
  EXPECT_TRUE(empty.errors.empty());
}

}  // namespace
}  // namespace gpupool::api
