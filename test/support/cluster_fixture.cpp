#include "support/cluster_fixture.h"

#include <spdlog/spdlog.h>
#include <sys/random.h>

#include <memory>
#include <mutex>
#include <stdexcept>

namespace gpupool::test {

namespace {

struct Shared {
  std::mutex mu;
  testenv::Options options;
  std::unique_ptr<ControlPlane> cluster;
  std::string start_error;  // a failed start is not retried by every test
};

Shared& shared() {
  // spdlog's registry must outlive the cluster (its destructor logs), so make
  // sure it exists first: statics are destroyed in reverse order.
  spdlog::default_logger_raw();
  static Shared s;
  return s;
}

// Stops the shared control plane after the last test, while everything it
// uses is still alive (before static destruction).
class SharedClusterEnvironment : public ::testing::Environment {
 public:
  void TearDown() override { stop_shared_cluster(); }
};

[[maybe_unused]] ::testing::Environment* const kEnvironment =
    ::testing::AddGlobalTestEnvironment(new SharedClusterEnvironment);

std::string slug(const std::string& in, size_t max) {
  std::string out;
  for (char c : in) {
    char l = (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
    bool ok = (l >= 'a' && l <= 'z') || (l >= '0' && l <= '9');
    if (ok) {
      out += l;
    } else if (!out.empty() && out.back() != '-') {
      out += '-';
    }
    if (out.size() >= max) break;
  }
  while (!out.empty() && out.back() == '-') out.pop_back();
  return out;
}

std::string random_suffix(int n) {
  static const char alphabet[] = "abcdefghijklmnopqrstuvwxyz0123456789";
  unsigned char bytes[16];
  if (::getrandom(bytes, sizeof bytes, 0) != static_cast<ssize_t>(sizeof bytes)) {
    throw std::runtime_error("getrandom failed");
  }
  std::string out;
  for (int i = 0; i < n; ++i) out += alphabet[bytes[i] % 36];
  return out;
}

}  // namespace

testenv::Options& shared_cluster_options() { return shared().options; }

ControlPlane& shared_cluster() {
  Shared& s = shared();
  std::lock_guard lock(s.mu);
  if (!s.cluster) {
    if (!s.start_error.empty()) throw std::runtime_error("the shared control plane failed to start earlier: " + s.start_error);
    try {
      s.cluster = ControlPlane::start(s.options);
    } catch (const std::exception& e) {
      s.start_error = e.what();
      throw;
    }
  }
  return *s.cluster;
}

void stop_shared_cluster() {
  Shared& s = shared();
  std::lock_guard lock(s.mu);
  if (s.cluster) s.cluster->stop();
  s.cluster.reset();
  s.start_error.clear();
}

std::string unique_namespace_name(const std::string& hint) {
  std::string base = hint;
  if (base.empty()) {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    base = info ? std::string(info->test_suite_name()) + "-" + info->name() : "test";
  }
  std::string s = slug(base, 56);  // + "-" + 6 characters = 63 at most
  if (s.empty()) s = "test";
  return s + "-" + random_suffix(6);
}

void ClusterTest::SetUp() {
  try {
    cluster_ = &shared_cluster();
  } catch (const std::exception& e) {
    GTEST_FAIL() << "control plane: " << e.what();
  }
  ns_ = unique_namespace_name();
  try {
    create_namespace(*cluster_, ns_);
  } catch (const std::exception& e) {
    GTEST_FAIL() << e.what();
  }
}

void ClusterTest::TearDown() {
  if (!cluster_ || ns_.empty()) return;
  try {
    delete_namespace(*cluster_, ns_, /*wait=*/false);
  } catch (const std::exception& e) {
    ADD_FAILURE() << e.what();
  }
}

}  // namespace gpupool::test
