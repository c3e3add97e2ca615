// The decoder never crashes and never throws: a deterministic pseudo-random
// loop mutates valid objects (text edits and JSON value edits) and checks
// that decode_object answers consistently, and that whatever decodes also
// survives an encode/decode round trip.
#include <gtest/gtest.h>

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <cstdint>
#include <string>
#include <vector>

#include "gpupool/api/kinds.h"
#include "sample_objects.h"

namespace gpupool::api {
namespace {

using namespace gpupool::api::testing;

// SplitMix64: the same sequence on every platform.
class Random {
 public:
  explicit Random(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next() {
    std::uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  std::size_t below(std::size_t n) { return n == 0 ? 0 : static_cast<std::size_t>(next() % n); }

 private:
  std::uint64_t state_;
};

const std::vector<std::string>& seeds() {
  static const std::vector<std::string> all = {
      to_json(full_gpupool()),    to_json(full_gpupolicy()),    to_json(full_tenantquota()),
      to_json(full_gpunode()),    to_json(minimal_gpupool()),   to_json(minimal_gpupolicy()),
      to_json(minimal_tenantquota()), to_json(minimal_gpunode()),
  };
  return all;
}

constexpr const char* kTokens[] = {
    "null", "true", "false", "0", "-1", "1.5", "3000000000", "1e400", "-0", "\"\"", "\"x\"", "[]", "{}",
    "\"NoSchedule\"", "\"1Gi\"", "\"4 GPUs\"", "\"10m\"", "\"2024-05-01T00:00:00Z\"", "\"fooBar\":1,", "{\"a\":[",
    ",", ":", "\"", "\\", "\\u0000", "]", "}", "9223372036854775808", "18446744073709551616", "\"\xff\xfe\""};

constexpr const char* kValues[] = {
    "null", "true", "false", "0", "1", "-1", "2.5", "3000000000", "1e300", "18446744073709551615",
    "\"\"", "\"x\"", "\"NoSchedule\"", "\"timeSlicing\"", "\"In\"", "\"True\"", "\"1Gi\"", "\"500m\"", "\"4 GPUs\"",
    "\"10m\"", "\"1d\"", "\"2024-05-01T00:00:00Z\"", "\"25%\"", "[]", "[1,\"a\",null]", "{}", "{\"name\":\"x\"}",
};

void mutate_text(std::string& s, Random& rnd) {
  const std::size_t pos = rnd.below(s.size() + 1);
  switch (rnd.below(4)) {
    case 0:  // drop a few characters
      s.erase(pos, 1 + rnd.below(8));
      break;
    case 1:  // insert a token
      s.insert(pos, kTokens[rnd.below(std::size(kTokens))]);
      break;
    case 2:  // replace one character
      if (!s.empty()) s[rnd.below(s.size())] = static_cast<char>(rnd.below(256));
      break;
    default: {  // duplicate a slice elsewhere
      const std::size_t from = rnd.below(s.size());
      const std::string slice = s.substr(from, 1 + rnd.below(40));
      s.insert(pos, slice);
      break;
    }
  }
}

// Every value in the document, parents before children.
void collect(rapidjson::Value& v, std::vector<rapidjson::Value*>& out) {
  out.push_back(&v);
  if (v.IsObject()) {
    for (auto m = v.MemberBegin(); m != v.MemberEnd(); ++m) collect(m->value, out);
  } else if (v.IsArray()) {
    for (rapidjson::SizeType i = 0; i < v.Size(); ++i) collect(v[i], out);
  }
}

void mutate_value(rapidjson::Document& doc, Random& rnd) {
  std::vector<rapidjson::Value*> values;
  collect(doc, values);
  rapidjson::Value& target = *values[rnd.below(values.size())];
  auto& alloc = doc.GetAllocator();
  const std::size_t op = rnd.below(5);
  if (op == 0 && target.IsObject() && target.MemberCount() > 0) {
    target.RemoveMember(target.MemberBegin() + static_cast<std::ptrdiff_t>(rnd.below(target.MemberCount())));
  } else if (op == 1 && target.IsObject()) {
    target.AddMember("fooBar", rapidjson::Value(1), alloc);
  } else if (op == 2 && target.IsArray() && target.Size() > 0) {
    rapidjson::Value copy(target[static_cast<rapidjson::SizeType>(rnd.below(target.Size()))], alloc);
    target.PushBack(copy, alloc);
  } else if (op == 3 && target.IsArray() && target.Size() > 0) {
    target.Erase(target.Begin() + static_cast<std::ptrdiff_t>(rnd.below(target.Size())));
  } else {
    rapidjson::Document replacement(&alloc);
    replacement.Parse(kValues[rnd.below(std::size(kValues))]);
    target.CopyFrom(replacement, alloc);
  }
}

std::string dump(const rapidjson::Value& v) {
  rapidjson::StringBuffer buf;
  rapidjson::Writer<rapidjson::StringBuffer> writer(buf);
  v.Accept(writer);
  return {buf.GetString(), buf.GetSize()};
}

// Returns a failure message, or "" if decoding `doc` behaved.
std::string check(const rapidjson::Value& doc, bool& decoded_ok) {
  const auto decoded = decode_object(doc);
  decoded_ok = decoded.ok();
  if (decoded.value.has_value() == !decoded.errors.empty()) return "value and errors disagree";
  for (const auto& e : decoded.errors) {
    if (e.reason.empty()) return "empty reason at " + e.path;
    if (e.reason.rfind("Internal error", 0) == 0) return "decoder threw: " + e.reason;
  }
  if (!decoded.value) return "";
  rapidjson::Document out;
  const rapidjson::Value encoded = encode(*decoded.value, out.GetAllocator());
  const auto again = decode_object(encoded);
  if (!again.ok()) return "re-decode failed: " + format_field_errors(again.errors);
  if (!(*again.value == *decoded.value)) return "round trip changed the object: " + to_json(*again.value);
  return "";
}

TEST(CodecMutation, DecoderNeverCrashesOnMutatedObjects) {
  Random rnd(20240501);
  int parsed = 0, accepted = 0;
  constexpr int kIterations = 5000;
  for (int i = 0; i < kIterations; ++i) {
    std::string text = seeds()[rnd.below(seeds().size())];
    rapidjson::Document doc;
    const std::size_t mutations = 1 + rnd.below(3);
    const bool text_mode = rnd.below(2) == 0;
    if (text_mode) {
      for (std::size_t m = 0; m < mutations; ++m) mutate_text(text, rnd);
      doc.Parse<rapidjson::kParseIterativeFlag>(text.data(), text.size());
      if (doc.HasParseError()) continue;
    } else {
      doc.Parse(text.data(), text.size());
      for (std::size_t m = 0; m < mutations; ++m) mutate_value(doc, rnd);
    }
    ++parsed;
    bool ok = false;
    std::string failure;
    try {
      failure = check(doc, ok);
    } catch (const std::exception& e) {
      failure = std::string("exception escaped: ") + e.what();
    } catch (...) {
      failure = "unknown exception escaped";
    }
    if (ok) ++accepted;
    ASSERT_EQ(failure, "") << "iteration " << i << " input:\n" << (text_mode ? text : dump(doc));
  }
  // The loop exercises both outcomes.
  EXPECT_GT(parsed, kIterations / 3);
  EXPECT_GT(accepted, parsed / 20);
  EXPECT_LT(accepted, parsed);
}

}  // namespace
}  // namespace gpupool::api
