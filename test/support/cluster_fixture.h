// GoogleTest support for tests against a real control plane.
//
// One control plane per test binary, shared by its tests: started by the first
// test that asks for it, stopped after the last test (and killed with the
// process if that dies first; see gpupool/testenv/control_plane.h).
//
//   class MyTest : public gpupool::test::ClusterTest {};
//   TEST_F(MyTest, Works) {
//     auto nodes = create_kwok_nodes(cluster(), 2, {.capacity = {{"nvidia.com/gpu", "8"}}});
//     cluster().kubectl({"-n", ns(), "apply", "-f", "-"}, &out, manifest);
//   }
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "gpupool/testenv/control_plane.h"
#include "gpupool/testenv/kwok_nodes.h"
#include "gpupool/testenv/namespaces.h"
#include "gpupool/testenv/wait.h"

namespace gpupool::test {

using testenv::ControlPlane;
using testenv::create_kwok_nodes;
using testenv::create_namespace;
using testenv::delete_kwok_nodes;
using testenv::delete_namespace;
using testenv::delete_nodes;
using testenv::NodeSpec;
using testenv::wait_until;

// Options of the shared control plane; change them before its first use
// (e.g. in a test suite's SetUpTestSuite), e.g. to add identities.
testenv::Options& shared_cluster_options();

// The shared control plane, started on first use. Throws std::runtime_error
// when it cannot start (and again, at once, on later calls).
ControlPlane& shared_cluster();

// Stops the shared control plane now; the next shared_cluster() starts anew.
void stop_shared_cluster();

// A namespace name for the running test: its suite and name, lowercased,
// other characters turned into '-', cut so that with a random suffix it stays
// a valid DNS label (at most 63 characters). Unique per call.
std::string unique_namespace_name(const std::string& hint = "");

// Each test gets the shared control plane and a fresh namespace, created in
// SetUp (with its default ServiceAccount in place) and deleted in TearDown
// (without waiting for its finalization).
class ClusterTest : public ::testing::Test {
 protected:
  void SetUp() override;
  void TearDown() override;

  ControlPlane& cluster() { return *cluster_; }
  const std::string& ns() const { return ns_; }

 private:
  ControlPlane* cluster_ = nullptr;
  std::string ns_;
};

}  // namespace gpupool::test
