#include <gtest/gtest.h>
#include <rapidjson/document.h>

namespace gpupool {
namespace {

// A wrong-typed read of untrusted JSON throws instead of aborting the process.
TEST(RapidJsonConfig, TypeMismatchThrows) {
  rapidjson::Document doc;
  doc.Parse(R"({"items":null,"count":"7"})");
  ASSERT_FALSE(doc.HasParseError());
  EXPECT_THROW(doc["items"].GetArray(), JsonShapeError);
  EXPECT_THROW(doc["count"].GetInt(), JsonShapeError);
  EXPECT_THROW(doc["absent"], JsonShapeError);
  EXPECT_EQ(doc["count"].GetString(), std::string("7"));
}

}  // namespace
}  // namespace gpupool
