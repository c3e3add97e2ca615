#include "gpupool/kube/errors.h"

#include <gtest/gtest.h>

namespace gpupool::kube {
namespace {

TEST(DecodeApiError, NotFoundStatus) {
  auto e = decode_api_error(404, R"j({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",
    "message":"pods \"web-0\" not found","reason":"NotFound","details":{"name":"web-0","kind":"pods"},"code":404})j");
  EXPECT_EQ(e.code(), 404);
  EXPECT_EQ(e.reason(), StatusReason::NotFound);
  EXPECT_TRUE(e.is_not_found());
  EXPECT_FALSE(e.is_conflict());
  EXPECT_EQ(e.status_message(), "pods \"web-0\" not found");
  EXPECT_NE(std::string(e.what()).find("NotFound"), std::string::npos);
}

TEST(DecodeApiError, InvalidWithCauses) {
  auto e = decode_api_error(422, R"j({"kind":"Status","apiVersion":"v1","status":"Failure",
    "message":"Deployment.apps \"d\" is invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0",
    "reason":"Invalid","details":{"name":"d","group":"apps","kind":"Deployment","causes":[
      {"reason":"FieldValueInvalid","message":"Invalid value: -1: must be greater than or equal to 0","field":"spec.replicas"},
      {"reason":"FieldValueRequired","message":"Required value","field":"spec.selector"}]},"code":422})j");
  EXPECT_TRUE(e.is_invalid());
  ASSERT_EQ(e.causes().size(), 2u);
  EXPECT_EQ(e.causes()[0].field, "spec.replicas");
  EXPECT_EQ(e.causes()[0].type, "FieldValueInvalid");
  EXPECT_EQ(e.causes()[1].field, "spec.selector");
  // A cause not already in the message is appended to what().
  EXPECT_NE(std::string(e.what()).find("spec.selector: Required value"), std::string::npos);
}

TEST(DecodeApiError, ConflictVersusAlreadyExists) {
  auto conflict = decode_api_error(409, R"j({"kind":"Status","reason":"Conflict","message":"the object has been modified","code":409})j");
  auto exists = decode_api_error(409, R"j({"kind":"Status","reason":"AlreadyExists","message":"already exists","code":409})j");
  EXPECT_TRUE(conflict.is_conflict());
  EXPECT_FALSE(conflict.is_already_exists());
  EXPECT_TRUE(exists.is_already_exists());
  EXPECT_FALSE(exists.is_conflict());
}

TEST(DecodeApiError, GoneAndExpired) {
  auto gone = decode_api_error(410, R"j({"kind":"Status","reason":"Expired","message":"too old resource version: 1 (200)","code":410})j");
  EXPECT_TRUE(gone.is_gone());
  EXPECT_EQ(gone.reason(), StatusReason::Expired);
}

TEST(DecodeApiError, TooManyRequestsKeepsRetryAfter) {
  auto header = decode_api_error(429, R"j({"kind":"Status","reason":"TooManyRequests","message":"slow down","code":429})j", 3);
  EXPECT_TRUE(header.is_too_many_requests());
  EXPECT_EQ(header.retry_after_seconds(), 3);
  auto details = decode_api_error(429, R"j({"kind":"Status","reason":"TooManyRequests","message":"Cannot evict pod as it would violate the pod's disruption budget.","details":{"causes":[{"reason":"DisruptionBudget","message":"The disruption budget web needs 1 healthy pods and has 1 currently"}],"retryAfterSeconds":10},"code":429})j");
  EXPECT_EQ(details.retry_after_seconds(), 10);
  EXPECT_EQ(details.causes().at(0).type, "DisruptionBudget");
}

TEST(DecodeApiError, NonStatusBodiesFallBackToTheCode) {
  auto forbidden = decode_api_error(403, "forbidden: no");
  EXPECT_TRUE(forbidden.is_forbidden());
  EXPECT_EQ(forbidden.reason(), StatusReason::Forbidden);
  EXPECT_NE(forbidden.status_message().find("forbidden: no"), std::string::npos);
  auto unauthorized = decode_api_error(401, "");
  EXPECT_TRUE(unauthorized.is_unauthorized());
  auto bad_gateway = decode_api_error(502, "<html>bad gateway</html>");
  EXPECT_TRUE(bad_gateway.is_server_error());
  EXPECT_EQ(bad_gateway.reason(), StatusReason::Unknown);
}

TEST(DecodeApiError, GarbageNeverThrows) {
  for (const char* body : {"{", "[]", "null", "{\"kind\":\"Status\",\"code\":\"x\",\"details\":7}",
                           "{\"kind\":\"Status\",\"details\":{\"causes\":[1,2,{\"field\":3}]}}", "\xff\xfe"}) {
    auto e = decode_api_error(500, body);
    EXPECT_EQ(e.code(), 500) << body;
  }
}

TEST(StatusReason, RoundTrips) {
  for (auto r : {StatusReason::NotFound, StatusReason::AlreadyExists, StatusReason::Conflict, StatusReason::Invalid,
                 StatusReason::Forbidden, StatusReason::Unauthorized, StatusReason::Gone, StatusReason::Expired,
                 StatusReason::TooManyRequests, StatusReason::InternalError}) {
    EXPECT_EQ(parse_status_reason(to_string(r)), r);
  }
  EXPECT_EQ(parse_status_reason("SomethingNew"), StatusReason::Unknown);
}

}  // namespace
}  // namespace gpupool::kube
