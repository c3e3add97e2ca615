// yaml_to_json against what kubectl (sigs.k8s.io/yaml, go-yaml v2) produces.
#include "gpupool/api/yaml_json.h"

#include <gtest/gtest.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <string>

namespace gpupool::api {
namespace {

std::string json_of(const rapidjson::Value& v) {
  rapidjson::StringBuffer buf;
  rapidjson::Writer<rapidjson::StringBuffer> w(buf);
  v.Accept(w);
  return buf.GetString();
}

std::string convert(const std::string& yaml) {
  const YAML::Node node = YAML::Load(yaml);
  rapidjson::Document doc;
  const rapidjson::Value v = yaml_to_json(node, doc.GetAllocator());
  return json_of(v);
}

// The JSON kubectl sends for `v: <plain>`.
std::string plain(const std::string& scalar) {
  const std::string json = convert("v: " + scalar);  // {"v":...}
  return json.substr(5, json.size() - 6);
}

struct Row {
  const char* yaml;
  const char* json;  // the value of "v" as JSON
};

TEST(YamlJsonResolution, PlainScalarsFollowGoYamlV2) {
  const Row rows[] = {
      // null
      {"~", "null"}, {"null", "null"}, {"Null", "null"}, {"NULL", "null"}, {"", "null"},
      {"nULL", "\"nULL\""},
      // YAML 1.1 booleans
      {"y", "true"}, {"Y", "true"}, {"yes", "true"}, {"Yes", "true"}, {"YES", "true"},
      {"on", "true"}, {"On", "true"}, {"ON", "true"}, {"true", "true"}, {"True", "true"}, {"TRUE", "true"},
      {"n", "false"}, {"N", "false"}, {"no", "false"}, {"No", "false"}, {"NO", "false"},
      {"off", "false"}, {"Off", "false"}, {"OFF", "false"}, {"false", "false"}, {"False", "false"},
      {"FALSE", "false"}, {"yEs", "\"yEs\""}, {"tRUE", "\"tRUE\""}, {"oN", "\"oN\""},
      // integers (strconv.ParseInt(s, 0, 64) after removing underscores)
      {"0", "0"}, {"42", "42"}, {"-17", "-17"}, {"+5", "5"}, {"0x1F", "31"}, {"0X1f", "31"}, {"0o17", "15"},
      {"017", "15"}, {"-017", "-15"}, {"0b101", "5"}, {"1_000", "1000"}, {"0x_ff", "255"},
      {"9223372036854775807", "9223372036854775807"}, {"-9223372036854775808", "-9223372036854775808"},
      {"18446744073709551615", "18446744073709551615"},
      // floats; encoding/json prints integral ones as integers
      {"09", "9"}, {"3.0", "3"}, {"1e3", "1000"}, {"0.1e1", "1"}, {"1.5", "1.5"}, {".5", "0.5"}, {"+.5", "0.5"},
      {"-1.5e-3", "-0.0015"}, {"1_0.5", "10.5"}, {"5.", "5"}, {"0x1p3", "8"},
      // strings
      {"1e400", "\"1e400\""}, {"0x", "\"0x\""}, {"08x", "\"08x\""}, {"_1", "\"_1\""}, {"1.2.3", "\"1.2.3\""},
      {"12:30", "\"12:30\""}, {"2024-01-01", "\"2024-01-01\""}, {"2024-01-01T10:00:00Z", "\"2024-01-01T10:00:00Z\""},
      {"nan", "\"nan\""}, {"inf", "\"inf\""}, {"abc", "\"abc\""}, {"1Gi", "\"1Gi\""}, {"100m", "\"100m\""},
      {"0.5Gi", "\"0.5Gi\""}, {"v1.2", "\"v1.2\""}, {"._5", "\"._5\""}, {"+", "\"+\""},
  };
  std::size_t n = 0;
  for (const auto& row : rows) {
    EXPECT_EQ(plain(row.yaml), row.json) << "plain scalar `" << row.yaml << "`";
    ++n;
  }
  EXPECT_GE(n, 30u);
}

TEST(YamlJsonResolution, ResolvePlainScalarKinds) {
  EXPECT_EQ(resolve_plain_scalar("~"), YamlScalarKind::Null);
  EXPECT_EQ(resolve_plain_scalar("off"), YamlScalarKind::Bool);
  EXPECT_EQ(resolve_plain_scalar("0o7"), YamlScalarKind::Int);
  EXPECT_EQ(resolve_plain_scalar(".inf"), YamlScalarKind::Float);
  EXPECT_EQ(resolve_plain_scalar("-.INF"), YamlScalarKind::Float);
  EXPECT_EQ(resolve_plain_scalar(".NaN"), YamlScalarKind::Float);
  EXPECT_EQ(resolve_plain_scalar("1e3"), YamlScalarKind::Float);
  EXPECT_EQ(resolve_plain_scalar("Yes please"), YamlScalarKind::String);
}

TEST(YamlJsonResolution, QuotedBlockAndTaggedScalars) {
  EXPECT_EQ(convert("v: \"yes\""), R"({"v":"yes"})");
  EXPECT_EQ(convert("v: '42'"), R"({"v":"42"})");
  EXPECT_EQ(convert("v: \"\""), R"({"v":""})");
  EXPECT_EQ(convert("v: 'null'"), R"({"v":"null"})");
  EXPECT_EQ(convert("v: |\n  42\n"), R"({"v":"42\n"})");
  EXPECT_EQ(convert("v: >-\n  on\n"), R"({"v":"on"})");
  EXPECT_EQ(convert("v: !!str 42"), R"({"v":"42"})");
  EXPECT_EQ(convert("v: !!str yes"), R"({"v":"yes"})");
  EXPECT_EQ(convert("v: !!int \"42\""), R"({"v":42})");
  EXPECT_EQ(convert("v: !!bool \"yes\""), R"({"v":true})");
  EXPECT_EQ(convert("v: !!float 1"), R"({"v":1})");
  EXPECT_EQ(convert("v: !!float 1.25"), R"({"v":1.25})");
  EXPECT_EQ(convert("v: !!null ~"), R"({"v":null})");
  EXPECT_EQ(convert("v: !custom 42"), R"({"v":"42"})");
  EXPECT_EQ(convert("v: ! 42"), R"({"v":"42"})");
  EXPECT_THROW(convert("v: !!int abc"), YamlJsonError);
  EXPECT_THROW(convert("v: !!bool 1"), YamlJsonError);
  EXPECT_THROW(convert("v: !!null x"), YamlJsonError);
}

TEST(YamlJsonResolution, InfinityAndNanHaveNoJsonForm) {
  for (const char* s : {".inf", "-.inf", "+.INF", ".nan", ".NaN", "-inf", "+Infinity"}) {
    EXPECT_THROW(plain(s), YamlJsonError) << s;
  }
  try {
    convert("a: 1\nv: .inf\n");
    FAIL() << "no error";
  } catch (const YamlJsonError& e) {
    EXPECT_EQ(e.line(), 2);
    EXPECT_NE(std::string(e.what()).find("unsupported value: +Inf"), std::string::npos) << e.what();
  }
}

TEST(YamlJsonResolution, NestedValues) {
  EXPECT_EQ(convert("a: {b: [1, yes, \"no\", ~, 0x10, 1.5, text]}\nc:\n  - d: on\n    e: []\n  - {}\n"),
            R"({"a":{"b":[1,true,"no",null,16,1.5,"text"]},"c":[{"d":true,"e":[]},{}]})");
  EXPECT_EQ(convert("- a\n- b\n"), R"(["a","b"])");
  EXPECT_EQ(convert("42"), "42");
}

TEST(YamlJsonKeys, NonStringKeysAreStringified) {
  EXPECT_EQ(convert("1: a"), R"({"1":"a"})");
  EXPECT_EQ(convert("0x10: a"), R"({"16":"a"})");
  EXPECT_EQ(convert("yes: a"), R"({"true":"a"})");
  EXPECT_EQ(convert("on: a\noff: b"), R"({"true":"a","false":"b"})");
  EXPECT_EQ(convert("x: 1\ny: 2"), R"({"x":1,"true":2})");  // go-yaml v2 reads the key y as true
  EXPECT_EQ(convert("1.5: a"), R"({"1.5":"a"})");
  EXPECT_EQ(convert("1e6: a"), R"({"1e+06":"a"})");
  EXPECT_EQ(convert("\"1\": a"), R"({"1":"a"})");
  EXPECT_EQ(convert("nvidia.com/gpu: 4"), R"({"nvidia.com/gpu":4})");
  EXPECT_THROW(convert("~: a"), YamlJsonError);
  EXPECT_THROW(convert("? [1, 2]\n: a"), YamlJsonError);
  EXPECT_THROW(convert("? {a: 1}\n: a"), YamlJsonError);
}

TEST(YamlJsonKeys, DuplicateKeysAreErrors) {
  try {
    convert("a: 1\nb: 2\na: 3\n");
    FAIL() << "no error";
  } catch (const YamlJsonError& e) {
    EXPECT_EQ(e.line(), 3);
    EXPECT_NE(std::string(e.what()).find("key \"a\" already set in map"), std::string::npos) << e.what();
  }
  EXPECT_THROW(convert("outer:\n  x: 1\n  x: 2\n"), YamlJsonError);
  EXPECT_THROW(convert("1: a\n\"1\": b\n"), YamlJsonError);  // the same JSON key
  EXPECT_THROW(convert("yes: a\ntrue: b\n"), YamlJsonError);
  EXPECT_EQ(convert("a: {x: 1}\nb: {x: 1}"), R"({"a":{"x":1},"b":{"x":1}})");
}

TEST(YamlJsonAliases, AnchorsMergeKeysAndCycles) {
  EXPECT_EQ(convert("a: &x [1, 2]\nb: *x\n"), R"({"a":[1,2],"b":[1,2]})");
  EXPECT_EQ(convert("base: &b {a: 1, b: 2}\nd:\n  <<: *b\n  b: 3\n"), R"({"base":{"a":1,"b":2},"d":{"a":1,"b":3}})");
  EXPECT_EQ(convert("p: &p {x: 1}\nq: &q {x: 2, z: 3}\nd:\n  <<: [*p, *q]\n"),
            R"({"p":{"x":1},"q":{"x":2,"z":3},"d":{"x":1,"z":3}})");
  EXPECT_THROW(convert("d:\n  <<: 5\n"), YamlJsonError);
  EXPECT_THROW(convert("a: &x\n  b: *x\n"), YamlJsonError);  // refers to itself: an error, not a crash
}

TEST(YamlJsonFloatFormat, GoShortestG) {
  EXPECT_EQ(go_format_float(64), "64");
  EXPECT_EQ(go_format_float(0.5), "0.5");
  EXPECT_EQ(go_format_float(-2.25), "-2.25");
  EXPECT_EQ(go_format_float(1e6), "1e+06");
  EXPECT_EQ(go_format_float(123456), "123456");
  EXPECT_EQ(go_format_float(123456789), "1.23456789e+08");
  EXPECT_EQ(go_format_float(0.0001), "0.0001");
  EXPECT_EQ(go_format_float(0.00001), "1e-05");
  EXPECT_EQ(go_format_float(1.1, 32), "1.1");
  EXPECT_EQ(go_format_float(0), "0");
}

}  // namespace
}  // namespace gpupool::api
