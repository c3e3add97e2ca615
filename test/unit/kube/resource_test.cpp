#include "gpupool/kube/resource.h"

#include <gtest/gtest.h>

namespace gpupool::kube {
namespace {

TEST(ResourcePath, CoreNamespacedObjectAndSubresource) {
  ResourceRef pods{core::pods(), "team-a", "web-0", ""};
  EXPECT_EQ(resource_path(pods), "/api/v1/namespaces/team-a/pods/web-0");
  EXPECT_EQ(resource_path(pods.with_subresource("eviction")), "/api/v1/namespaces/team-a/pods/web-0/eviction");
  EXPECT_EQ(resource_path(pods.with_name("")), "/api/v1/namespaces/team-a/pods");
}

TEST(ResourcePath, ClusterScopedAndAllNamespaces) {
  EXPECT_EQ(resource_path({core::nodes(), "", "gpu-1", "status"}), "/api/v1/nodes/gpu-1/status");
  EXPECT_EQ(resource_path({core::pods(), "", "", ""}), "/api/v1/pods");
}

TEST(ResourcePath, NamedGroups) {
  ResourceRef pools{{"gpupool.io", "v1alpha1", "gpupools"}, "", "pool-a", ""};
  EXPECT_EQ(resource_path(pools), "/apis/gpupool.io/v1alpha1/gpupools/pool-a");
  ResourceRef deploy{{"apps", "v1", "deployments"}, "ns", "d", "scale"};
  EXPECT_EQ(resource_path(deploy), "/apis/apps/v1/namespaces/ns/deployments/d/scale");
}

TEST(UrlEncode, EscapesSelectorSyntax) {
  EXPECT_EQ(url_encode("app in (a,b),tier!=db"), "app%20in%20%28a%2Cb%29%2Ctier%21%3Ddb");
  EXPECT_EQ(url_encode("spec.nodeName=node-1"), "spec.nodeName%3Dnode-1");
  EXPECT_EQ(url_encode("A-z_0.9~"), "A-z_0.9~");
}

}  // namespace
}  // namespace gpupool::kube
