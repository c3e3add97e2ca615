// WatchDecoder: events come out the same whatever the chunking, object text is
// exact, and garbage of every kind is a DecodeError.
#include "gpupool/kube/watch_decoder.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <optional>
#include <ostream>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "gpupool/kube/errors.h"

namespace gpupool::kube {
namespace {

struct Decoded {
  WatchEventType type;
  std::string object;
  std::string resource_version;
  bool operator==(const Decoded&) const = default;
};

std::ostream& operator<<(std::ostream& os, const Decoded& d) {
  return os << to_string(d.type) << " rv=" << d.resource_version << " " << d.object;
}

// A pod as the apiserver sends it, with strings that look like structure:
// braces, brackets, escaped quotes, a string ending in an escaped backslash,
// unicode escapes and raw UTF-8, escaped newlines.
const std::string kPodA = R"({"kind":"Pod","apiVersion":"v1","metadata":{"name":"train-0","namespace":"ml",)"
                          R"("uid":"5d1c6c4e-1111-4b7a-9a43-0c1f0e1a2b3c","resourceVersion":"1001",)"
                          R"("labels":{"app":"train","weird}":"{[\"]}"},)"
                          R"("annotations":{"kubectl.kubernetes.io/last-applied-configuration":"{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"train-0\"}}\n",)"
                          R"("path":"C:\\data\\","note":"caf\u00e9 \u2028 line1\nline2\t\"quoted\" \/ — ✓"},)"
                          R"("ownerReferences":[{"apiVersion":"apps/v1","kind":"ReplicaSet","name":"train-7d9f","uid":"abc","controller":true,"blockOwnerDeletion":true}]},)"
                          R"("spec":{"containers":[{"name":"main","image":"nvcr.io/nvidia/pytorch:24.01","args":["--lr","1e-4","}"],)"
                          R"("resources":{"requests":{"cpu":"2","nvidia.com/gpu":"1"},"limits":{"nvidia.com/gpu":1}}}],)"
                          R"("priority":-5,"preemptionPolicy":null,"enableServiceLinks":true,"tolerations":[]},)"
                          R"("status":{"phase":"Pending","conditions":[{"type":"PodScheduled","status":"False","lastTransitionTime":null}]}})";

const std::string kPodAModified = R"({"kind":"Pod","apiVersion":"v1","metadata":{"name":"train-0","namespace":"ml",)"
                                  R"("resourceVersion":"1002","labels":{"app":"train"}},"spec":{"nodeName":"gpu-node-3"},)"
                                  R"("status":{"phase":"Running","podIP":"10.0.0.7"}})";

const std::string kPodADeleted = R"({"kind":"Pod","apiVersion":"v1","metadata":{"name":"train-0","namespace":"ml",)"
                                 R"("resourceVersion":"1003","deletionTimestamp":"2024-05-01T10:00:00Z"},)"
                                 R"("status":{"phase":"Succeeded"}})";

const std::string kBookmark =
    R"({"kind":"Pod","apiVersion":"v1","metadata":{"resourceVersion":"1500","annotations":{"k8s.io/initial-events-end":"true"}}})";

const std::string kGone = R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",)"
                          R"json("message":"too old resource version: 1000 (1400)","reason":"Expired","code":410})json";

// A stream in the apiserver's framing, plus variations it is allowed to have:
// "object" before "type", whitespace and CRLF inside and between events, an
// extra top-level member, no newline between two events.
std::string stream_text() {
  std::string s;
  s += R"({"type":"ADDED","object":)" + kPodA + "}\n";
  s += "\r\n  " R"({ "object" : )" + kPodAModified + R"( , "type" : "MODIFIED" })" + "\n";
  s += R"({"type":"DELETED","object":)" + kPodADeleted + R"(,"extra":{"type":"ERROR","object":[]}})";
  s += R"({"type":"BOOKMARK","object":)" + kBookmark + "}\n";
  s += R"({"type":"ERROR","object":)" + kGone + "}\n";
  return s;
}

std::vector<Decoded> expected_events() {
  return {
      {WatchEventType::Added, kPodA, "1001"},
      {WatchEventType::Modified, kPodAModified, "1002"},
      {WatchEventType::Deleted, kPodADeleted, "1003"},
      {WatchEventType::Bookmark, kBookmark, "1500"},
      {WatchEventType::Error, kGone, ""},
  };
}

// Feeds `pieces` in order to one decoder and collects the events.
std::vector<Decoded> decode(const std::vector<std::string_view>& pieces, WatchDecoder& decoder) {
  std::vector<Decoded> out;
  for (auto piece : pieces) {
    decoder.feed(piece, [&](const WatchEvent& e) {
      out.push_back({e.type, std::string(e.object), e.resource_version});
    });
  }
  return out;
}

std::vector<Decoded> decode(const std::vector<std::string_view>& pieces) {
  WatchDecoder decoder;
  auto out = decode(pieces, decoder);
  EXPECT_FALSE(decoder.has_partial_event());
  EXPECT_EQ(decoder.buffered_bytes(), 0u);
  return out;
}

std::vector<std::string_view> byte_pieces(std::string_view s) {
  std::vector<std::string_view> pieces;
  for (std::size_t i = 0; i < s.size(); ++i) pieces.push_back(s.substr(i, 1));
  return pieces;
}

TEST(WatchDecoder, DecodesAWholeStream) {
  const std::string s = stream_text();
  EXPECT_EQ(decode({s}), expected_events());
}

TEST(WatchDecoder, SameEventsWhereverTheStreamIsSplitInTwo) {
  const std::string s = stream_text();
  const auto expected = expected_events();
  for (std::size_t cut = 0; cut <= s.size(); ++cut) {
    std::string_view v(s);
    ASSERT_EQ(decode({v.substr(0, cut), v.substr(cut)}), expected) << "split at byte " << cut;
  }
}

TEST(WatchDecoder, SameEventsFedByteByByte) {
  const std::string s = stream_text();
  EXPECT_EQ(decode(byte_pieces(s)), expected_events());
}

TEST(WatchDecoder, SameEventsInRandomChunkings) {
  const std::string s = stream_text();
  const auto expected = expected_events();
  std::mt19937 rng(20240501);
  for (int round = 0; round < 300; ++round) {
    std::uniform_int_distribution<std::size_t> size(0, round % 2 == 0 ? 16 : 700);
    std::vector<std::string_view> pieces;
    for (std::size_t at = 0; at < s.size();) {
      std::size_t n = std::min(size(rng), s.size() - at);
      pieces.push_back(std::string_view(s).substr(at, n));  // empty pieces included
      at += n;
    }
    ASSERT_EQ(decode(pieces), expected) << "round " << round;
  }
}

TEST(WatchDecoder, ObjectViewsIntoTheBytesFedWhenAnEventFitsOneChunk) {
  const std::string s = stream_text();
  WatchDecoder decoder;
  std::size_t events = 0;
  decoder.feed(s, [&](const WatchEvent& e) {
    ++events;
    EXPECT_GE(e.object.data(), s.data());
    EXPECT_LE(e.object.data() + e.object.size(), s.data() + s.size());
  });
  EXPECT_EQ(events, 5u);
}

TEST(WatchDecoder, ErrorEventBecomesAnApiError) {
  const std::string s = stream_text();
  WatchDecoder decoder;
  std::optional<ApiError> error;
  decoder.feed(s, [&](const WatchEvent& e) {
    if (e.type == WatchEventType::Error) error = error_from_event(e);
  });
  ASSERT_TRUE(error.has_value());
  EXPECT_EQ(error->code(), 410);
  EXPECT_TRUE(error->is_gone());
  EXPECT_EQ(error->reason(), StatusReason::Expired);
  EXPECT_EQ(error->status_message(), "too old resource version: 1000 (1400)");
}

TEST(WatchDecoder, ErrorEventWithoutCodeCountsAsServerError) {
  WatchDecoder decoder;
  std::optional<ApiError> error;
  decoder.feed(R"({"type":"ERROR","object":{"kind":"Status","status":"Failure","message":"boom"}})",
               [&](const WatchEvent& e) { error = error_from_event(e); });
  ASSERT_TRUE(error.has_value());
  EXPECT_EQ(error->code(), 500);
  EXPECT_TRUE(error->is_server_error());
  EXPECT_EQ(error->status_message(), "boom");
}

TEST(WatchDecoder, StreamEndingMidEventReportsAPartialEvent) {
  const std::string s = stream_text();
  const std::size_t last_start = s.rfind(R"({"type":"ERROR")");
  ASSERT_NE(last_start, std::string::npos);
  WatchDecoder decoder;
  std::vector<Decoded> got = decode({std::string_view(s).substr(0, last_start + 20)}, decoder);
  EXPECT_EQ(got.size(), 4u);
  EXPECT_TRUE(decoder.has_partial_event());
  EXPECT_EQ(decoder.buffered_bytes(), 20u);
  got = decode({std::string_view(s).substr(last_start + 20)}, decoder);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].object, kGone);
  EXPECT_FALSE(decoder.has_partial_event());
  EXPECT_EQ(decoder.buffered_bytes(), 0u);
}

TEST(WatchDecoder, WhitespaceBetweenEventsIsNotAPartialEvent) {
  WatchDecoder decoder;
  auto got = decode({R"({"type":"BOOKMARK","object":{"metadata":{"resourceVersion":"7"}}})", "\n \r\n\t"}, decoder);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].resource_version, "7");
  EXPECT_FALSE(decoder.has_partial_event());
}

TEST(WatchDecoder, ResourceVersionOnlyFromObjectMetadata) {
  // A resourceVersion elsewhere (a label, nested metadata, the event itself) is not the object's.
  const std::string s =
      R"({"resourceVersion":"1","type":"ADDED","object":{"spec":{"metadata":{"resourceVersion":"2"}},)"
      R"("labels":{"resourceVersion":"3"},"metadata":{"labels":{"resourceVersion":"4"},"resourceVersion":"5"}}})";
  auto got = decode({s});
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].resource_version, "5");
}

struct Garbage {
  const char* name;
  std::string stream;
  std::string message_part;  // a piece of the DecodeError message
};

std::vector<Garbage> garbage_cases() {
  const std::string good = R"({"type":"ADDED","object":)" + kPodA + "}\n";
  return {
      {"not_json", "this is not json\n", "expected '{' to start an event, found 't' at byte 0"},
      {"garbage_after_an_event", good + "oops", "at byte " + std::to_string(good.size())},
      {"truncated_in_a_string_then_new_event",
       R"({"type":"ADDED","object":{"metadata":{"name":"trai)" "\n" + good, "raw control character"},
      {"truncated_after_a_value_then_new_event",
       R"({"type":"ADDED","object":{"metadata":{"name":"train-0"})" "\n" + good, "expected ',' or '}', found '{'"},
      {"closing_bracket", "]\n", "found ']'"},
      {"number_at_top_level", "42\n", "found '4'"},
      {"array_at_top_level", R"([{"type":"ADDED","object":{}}])", "found '['"},
      {"mismatched_bracket", R"({"type":"ADDED","object":{"a":[1,2}}})", "expected ',' or ']', found '}'"},
      {"missing_colon", R"({"type" "ADDED","object":{}})", "expected ':'"},
      {"bad_literal", R"({"type":"ADDED","object":{"a":tru}})", "malformed JSON"},
      {"bad_escape", R"({"type":"ADDED","object":{"a":"\q"}})", "malformed JSON"},
      {"invalid_utf8", std::string(R"({"type":"ADDED","object":{"a":")") + "\xff\xfe" + R"("}})", "malformed JSON"},
      {"type_missing", R"({"object":{"metadata":{"resourceVersion":"1"}}})", "has no \"type\""},
      {"unknown_type", R"({"type":"CREATED","object":{}})", "unknown type \"CREATED\""},
      {"type_not_a_string", R"({"type":1,"object":{}})", "\"type\" is not a string"},
      {"object_missing", R"({"type":"ADDED"})", "has no \"object\""},
      {"object_not_an_object", R"({"type":"ADDED","object":"pod"})", "\"object\" is not a JSON object"},
      {"object_null", R"({"type":"ADDED","object":null})", "\"object\" is not a JSON object"},
      {"too_deep", R"({"type":"ADDED","object":{"a":)" + std::string(600, '[') + std::string(600, ']') + "}}",
       "nesting deeper than"},
  };
}

TEST(WatchDecoder, GarbageIsADecodeErrorWholeOrByteByByte) {
  for (const auto& g : garbage_cases()) {
    for (bool bytewise : {false, true}) {
      WatchDecoder decoder;
      std::vector<std::string_view> pieces = bytewise ? byte_pieces(g.stream) : std::vector<std::string_view>{g.stream};
      try {
        decode(pieces, decoder);
        ADD_FAILURE() << g.name << (bytewise ? " (byte by byte)" : "") << ": no DecodeError";
      } catch (const DecodeError& e) {
        EXPECT_NE(std::string(e.what()).find(g.message_part), std::string::npos)
            << g.name << ": message was: " << e.what();
      }
      // The decoder refuses anything after an error.
      EXPECT_THROW(decoder.feed("\n", [](const WatchEvent&) {}), DecodeError) << g.name;
    }
  }
}

TEST(WatchDecoder, ErrorsInAnEventGiveTheEventsOffsetInTheStream) {
  const std::string good = R"({"type":"ADDED","object":)" + kPodA + "}\n";
  WatchDecoder decoder;
  std::size_t events = 0;
  try {
    decoder.feed(good + R"({"type":"CREATED","object":{}})", [&](const WatchEvent&) { ++events; });
    FAIL() << "no DecodeError";
  } catch (const DecodeError& e) {
    EXPECT_NE(std::string(e.what()).find("event at byte " + std::to_string(good.size())), std::string::npos)
        << e.what();
  }
  EXPECT_EQ(events, 1u);  // the good event before the bad one was delivered
}

TEST(WatchDecoder, OversizedEventIsADecodeError) {
  const std::string event = R"({"type":"ADDED","object":{"metadata":{"name":")" + std::string(200, 'x') + R"("}}})";
  {
    WatchDecoder decoder(100);
    EXPECT_THROW(decoder.feed(event, [](const WatchEvent&) { FAIL() << "delivered an oversized event"; }),
                 DecodeError);
  }
  {
    // Fed in small pieces it fails as soon as the buffer passes the limit, before the event ends.
    WatchDecoder decoder(100);
    std::string_view v(event);
    std::size_t fed = 0;
    try {
      for (; fed < v.size(); fed += 10) decoder.feed(v.substr(fed, 10), [](const WatchEvent&) {});
      FAIL() << "no DecodeError";
    } catch (const DecodeError& e) {
      EXPECT_NE(std::string(e.what()).find("larger than the limit of 100 bytes"), std::string::npos) << e.what();
    }
    EXPECT_LT(fed, v.size());
  }
  {
    // At the limit exactly it is accepted.
    WatchDecoder decoder(event.size());
    std::size_t events = 0;
    decoder.feed(event, [&](const WatchEvent&) { ++events; });
    EXPECT_EQ(events, 1u);
  }
}

TEST(WatchDecoder, ASinkThatThrowsBreaksTheDecoder) {
  const std::string s = stream_text();
  WatchDecoder decoder;
  EXPECT_THROW(decoder.feed(s, [](const WatchEvent&) { throw std::runtime_error("consumer failed"); }),
               std::runtime_error);
  EXPECT_THROW(decoder.feed(s, [](const WatchEvent&) {}), DecodeError);
}

TEST(WatchDecoder, EventTypeNames) {
  EXPECT_EQ(to_string(WatchEventType::Added), "ADDED");
  EXPECT_EQ(to_string(WatchEventType::Modified), "MODIFIED");
  EXPECT_EQ(to_string(WatchEventType::Deleted), "DELETED");
  EXPECT_EQ(to_string(WatchEventType::Bookmark), "BOOKMARK");
  EXPECT_EQ(to_string(WatchEventType::Error), "ERROR");
}

struct InitialEventsEndCase {
  WatchEventType type;
  const char* object;
  bool end;
};

TEST(IsInitialEventsEnd, OnlyTheAnnotatedBookmark) {
  const InitialEventsEndCase cases[] = {
      {WatchEventType::Bookmark, R"({"metadata":{"resourceVersion":"5","annotations":{"k8s.io/initial-events-end":"true"}}})", true},
      {WatchEventType::Bookmark, R"({"metadata":{"resourceVersion":"5"}})", false},
      {WatchEventType::Bookmark, R"({"metadata":{"annotations":{"k8s.io/initial-events-end":"false"}}})", false},
      {WatchEventType::Bookmark, R"({"metadata":{"annotations":{"k8s.io/initial-events-end":true}}})", false},
      {WatchEventType::Bookmark, R"({"metadata":{"annotations":null}})", false},
      {WatchEventType::Bookmark, R"({"metadata":[]})", false},
      {WatchEventType::Bookmark, R"([1,2])", false},
      {WatchEventType::Bookmark, R"({"metadata":{"annotations":{"k8s.io/initial-events-end":"true")", false},
      {WatchEventType::Added, R"({"metadata":{"annotations":{"k8s.io/initial-events-end":"true"}}})", false},
  };
  for (const auto& c : cases) {
    WatchEvent ev{c.type, c.object, ""};
    EXPECT_EQ(is_initial_events_end(ev), c.end) << c.object;
  }
}

}  // namespace
}  // namespace gpupool::kube
