// Which TenantQuotas may ask a pool.
#include <gtest/gtest.h>

#include "gpupool/quota/eligibility.h"

namespace gpupool::quota {
namespace {

TEST(Eligibility, Table) {
  const NamespaceLabels namespaces = {
      {"ml-train", {{kTenantLabel, "ml"}, {"gpu-access", "yes"}}},
      {"ml-serve", {{kTenantLabel, "ml"}}},
      {"web", {}},
      {"other", {{kTenantLabel, "ads"}, {"gpu-access", "yes"}}},
  };
  api::QuotaRules by_name;
  by_name.namespaces = {"ml-train"};
  api::QuotaRules by_selector;
  by_selector.namespace_selector = api::LabelSelector{};
  by_selector.namespace_selector->match_labels = {{"gpu-access", "yes"}};
  struct Row {
    std::string name;
    std::string ns;
    std::vector<std::string> covered;
    const api::QuotaRules* rules;
    std::string rejected;  // "" = eligible
  };
  const std::vector<Row> rows = {
      {"no policy: everyone", "web", {}, nullptr, ""},
      {"listed by name", "ml-train", {}, &by_name, ""},
      {"not listed",
       "ml-serve",
       {},
       &by_name,
       "namespace ml-serve may not request quota from pool p: GPUPolicy pol allows only the namespaces in "
       "spec.quota.namespaces or matching spec.quota.namespaceSelector"},
      {"selected by label", "other", {}, &by_selector, ""},
      {"covers its tenant's namespaces", "ml-train", {"ml-train", "ml-serve"}, &by_selector, ""},
      {"covers another tenant's namespace", "ml-train", {"other"}, nullptr,
       "spec.namespaces: namespace other belongs to tenant ads, not to tenant ml (label gpupool.io/tenant)"},
      {"a namespace without the label is its own tenant", "web", {"ml-serve"}, nullptr,
       "spec.namespaces: namespace ml-serve belongs to tenant ml, not to tenant web (label gpupool.io/tenant)"},
      {"covers a missing namespace", "web", {"gone"}, nullptr, "spec.namespaces: namespace gone does not exist"},
  };
  for (const auto& row : rows) {
    const auto r = rejection(row.ns, row.covered, "p", "pol", row.rules, namespaces);
    EXPECT_EQ(r.value_or(""), row.rejected) << row.name;
  }
  EXPECT_EQ(tenant_of("ml-serve", namespaces), "ml");
  EXPECT_EQ(tenant_of("web", namespaces), "web");
  EXPECT_EQ(tenant_of("unknown", namespaces), "unknown");
}

}  // namespace
}  // namespace gpupool::quota
